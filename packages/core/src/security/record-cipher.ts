// Sealing stored data with AES-256-GCM (docs/encryption.md#formats): the one implementation
// every store uses. Each sealed value carries the id of its key and, as associated data, the
// place it belongs to (the session, the file's role, the record's seq range), so a record
// copied from another session, moved to another seq or swapped with its neighbour fails its
// tag like a changed byte does. A store treats a failed tag as damage, exactly as a failed crc.
import {
  createCipheriv,
  createDecipheriv,
  createSecretKey,
  type DecipherGCM,
  type KeyObject,
  randomFillSync,
} from 'node:crypto';
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

// Raw key bytes handed to the cipher are imported again on every call (most of a record's seal);
// a KeyObject, made once per key, is not. Keyed by the bytes, so a keyring that hands out new
// DataKey objects over the same bytes still hits.
const secretKeys = new WeakMap<Uint8Array, KeyObject>();

function secretKeyOf(key: DataKey): KeyObject {
  let secret = secretKeys.get(key.key);
  if (!secret) {
    secret = createSecretKey(key.key);
    secretKeys.set(key.key, secret);
  }
  return secret;
}

// Fresh random ivs drawn from one buffer refilled from the CSPRNG, instead of a call to it per
// record; every iv is used once (it is copied into the sealed bytes before the buffer is refilled).
const ivPool = Buffer.alloc(IV_BYTES * 512);
let ivPoolUsed = ivPool.length;

function freshIv(): Buffer {
  if (ivPoolUsed === ivPool.length) {
    randomFillSync(ivPool);
    ivPoolUsed = 0;
  }
  ivPoolUsed += IV_BYTES;
  return ivPool.subarray(ivPoolUsed - IV_BYTES, ivPoolUsed);
}

/** Seals `plaintext` for `place` with `key`: the iv, the ciphertext and the tag, as bytes. */
export function sealBytes(key: DataKey, place: SealedPlace, plaintext: string | Uint8Array): Buffer {
  const iv = freshIv();
  const cipher = createCipheriv('aes-256-gcm', secretKeyOf(key), iv);
  cipher.setAAD(associatedData(place, key.id));
  const ciphertext = typeof plaintext === 'string' ? cipher.update(plaintext, 'utf8') : cipher.update(plaintext);
  const final = cipher.final();
  const sealed = Buffer.allocUnsafe(IV_BYTES + ciphertext.length + final.length + TAG_BYTES);
  iv.copy(sealed, 0);
  ciphertext.copy(sealed, IV_BYTES);
  final.copy(sealed, IV_BYTES + ciphertext.length);
  cipher.getAuthTag().copy(sealed, sealed.length - TAG_BYTES);
  return sealed;
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
  options: OpenOptions = {},
): OpenResult {
  const key = keyring?.get(keyId) ?? null;
  if (!key) throw new EncryptionKeyUnavailableError({ keyId, sessionId: place.sessionId || null, location });
  if (body.length < IV_BYTES + TAG_BYTES) return { ok: false, problem: 'encrypted record too short' };
  try {
    const decipher = createDecipheriv('aes-256-gcm', secretKeyOf(key), body.subarray(0, IV_BYTES));
    decipher.setAAD(associatedData(place, keyId));
    decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
    const ciphertext = body.subarray(IV_BYTES, body.length - TAG_BYTES);
    const plaintext = options.inPlace ? decipherInPlace(decipher, body, ciphertext) : decipher.update(ciphertext);
    // GCM gives all of it from update (final only checks the tag): no copy of a snapshot's megabytes.
    const rest = decipher.final();
    return { ok: true, plaintext: rest.length === 0 ? plaintext : Buffer.concat([plaintext, rest]) };
  } catch {
    return {
      ok: false,
      problem: 'encrypted record failed its authentication (changed bytes, or a record moved from another place)',
    };
  }
}

/** How `openBytes` may work. */
export interface OpenOptions {
  /**
   * The body's bytes may be overwritten with the plaintext (the caller read them only to open
   * them): a snapshot's megabytes are deciphered piece by piece into the buffer they came in,
   * instead of into a new one as large (twice as fast: no fresh pages, the pieces stay in cache).
   */
  inPlace?: boolean;
}

/** The pieces a body deciphered in place is read in: small enough to stay in the CPU's cache. */
const IN_PLACE_PIECE = 64 * 1024;

// Piece by piece, each written to the body at its place less the iv: always behind what is still to read.
function decipherInPlace(decipher: DecipherGCM, body: Uint8Array, ciphertext: Uint8Array): Buffer {
  const target = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  let written = 0;
  for (let offset = 0; offset < ciphertext.length; offset += IN_PLACE_PIECE) {
    written += decipher.update(ciphertext.subarray(offset, offset + IN_PLACE_PIECE)).copy(target, written);
  }
  return target.subarray(0, written);
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
