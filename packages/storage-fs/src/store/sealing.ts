// Encryption at rest in the file store (docs/encryption.md): which members of each file are
// sealed, with core's record seal. A sealed file or record keeps its framing (the crc line)
// and the members the store reads without the key (a journal record's version, epoch and seq
// range); the members that carry session data move into `sealed`, named by `key`:
//   {"crc":"…","v":1,"epoch":2,"first":5,"last":6,"key":"3f2a9c0d11e4","sealed":"<base64>"}
// A file without `sealed` is read as before, so unencrypted homes read unchanged.
import {
  type DataKey,
  EncryptionKeyUnavailableError,
  isSealed,
  type Keyring,
  openSealed,
  type SealedPlace,
  sealBytes,
} from '@resume/core/encryption';

export type Opened = { ok: true; value: unknown } | { ok: false; problem: string };

/**
 * The JSON text of `head` with `members` sealed for `place` under `key`:
 * `{...head,"key":K,"sealed":"<base64>"}`. Made by hand, not by `JSON.stringify` walking the
 * sealed text (kilobytes of base64 per journal record, most of a sealed append's cost).
 */
export function sealedJson(
  key: DataKey,
  place: SealedPlace,
  head: Record<string, number>,
  members: Record<string, unknown>,
): string {
  const sealed = sealBytes(key, place, JSON.stringify(members)).toString('base64');
  const headText = JSON.stringify(head);
  const opening = headText === '{}' ? '{' : `${headText.slice(0, -1)},`;
  return `${opening}"key":${JSON.stringify(key.id)},"sealed":"${sealed}"}`;
}

/**
 * A parsed file or record with its sealed members opened back into place (a value that is not
 * sealed is returned as it is). A key the keyring lacks is an EncryptionKeyUnavailableError;
 * a failed tag is `{ ok: false }`: damage, as a failed crc is.
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

/** Where a journal record belongs: its session and seq range. */
export function journalPlace(sessionId: string, first: unknown, last: unknown): SealedPlace {
  return { sessionId, role: 'journal', position: `${String(first)}-${String(last)}` };
}

/** How a session's records are opened: the keyring, the session and the file (for messages). */
export interface RecordOpening {
  keyring: Keyring | null;
  sessionId: string;
  file: string;
}

/** A parsed journal record, opened when sealed (its seq range, as its head says, is part of its place). */
export function openJournalRecord(value: unknown, opening: RecordOpening): Opened {
  if (!isSealed(value)) return { ok: true, value };
  const head = value as { first?: unknown; last?: unknown };
  return openObject(value, opening.keyring, journalPlace(opening.sessionId, head.first, head.last), opening.file);
}

/** Where the listing index belongs (part of its seal): the store's, not one session's. */
export const INDEX_PLACE: SealedPlace = { sessionId: '', role: 'index', position: 'summaries' };

/**
 * The index file's parsed content, opened when sealed; a sealed index whose key is not held
 * reads as damaged (it is rebuilt from the journals, as a damaged one is).
 */
export function openIndex(value: unknown, keyring: Keyring | null, file: string): Opened {
  try {
    return openObject(value, keyring, INDEX_PLACE, file);
  } catch (error) {
    if (EncryptionKeyUnavailableError.isInstance(error)) return { ok: false, problem: error.message };
    throw error;
  }
}
