// Sealing stored data with AES-256-GCM (docs/encryption.md#formats): the one implementation
// every store uses. Each sealed value carries the id of its key and, as associated data, the
// place it belongs to (the session, the file's role, the record's seq range), so a record
// copied from another session, moved to another seq or swapped with its neighbour fails its
// tag like a changed byte does. A store treats a failed tag as damage, exactly as a failed crc.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { EncryptionKeyUnavailableError } from '../spec/errors/encryption-key-unavailable-error.js';
import type { DataKey, Keyring } from './keyring.js';

const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Bumped when the associated data or the layout of `sealed` changes. */
const SEAL_FORMAT = 'conclave-seal/1';

/** Where a sealed value belongs: it opens only there. */
export interface SealedPlace {
  /** The session the value belongs to ('' for data of the whole store, like the listing index). */
  sessionId: string;
  /** What kind of file or row holds it: `journal`, `snapshot`, `header`, `blob`, `index`. */
  role: string;
  /** Its place within that file: a journal record's `first-last` seq range, a snapshot's seq, a blob's hash. */
  position: string;
}

/** A sealed value as stored: the key's id, and the base64 of the iv, the ciphertext and the tag. */
export interface Sealed {
  key: string;
  sealed: string;
}

export type OpenResult = { ok: true; plaintext: Buffer } | { ok: false; problem: string };

function associatedData(place: SealedPlace, keyId: string): Buffer {
  return Buffer.from(`${SEAL_FORMAT}\0${place.role}\0${place.sessionId}\0${place.position}\0${keyId}`, 'utf8');
}

/** Seals `plaintext` for `place` with `key`: the iv, the ciphertext and the tag, as bytes. */
export function sealBytes(key: DataKey, place: SealedPlace, plaintext: string | Uint8Array): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key.key, iv);
  cipher.setAAD(associatedData(place, key.id));
  const input = typeof plaintext === 'string' ? Buffer.from(plaintext, 'utf8') : plaintext;
  return Buffer.concat([iv, cipher.update(input), cipher.final(), cipher.getAuthTag()]);
}

/** Seals `plaintext` for `place` with `key`, as text a JSON record holds. */
export function sealWith(key: DataKey, place: SealedPlace, plaintext: string | Uint8Array): Sealed {
  return { key: key.id, sealed: sealBytes(key, place, plaintext).toString('base64') };
}

/**
 * Opens bytes `sealBytes` sealed with key `keyId` for `place`. A key the keyring does not hold
 * is an EncryptionKeyUnavailableError naming it (`location`: the file or table, for the
 * message); bytes that fail their tag (changed, or moved from another place) are
 * `{ ok: false }`, for the store to report as damage.
 */
export function openBytes(
  keyring: Keyring | null,
  place: SealedPlace,
  keyId: string,
  body: Uint8Array,
  location: string,
): OpenResult {
  const key = keyring?.get(keyId) ?? null;
  if (!key) throw new EncryptionKeyUnavailableError({ keyId, sessionId: place.sessionId || null, location });
  if (body.length < IV_BYTES + TAG_BYTES) return { ok: false, problem: 'encrypted record too short' };
  try {
    const decipher = createDecipheriv('aes-256-gcm', key.key, body.subarray(0, IV_BYTES));
    decipher.setAAD(associatedData(place, keyId));
    decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
    const plaintext = Buffer.concat([
      decipher.update(body.subarray(IV_BYTES, body.length - TAG_BYTES)),
      decipher.final(),
    ]);
    return { ok: true, plaintext };
  } catch {
    return {
      ok: false,
      problem: 'encrypted record failed its authentication (changed bytes, or a record moved from another place)',
    };
  }
}

/** Opens a value `sealWith` sealed (see `openBytes`). */
export function openSealed(keyring: Keyring | null, place: SealedPlace, value: Sealed, location: string): OpenResult {
  return openBytes(keyring, place, value.key, Buffer.from(value.sealed, 'base64'), location);
}

/** Whether a parsed record is sealed: it has a string `key` and a string `sealed`. */
export function isSealed(value: unknown): value is Sealed {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Sealed).sealed === 'string' &&
    typeof (value as Sealed).key === 'string'
  );
}
