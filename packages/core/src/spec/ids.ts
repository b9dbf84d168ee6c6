// Session ids: sortable by creation time, safe as a file name on every platform.
// Format: 12 Crockford base32 chars of milliseconds + 10 random chars, lowercase (22 chars).
import { randomBytes } from 'node:crypto';
import { z } from 'zod';

const alphabet = '0123456789abcdefghjkmnpqrstvwxyz';

export const sessionIdPattern = /^[0-9a-hjkmnp-tv-z]{22}$/;

export const sessionIdSchema = z
  .string()
  .regex(sessionIdPattern, 'a session id is 22 lowercase base32 characters (no path characters)');

export type SessionId = z.infer<typeof sessionIdSchema>;

export function isSessionId(value: unknown): value is SessionId {
  return typeof value === 'string' && sessionIdPattern.test(value);
}

export function createSessionId(now: number = Date.now(), random: Uint8Array = randomBytes(10)): SessionId {
  let time = '';
  let remaining = now;
  for (let index = 0; index < 12; index += 1) {
    time = alphabet[remaining % 32] + time;
    remaining = Math.floor(remaining / 32);
  }
  let tail = '';
  for (let index = 0; index < 10; index += 1) tail += alphabet[(random[index] ?? 0) % 32];
  return time + tail;
}

/** The creation time encoded in a session id. */
export function sessionIdTime(id: SessionId): number {
  let value = 0;
  for (const char of id.slice(0, 12)) value = value * 32 + alphabet.indexOf(char);
  return value;
}

/** How many characters of an id are shown by default: about one second of creation time. */
export const SHORT_ID_LENGTH = 10;

/**
 * The shortest prefix of each id that no other id in `ids` shares, at least `minimumLength`
 * characters. Sessions created in the same second share their first 10 characters, so a fixed
 * prefix would show two sessions under one name that no command could resolve.
 */
export function uniqueIdPrefixes(ids: Iterable<string>, minimumLength: number = SHORT_ID_LENGTH): Map<string, string> {
  const sorted = [...new Set(ids)].sort();
  const commonLength = (left: string | undefined, right: string | undefined) => {
    if (left === undefined || right === undefined) return 0;
    let length = 0;
    while (length < left.length && left[length] === right[length]) length += 1;
    return length;
  };
  const prefixes = new Map<string, string>();
  sorted.forEach((id, index) => {
    // In sorted order the longest shared prefix is always with a neighbour.
    const shared = Math.max(commonLength(id, sorted[index - 1]), commonLength(id, sorted[index + 1]));
    prefixes.set(id, id.slice(0, Math.max(minimumLength, shared + 1)));
  });
  return prefixes;
}
