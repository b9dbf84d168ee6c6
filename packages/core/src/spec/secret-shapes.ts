// The shapes of common credentials, shared by the core redactor (everything journaled) and
// the provider adapters (error messages), so both recognise the same tokens.

import { createKnownSecretMatcher, MINIMUM_SECRET_LENGTH } from './known-secrets.js';
import { URL_PASSWORD } from './url-credentials.js';

export { MINIMUM_SECRET_LENGTH };

/** What a secret is replaced with. */
export const REDACTED = '[REDACTED]';

export interface SecretShape {
  pattern: RegExp;
  replace: string;
}

// Ordered: the more specific shapes first so their whole value is replaced.
export const SECRET_SHAPES: readonly SecretShape[] = [
  // `Authorization: Bearer …`, `Basic …` in error texts and logged headers.
  { pattern: /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/g, replace: `$1 ${REDACTED}` },
  // OpenAI (`sk-…`, `sk-proj-…`) and Anthropic (`sk-ant-…`) keys.
  { pattern: /\bsk-[A-Za-z0-9_-]{16,}/g, replace: REDACTED },
  // GitHub tokens.
  { pattern: /\bgh[pousr]_[A-Za-z0-9]{20,}/g, replace: REDACTED },
  { pattern: /\bgithub_pat_[A-Za-z0-9_]{20,}/g, replace: REDACTED },
  // Slack tokens (`xoxb-`, `xoxp-`, …).
  { pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, replace: REDACTED },
  // AWS access key ids.
  { pattern: /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g, replace: REDACTED },
  // Google API keys.
  { pattern: /\bAIza[0-9A-Za-z_-]{35}\b/g, replace: REDACTED },
  // Password hashes in crypt(3) form, as /etc/shadow holds them (`$6$salt$hash`, `$2b$10$…`, `$y$…`).
  { pattern: /\$(?:1|2[abxy]?|5|6|7|y|gy)\$[./A-Za-z0-9$]{8,}/g, replace: REDACTED },
  // Passwords in URLs: `postgres://user:password@host`, masked as everything shown is (url-credentials.ts).
  { pattern: URL_PASSWORD, replace: `$1${REDACTED}@` },
  // `x-api-key: …`, `api_key=…`, `"password": "…"` in texts such as logged requests.
  {
    pattern:
      /\b(x-api-key|api[_-]?key|password|passwd|client[_-]?secret|access[_-]?token)(["']?\s*[:=]\s*["']?)([^\s"'&,;]{4,})/gi,
    replace: `$1$2${REDACTED}`,
  },
];

/**
 * A text none of `SECRET_SHAPES` can match: each shape starts with (or needs) one of these
 * literals, so a text without any of them is left unchanged by all of them, and one test replaces
 * nine scans on the texts that make up most of what is journaled (keys, ids, times, commands).
 * Case-insensitive like the broadest shape; `secret-shapes.test.ts` checks every shape's matches
 * hold one of them.
 */
const SHAPE_ANCHORS =
  /bearer|basic|sk-|gh[pousr]_|github_pat_|xox[abposr]-|akia|asia|aiza|:\/\/|api|passw|secret|token|\$(?:1|2[abxy]?|5|6|7|y|gy)\$/i;

/** Whether a text holds something one of `SECRET_SHAPES` might match (when false, none does). */
export function mayHoldSecretShape(text: string): boolean {
  return SHAPE_ANCHORS.test(text);
}

// A masked credential as servers print them: a visible head, a run of mask characters, a visible
// tail (`sk-test-SE****6789`, `sk-…abcd`, `AKIA...WXYZ`).
const maskedToken = /([A-Za-z0-9_-]{2,})(\*{3,}|•{3,}|…|\.{3})([A-Za-z0-9_-]{2,})/g;
// Masked forms of well-known key shapes are redacted even when the key itself is not known.
const maskedKeyShape = /^(?:sk-|gh[pousr]_|github_pat_|xox[abposr]-|AKIA|ASIA|AIza)/;

/** Replaces masked forms whose head and tail match a known secret, or that have a credential's shape. */
function scrubMaskedForms(text: string, secrets: readonly string[]): string {
  return text.replace(maskedToken, (whole: string, head: string, _mask: string, tail: string) => {
    if (maskedKeyShape.test(head)) return REDACTED;
    const matches = secrets.some(
      (secret) => head.length >= 4 && secret.length > head.length && secret.startsWith(head) && secret.endsWith(tail),
    );
    return matches ? REDACTED : whole;
  });
}

/**
 * Scrubs texts of the given secrets, their forms (known-secrets.ts) and masked forms of them, and
 * of every credential shape unless `shapes` is false (for messages whose examples must stay as written).
 */
export function createSecretScrubber(
  secrets: Iterable<string | null | undefined> = [],
  options: { shapes?: boolean } = {},
): (text: string) => string {
  const values = [...secrets].filter(
    (secret): secret is string => typeof secret === 'string' && secret.length >= MINIMUM_SECRET_LENGTH,
  );
  const matcher = createKnownSecretMatcher(values);
  return (text) => {
    let result = matcher ? matcher.replace(text, REDACTED) : text;
    if (result.includes('*') || result.includes('…') || result.includes('...') || result.includes('•')) {
      result = scrubMaskedForms(result, values);
    }
    if (options.shapes === false || !mayHoldSecretShape(result)) return result;
    for (const shape of SECRET_SHAPES) result = result.replace(shape.pattern, shape.replace);
    return result;
  };
}

/** `text` with the given secret values and every known credential shape replaced (see `createSecretScrubber`). */
export function scrubSecrets(text: string, secrets: Iterable<string | null | undefined> = []): string {
  return createSecretScrubber(secrets)(text);
}
