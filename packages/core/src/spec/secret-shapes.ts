// The shapes of common credentials, shared by the core redactor (everything journaled) and
// the provider adapters (error messages), so both recognise the same tokens.

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
  // Passwords in URLs: `postgres://user:password@host`.
  { pattern: /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s@/]+@/gi, replace: `$1${REDACTED}@` },
  // `x-api-key: …`, `api_key=…`, `"password": "…"` in texts such as logged requests.
  {
    pattern:
      /\b(x-api-key|api[_-]?key|password|passwd|client[_-]?secret|access[_-]?token)(["']?\s*[:=]\s*["']?)([^\s"'&,;]{4,})/gi,
    replace: `$1$2${REDACTED}`,
  },
];

/** Shorter values are too likely to occur in ordinary text to be replaced everywhere. */
export const MINIMUM_SECRET_LENGTH = 8;

/** Replaces the given secret values (longest first) and every known credential shape in a text. */
export function scrubSecrets(text: string, secrets: Iterable<string | null | undefined> = []): string {
  const values = [...secrets]
    .filter((secret): secret is string => typeof secret === 'string' && secret.length >= MINIMUM_SECRET_LENGTH)
    .sort((left, right) => right.length - left.length);
  let result = text;
  for (const secret of values) if (result.includes(secret)) result = result.split(secret).join(REDACTED);
  for (const shape of SECRET_SHAPES) result = result.replace(shape.pattern, shape.replace);
  return result;
}
