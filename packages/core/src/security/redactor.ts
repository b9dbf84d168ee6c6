// Scrubs secrets from everything Conclave writes (DESIGN 12): the values of secret-looking
// environment variables and configured secrets, in every form a program prints them, and the
// shapes of common tokens, wherever they occur in a JSON value. The engine runs every event through it before it is journaled.

import { createSecretScrubber, MINIMUM_SECRET_LENGTH, REDACTED } from '../spec/secret-shapes.js';

export { REDACTED };

/** Environment variables whose values are secrets. */
const secretEnvName =
  /(?:API_?KEY|_TOKEN|^TOKEN|_SECRET|^SECRET|SECRET_ACCESS_KEY|PASSWORD|PASSWD|_PAT|PRIVATE_KEY|AUTH)$/i;
const secretEnvNameAnywhere = /PASSWORD|SECRET/i;

/** Object keys whose string values are secrets whatever they look like. */
const secretKey =
  /^(?:api[-_]?key|x-api-key|authorization|proxy-authorization|password|passwd|secret|client[-_]?secret|access[-_]?token|refresh[-_]?token|auth[-_]?token|token)$/i;

/** How many distinct object keys (of up to this length) a redactor remembers scrubbed. */
const MAX_REMEMBERED_KEYS = 4096;
const MAX_REMEMBERED_KEY_LENGTH = 128;

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

/** The secret values a redactor knows: the given ones and those of secret-looking variables of `env`. */
function knownSecrets(options: RedactorOptions): Set<string> {
  const known = new Set<string>();
  const addSecret = (value: string | null | undefined) => {
    if (typeof value !== 'string') return;
    const secret = value.trim();
    if (secret.length >= MINIMUM_SECRET_LENGTH) known.add(secret);
  };
  for (const secret of options.secrets ?? []) addSecret(secret);
  for (const [name, value] of Object.entries(options.env ?? {})) if (isSecretEnvName(name)) addSecret(value);
  return known;
}

/**
 * Replaces the known secrets of `options` in all their forms and nothing else: for messages shown
 * to the user, whose examples (`export OPENAI_API_KEY=sk-...`) and masked URLs stay as written.
 */
export function createKnownSecretScrubber(options: RedactorOptions): (text: string) => string {
  return createSecretScrubber(knownSecrets(options), { shapes: false });
}

export function createRedactor(options: RedactorOptions = {}): Redactor {
  const known = knownSecrets(options);
  // Each secret's forms (reversed, hex, base64, escaped, folded, heads and tails) are worked out once here.
  const redactText = createSecretScrubber(known);
  // Object keys are few and repeat in every event (`type`, `seq`, `at`...): each is scrubbed once.
  const scrubbedKeys = new Map<string, string>();
  const redactKey = (key: string): string => {
    let scrubbed = scrubbedKeys.get(key);
    if (scrubbed === undefined) {
      scrubbed = redactText(key);
      if (scrubbedKeys.size < MAX_REMEMBERED_KEYS && key.length <= MAX_REMEMBERED_KEY_LENGTH)
        scrubbedKeys.set(key, scrubbed);
    }
    return scrubbed;
  };

  // Each object is copied once: a value shared by two places gets the same scrubbed copy in both
  // (never the original), and a cycle points back into the copy.
  const redactValue = (value: unknown, key: string | null, copies: Map<object, unknown>): unknown => {
    if (typeof value === 'string') {
      if (key !== null && secretKey.test(key) && value.length > 0) return REDACTED;
      return redactText(value);
    }
    if (typeof value !== 'object' || value === null) return value;
    if (copies.has(value)) return copies.get(value);
    if (Array.isArray(value)) {
      const result: unknown[] = [];
      copies.set(value, result);
      for (const item of value) result.push(redactValue(item, null, copies));
      return result;
    }
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) {
      // Errors are journaled as their message: scrub a plain copy rather than pass the original through.
      if (value instanceof Error) return redactValue({ name: value.name, message: value.message }, key, copies);
      return value;
    }
    const result: Record<string, unknown> = {};
    copies.set(value, result);
    for (const [entryKey, entryValue] of Object.entries(value)) {
      // defineProperty keeps a `__proto__` key as data, as JSON.parse does, instead of a prototype.
      Object.defineProperty(result, redactKey(entryKey), {
        value: redactValue(entryValue, entryKey, copies),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return result;
  };

  return {
    redact: <T>(value: T): T => redactValue(value, null, new Map()) as T,
    redactText,
    knownSecretCount: known.size,
  };
}
