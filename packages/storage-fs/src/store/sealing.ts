// Encryption at rest in the file store (docs/encryption.md): which members of each file are
// sealed, with core's record seal and sealed objects. A sealed file or record keeps its framing
// (the crc line) and the members the store reads without the key (a journal record's version,
// epoch and seq range); the members that carry session data move into `sealed`, named by `key`:
//   {"crc":"…","v":1,"epoch":2,"first":5,"last":6,"key":"3f2a9c0d11e4","sealed":"<base64>"}
// A file without `sealed` is read as before, so unencrypted homes read unchanged.
import {
  isSealed,
  journalPlace,
  type Keyring,
  type Opened,
  openObject,
  openObjectOrDamage,
  type SealedPlace,
} from '@resume/core/encryption';

export { journalPlace, type Opened, openObject, sealedObjectJson } from '@resume/core/encryption';

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
  return openObjectOrDamage(value, keyring, INDEX_PLACE, file);
}
