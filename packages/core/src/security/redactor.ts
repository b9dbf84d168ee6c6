// Scrubs secrets from everything Conclave writes (DESIGN 12): the values of secret-looking
// environment variables and configured secrets, and the shapes of common tokens, wherever
// they occur in a JSON value. The engine runs every event through it before it is journaled.

/** What a secret is replaced with. */
export const REDACTED = '[REDACTED]';

/** Shorter values are too likely to occur in ordinary text to be replaced everywhere. */
const MINIMUM_SECRET_LENGTH = 8;

/** Environment variables whose values are secrets. */
const secretEnvName =
  /(?:API_?KEY|_TOKEN|^TOKEN|_SECRET|^SECRET|SECRET_ACCESS_KEY|PASSWORD|PASSWD|_PAT|PRIVATE_KEY|AUTH)$/i;
const secretEnvNameAnywhere = /PASSWORD|SECRET/i;

/** Object keys whose string values are secrets whatever they look like. */
const secretKey =
  /^(?:api[-_]?key|x-api-key|authorization|proxy-authorization|password|passwd|secret|client[-_]?secret|access[-_]?token|refresh[-_]?token|auth[-_]?token|token)$/i;

interface TokenShape {
  pattern: RegExp;
  replace: string;
}

// Ordered: the more specific shapes first so their whole value is replaced.
const tokenShapes: TokenShape[] = [
  // `Authorization: Bearer …`, `Bearer …` in error texts and logged headers.
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

export interface RedactorOptions {
  /** Secrets from config (provider keys, store passwords…). */
  secrets?: Iterable<string | null | undefined>;
  /** Environment whose secret-looking variables are scrubbed (default: none; pass process.env). */
  env?: Record<string, string | undefined>;
}

export interface Redactor {
  /** A copy of a JSON-like value with every string (and object key) scrubbed; the input is not changed. */
  redact<T>(value: T): T;
  redactText(text: string): string;
  /** How many distinct known secret values it scrubs (for diagnostics; never the values). */
  readonly knownSecretCount: number;
}

/** Whether an environment variable's value is treated as a secret. */
export function isSecretEnvName(name: string): boolean {
  return secretEnvName.test(name) || secretEnvNameAnywhere.test(name);
}

export function createRedactor(options: RedactorOptions = {}): Redactor {
  const known = new Set<string>();
  const addSecret = (value: string | null | undefined) => {
    if (typeof value !== 'string') return;
    const secret = value.trim();
    if (secret.length >= MINIMUM_SECRET_LENGTH) known.add(secret);
  };
  for (const secret of options.secrets ?? []) addSecret(secret);
  for (const [name, value] of Object.entries(options.env ?? {})) if (isSecretEnvName(name)) addSecret(value);
  // Longest first, so a secret that contains another is replaced whole.
  const secrets = [...known].sort((left, right) => right.length - left.length);

  const redactText = (text: string): string => {
    let result = text;
    for (const secret of secrets) if (result.includes(secret)) result = result.split(secret).join(REDACTED);
    for (const shape of tokenShapes) result = result.replace(shape.pattern, shape.replace);
    return result;
  };

  const redactValue = (value: unknown, key: string | null, seen: WeakSet<object>): unknown => {
    if (typeof value === 'string') {
      if (key !== null && secretKey.test(key) && value.length > 0) return REDACTED;
      return redactText(value);
    }
    if (typeof value !== 'object' || value === null) return value;
    if (seen.has(value)) return value;
    if (Array.isArray(value)) {
      seen.add(value);
      return value.map((item) => redactValue(item, null, seen));
    }
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) {
      // Errors are journaled as their message: scrub a plain copy rather than pass the original through.
      if (value instanceof Error) return redactValue({ name: value.name, message: value.message }, key, seen);
      return value;
    }
    seen.add(value);
    const result: Record<string, unknown> = {};
    for (const [entryKey, entryValue] of Object.entries(value)) {
      result[redactText(entryKey)] = redactValue(entryValue, entryKey, seen);
    }
    return result;
  };

  return {
    redact: <T>(value: T): T => redactValue(value, null, new WeakSet()) as T,
    redactText,
    knownSecretCount: secrets.length,
  };
}
