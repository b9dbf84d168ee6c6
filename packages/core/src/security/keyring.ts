// The data keys that encrypt sessions at rest (docs/encryption.md). A keyring answers two
// questions: which key seals new data (none: new data is written in the clear) and which key
// has a given id (to open what was sealed before a rotation). It is synchronous: a keyring over
// a KMS unwraps its data keys when it is built and answers from memory, so reading a journal
// never waits on the network record by record.
import { createHash, randomBytes } from 'node:crypto';
import { UsageError } from '../spec/errors/usage-error.js';

/** AES-256: 32 bytes. */
export const DATA_KEY_BYTES = 32;

export interface DataKey {
  /** Stored with every record it seals; derived from the key (`keyIdFor`) unless a keyring names it. */
  readonly id: string;
  readonly key: Uint8Array;
}

/** What a store seals and opens with; implement it over a KMS, or build one with `createKeyring`. */
export interface Keyring {
  /** The key new data is sealed with; null when new data is written in the clear (a keyring kept for reading). */
  current(): DataKey | null;
  /** The key named `id`, or null when this keyring does not hold it. */
  get(id: string): DataKey | null;
}

export interface KeyringOptions {
  /** The keys by id: 32 bytes, or their base64 (or hex) text. */
  keys: Readonly<Record<string, Uint8Array | string>>;
  /** The id of the key new data is sealed with; absent or null: new data is written in the clear. */
  current?: string | null;
}

/** A key's id: the first 12 hex digits of a hash of it, so a key supplied bare still names itself. */
export function keyIdFor(key: Uint8Array): string {
  return createHash('sha256').update('conclave data key\0').update(key).digest('hex').slice(0, 12);
}

/** A new random data key. */
export function generateDataKey(): DataKey {
  const key = randomBytes(DATA_KEY_BYTES);
  return { id: keyIdFor(key), key };
}

/** A key's bytes from its text (base64, base64url or 64 hex digits); `where` names its source in the error. */
export function parseDataKey(text: string, where: string): Uint8Array {
  const trimmed = text.trim();
  const bytes = /^[0-9a-fA-F]{64}$/.test(trimmed)
    ? Buffer.from(trimmed, 'hex')
    : /^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)
      ? Buffer.from(trimmed, 'base64')
      : null;
  if (!bytes || bytes.length !== DATA_KEY_BYTES) {
    throw new UsageError(
      `${where} does not hold an encryption key: expected ${DATA_KEY_BYTES} bytes as base64 (44 characters) or 64 hex digits.`,
    );
  }
  return bytes;
}

/** A keyring over keys held in memory. */
export function createKeyring(options: KeyringOptions): Keyring {
  const keys = new Map<string, DataKey>();
  for (const [id, value] of Object.entries(options.keys)) {
    const key = typeof value === 'string' ? parseDataKey(value, `Key ${id}`) : value;
    if (key.length !== DATA_KEY_BYTES) throw new UsageError(`Key ${id} is ${key.length} bytes; AES-256 needs 32.`);
    keys.set(id, { id, key });
  }
  const currentId = options.current ?? null;
  const current = currentId === null ? null : (keys.get(currentId) ?? null);
  if (currentId !== null && !current) {
    throw new UsageError(
      `The current key ${currentId} is not among the keyring's keys (${[...keys.keys()].join(', ') || 'none'}).`,
    );
  }
  return { current: () => current, get: (id) => keys.get(id) ?? null };
}

/** Whether `value` is a Keyring (an object answering `current` and `get`) rather than keyring options. */
export function isKeyring(value: Keyring | KeyringOptions): value is Keyring {
  return typeof (value as Keyring).current === 'function' && typeof (value as Keyring).get === 'function';
}

/** The keyring a store's `encryption` option describes (null: none given). */
export function toKeyring(option: Keyring | KeyringOptions | undefined | null): Keyring | null {
  if (!option) return null;
  return isKeyring(option) ? option : createKeyring(option);
}
