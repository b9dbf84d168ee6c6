// Sealing a JSON object's members (docs/encryption.md#formats), the part of every store's
// sealing that does not depend on where the object is kept: the members that carry session
// data move into `sealed`, named by `key`; the head (what a store reads without the key) stays
// as it is. An object without `sealed` is read as it is, so data written in the clear reads
// unchanged. Also the places every store seals the same things for, and the blob names.
import { createHash, createHmac } from 'node:crypto';
import { EncryptionKeyUnavailableError } from '../spec/errors/encryption-key-unavailable-error.js';
import type { DataKey, Keyring } from './keyring.js';
import { isSealed, openSealed, type SealedPlace, sealBytes } from './record-cipher.js';

export type Opened = { ok: true; value: unknown } | { ok: false; problem: string };

/** What a store's `encrypt(id, { rekey })` did to a session (docs/encryption.md#keys-and-rotation). */
export interface EncryptReport {
  sessionId: string;
  /** The key everything is sealed with now. */
  key: string;
  /** Journal records (on PostgreSQL, event rows) sealed, or sealed again with the current key. */
  records: number;
  header: boolean;
  snapshot: boolean;
}

/**
 * The JSON text of `head` with `members` sealed for `place` under `key`:
 * `{...head,"key":K,"sealed":"<base64>"}`.
 * Made by hand, not by `JSON.stringify` walking the sealed text (kilobytes of base64 per
 * journal record, most of a sealed append's cost).
 */
export function sealedObjectJson(
  key: DataKey,
  place: SealedPlace,
  head: Record<string, unknown>,
  members: Record<string, unknown>,
): string {
  const sealed = sealBytes(key, place, JSON.stringify(members)).toString('base64');
  const headText = JSON.stringify(head);
  const opening = headText === '{}' ? '{' : `${headText.slice(0, -1)},`;
  return `${opening}"key":${JSON.stringify(key.id)},"sealed":"${sealed}"}`;
}

/**
 * A parsed object with its sealed members opened back into place (a value that is not sealed
 * is returned as it is). A key the keyring lacks is an EncryptionKeyUnavailableError naming
 * `location`; a failed tag is `{ ok: false }`: damage, as a failed checksum is.
 */
export function openObject(value: unknown, keyring: Keyring | null, place: SealedPlace, location: string): Opened {
  if (!isSealed(value)) return { ok: true, value };
  const opened = openSealed(keyring, place, value, location);
  if (!opened.ok) return opened;
  let members: unknown;
  try {
    members = JSON.parse(opened.plaintext.toString('utf8'));
  } catch {
    return { ok: false, problem: 'the decrypted record is not valid JSON' };
  }
  if (typeof members !== 'object' || members === null || Array.isArray(members)) {
    return { ok: false, problem: 'the decrypted record is not an object' };
  }
  const { key: _key, sealed: _sealed, ...head } = value as Record<string, unknown> & { key: string; sealed: string };
  return { ok: true, value: { ...head, ...members } };
}

/** Like `openObject`, but a key that is not held reads as damage (for data rebuilt from the journals). */
export function openObjectOrDamage(
  value: unknown,
  keyring: Keyring | null,
  place: SealedPlace,
  location: string,
): Opened {
  try {
    return openObject(value, keyring, place, location);
  } catch (error) {
    if (EncryptionKeyUnavailableError.isInstance(error)) return { ok: false, problem: error.message };
    throw error;
  }
}

/** Where journal events covering seqs `first`..`last` of a session belong. */
export function journalPlace(sessionId: string, first: unknown, last: unknown): SealedPlace {
  return { sessionId, role: 'journal', position: `${String(first)}-${String(last)}` };
}

/** Where a session's header belongs. */
export function headerPlace(sessionId: string): SealedPlace {
  return { sessionId, role: 'header', position: 'header' };
}

/** Where a session's snapshot belongs. */
export function snapshotPlace(sessionId: string): SealedPlace {
  return { sessionId, role: 'snapshot', position: 'snapshot' };
}

/** Where a session's derived data of that name belongs (`putDerived`). */
export function derivedPlace(sessionId: string, name: string): SealedPlace {
  return { sessionId, role: 'derived', position: name };
}

/** Where a blob belongs: its name (blobs are the store's, shared by sessions). */
export function blobPlace(name: string): SealedPlace {
  return { sessionId: '', role: 'blob', position: name };
}

/**
 * A blob's name: the sha256 of its content in the clear; under a key, an HMAC of it with the key
 * (a plain hash would let anyone who reads the store confirm a guess of the content).
 */
export function blobName(key: DataKey | null, content: Uint8Array): string {
  return key
    ? createHmac('sha256', key.key).update(content).digest('hex')
    : createHash('sha256').update(content).digest('hex');
}
