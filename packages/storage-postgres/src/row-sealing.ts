// Encryption at rest in the PostgreSQL store (docs/encryption.md#postgresql): what of each row
// is sealed, with core's record seal and sealed objects, exactly what the file store seals.
// A sealed column holds `{"key":"<id>","sealed":"<base64>"}` bound to its session and place
// (an event row to its seq, so rows cannot be moved between sessions or reordered); the columns
// the database filters and sorts on stay readable, except those that carry user text: the title
// is left empty and the workspace is an HMAC of it under the key, so listing by workspace still
// runs in SQL. A row without `sealed` is read as before, so unencrypted databases read unchanged.
import { createHash, createHmac } from 'node:crypto';
import {
  blobPlace,
  type DataKey,
  journalPlace,
  type Keyring,
  type Opened,
  openBytes,
  openObject,
  type SealedPlace,
  sealBytes,
  sealedObjectJson,
} from '@resume/core/encryption';
import { type SessionSummary, sessionModeSchema, sessionStatusSchema, summaryFromHeader } from '@resume/core/spec';

/** Where a session's summary belongs (the session row's and each append's last row's). */
export const summaryPlace = (sessionId: string): SealedPlace => ({
  sessionId,
  role: 'summary',
  position: 'summary',
});

/** Where an event row belongs: its session and its seq. */
export const eventPlace = (sessionId: string, seq: number): SealedPlace => journalPlace(sessionId, seq, seq);

/** A JSON object as the text of a json column: sealed for `place` under `key` (none: in the clear). */
export function sealedJson(key: DataKey | null, place: SealedPlace, value: object): string {
  return key ? sealedObjectJson(key, place, {}, value as Record<string, unknown>) : JSON.stringify(value);
}

/** A json column's parsed value, opened when sealed (see `openObject`). */
export function openJson(value: unknown, keyring: Keyring | null, place: SealedPlace, location: string): Opened {
  return openObject(value, keyring, place, location);
}

/** The id of the key a json column's value names, or null when it is in the clear. */
export function sealedKeyOf(value: unknown): string | null {
  const parsed = typeof value === 'string' ? safeParse(value) : value;
  const key = (parsed as { key?: unknown; sealed?: unknown } | null)?.key;
  return typeof key === 'string' && typeof (parsed as { sealed?: unknown }).sealed === 'string' ? key : null;
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** The workspace column of a sealed session: an HMAC of the folder under the key (equal folders match). */
export function workspaceToken(key: DataKey, workspaceDir: string): string {
  return `hmac:${key.id}:${createHmac('sha256', key.key).update(`workspace\0${workspaceDir}`).digest('hex')}`;
}

/** The session columns that stay readable when its summary is sealed (see `summaryValues`). */
export interface ListedColumns {
  mode: string | null;
  status: string | null;
  created_at: string | null;
  updated_at: string | null;
  parent_id: string | null;
  last_seq: string | number | null;
}

/** What a listing shows of a session sealed with a key the store does not hold: what its readable columns say. */
export function lockedSummary(id: string, keyId: string, columns: ListedColumns): SessionSummary {
  const placeholder = summaryFromHeader(id, null);
  const createdAt = columns.created_at ?? columns.updated_at ?? placeholder.createdAt;
  const status = sessionStatusSchema.safeParse(columns.status);
  const mode = sessionModeSchema.safeParse(columns.mode);
  return {
    ...placeholder,
    title: `encrypted (key ${keyId} not available)`,
    mode: mode.success ? mode.data : placeholder.mode,
    status: status.success ? status.data : placeholder.status,
    createdAt,
    updatedAt: columns.updated_at ?? createdAt,
    parentId: columns.parent_id,
    lastSeq: Number(columns.last_seq ?? 0),
    locked: { key: keyId },
  };
}

const sealedBlobPrefix = 'conclave-sealed-blob ';

/** A blob's stored bytes: a line naming the key, then the content sealed for its name. */
export function sealBlob(key: DataKey, name: string, content: Uint8Array): Buffer {
  return Buffer.concat([
    Buffer.from(`${sealedBlobPrefix}${key.id}\n`, 'utf8'),
    sealBytes(key, blobPlace(name), content),
  ]);
}

/**
 * A blob's content from its stored bytes: in the clear when they match their sha256 name, else
 * opened as a sealed blob; `{ ok: false }` for bytes that are neither (damage).
 */
export function openBlob(
  keyring: Keyring | null,
  name: string,
  stored: Buffer,
  location: string,
): { ok: true; content: Buffer } | { ok: false; problem: string } {
  if (createHash('sha256').update(stored).digest('hex') === name) return { ok: true, content: stored };
  const newline = stored.indexOf(0x0a);
  const head = newline === -1 ? '' : stored.subarray(0, newline).toString('utf8');
  if (!head.startsWith(sealedBlobPrefix)) return { ok: false, problem: 'the blob content does not match its sha256' };
  const opened = openBytes(
    keyring,
    blobPlace(name),
    head.slice(sealedBlobPrefix.length),
    stored.subarray(newline + 1),
    location,
  );
  return opened.ok ? { ok: true, content: opened.plaintext } : opened;
}
