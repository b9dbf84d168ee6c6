// The exported-session file (`sessions export --format json`): the whole journal plus
// the blobs it references, so `sessions import` recreates a session that shows the same
// transcript. Validated with zod on the way in; a newer format is refused. Since format 2
// the file carries a sha256 of its events, and every blob is named by the sha256 of its
// content: an export changed after it was written is refused before anything is stored.
// Since format 3 it carries a `signature` (null when the home that wrote it had no key): a
// signed bundle changed after it was signed is refused, whatever checksums were recomputed.
import { createHash, type KeyObject } from 'node:crypto';
import { fold, summarize } from '@resume/core';
import {
  JOURNAL_FORMAT_VERSION,
  JournalCorruptedError,
  type JournalEvent,
  journalEventSchema,
  type SessionStore,
  sessionIdSchema,
  UnsupportedFormatError,
} from '@resume/core/spec';
import { type EventsLostInRepair, readUserFile, USER_FILE_LIMITS } from '@resume/runner';
import { z } from 'zod';
import { bundleSignatureSchema, signatureProblem, signBundle } from './bundle-signature.js';

export const EXPORT_FORMAT = 'conclave-session';
export const EXPORT_FORMAT_VERSION = 3;
/** Format 1 had no checksum of its events; such files are still imported (blobs are verified). */
const FIRST_CHECKSUMMED_VERSION = 2;
/** Format 3 always has a `signature` field: a bundle of format 3 without one had it removed. */
const FIRST_SIGNED_VERSION = 3;

/** Fields and the format that added them: a file that claims an older format and has one was changed. */
const FIELDS_ADDED: ReadonlyArray<
  readonly [field: 'checksum' | 'lastSeq' | 'lostInRepair' | 'signature', since: number]
> = [
  ['checksum', 2],
  ['lastSeq', 2],
  ['lostInRepair', 2],
  ['signature', 3],
];

/**
 * What an import says about an unsigned bundle's integrity: its checksum shows the events
 * were not damaged, never who wrote them.
 */
export function integrityNote(data: ExportFile): string {
  return data.formatVersion >= FIRST_CHECKSUMMED_VERSION
    ? 'The bundle is not signed: its checksum shows the events arrived as written, not who wrote them.'
    : 'The bundle is not signed, and as format 1 it has no checksum: a change to it could not be detected.';
}

const exportHeadSchema = z.object({
  format: z.literal(EXPORT_FORMAT),
  formatVersion: z.number().int().positive(),
});

export const exportFileSchema = z.object({
  format: z.literal(EXPORT_FORMAT),
  formatVersion: z.union([z.literal(1), z.literal(2), z.literal(EXPORT_FORMAT_VERSION)]),
  exportedAt: z.string(),
  exportedBy: z.string(),
  sessionId: sessionIdSchema,
  journalFormatVersion: z.number().int().positive(),
  events: z.array(journalEventSchema).min(1),
  /** The seq of the last event written (format 2, added later): an event cut off the end is named. */
  lastSeq: z.number().int().positive().optional(),
  /** Referenced blobs (file snapshots, large step outputs, specs): sha256 → base64. */
  blobs: z.record(z.string().regex(/^[0-9a-f]{64}$/), z.string()),
  /**
   * Events lost in a repair of the exported session before it was exported (`last` null when
   * unknown): the bundle is the whole journal that is left, and says what is not in it.
   */
  lostInRepair: z
    .array(
      z.object({
        first: z.number().int().positive(),
        last: z.number().int().positive().nullable(),
        keptSeq: z.number().int().nonnegative(),
      }),
    )
    .optional(),
  /** sha256 of the JSON of `events` as written (format 2 on). */
  checksum: z.object({ algorithm: z.literal('sha256'), events: z.string().regex(/^[0-9a-f]{64}$/) }).optional(),
  /** Ed25519 over everything else in the file (format 3 on; null when written unsigned). */
  signature: bundleSignatureSchema.nullable().optional(),
});
export type ExportFile = z.infer<typeof exportFileSchema>;

export async function buildExportFile(
  store: SessionStore,
  sessionId: string,
  events: JournalEvent[],
  meta: {
    now: Date;
    version: string;
    lostInRepair?: readonly EventsLostInRepair[];
    /** This home's signing key; without one the bundle is written unsigned (`signature: null`). */
    signingKey: { privateKey: KeyObject; publicKey: KeyObject } | null;
  },
): Promise<ExportFile> {
  const blobs: Record<string, string> = {};
  for (const hash of referencedBlobs(events)) {
    const content = await store.getBlob(hash);
    if (content) blobs[hash] = Buffer.from(content).toString('base64');
  }
  const bundle: ExportFile = {
    format: EXPORT_FORMAT,
    formatVersion: EXPORT_FORMAT_VERSION,
    exportedAt: meta.now.toISOString(),
    exportedBy: `conclave ${meta.version}`,
    sessionId,
    journalFormatVersion: JOURNAL_FORMAT_VERSION,
    events,
    ...(events.length > 0 ? { lastSeq: events[events.length - 1]?.seq } : {}),
    blobs,
    ...(meta.lostInRepair && meta.lostInRepair.length > 0 ? { lostInRepair: [...meta.lostInRepair] } : {}),
    checksum: { algorithm: 'sha256', events: sha256(JSON.stringify(events)) },
  };
  const key = meta.signingKey;
  return { ...bundle, signature: key ? signBundle(bundle, key.privateKey, key.publicKey) : null };
}

function sha256(content: string | Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

/** A bundle whose content does not hold together: names the file and what is wrong (65). */
function damaged(file: string, problem: string): JournalCorruptedError {
  return new JournalCorruptedError(
    { sessionId: null, file, offset: null, problem },
    { hint: 'Nothing was imported. The file is damaged or was edited by hand; export the session again.' },
  );
}

function valueAt(raw: unknown, keys: readonly PropertyKey[]): unknown {
  let value = raw;
  for (const key of keys) value = (value as Record<PropertyKey, unknown> | null)?.[key];
  return value;
}

function tampered(file: string, problem: string): JournalCorruptedError {
  return new JournalCorruptedError(
    { sessionId: null, file, offset: null, problem: `${problem}; the export was changed after it was written` },
    { hint: 'Nothing was imported. Export the session again from the store that holds it.' },
  );
}

/** The events' checksum and every blob's hash, checked before anything is stored. */
function verifyChecksums(raw: unknown, data: ExportFile, file: string): void {
  if (data.formatVersion >= FIRST_CHECKSUMMED_VERSION) {
    if (!data.checksum) throw tampered(file, 'its checksum is missing');
    // Hashed as they stand in the file: the parsed (schema-ordered) copy could differ in key order.
    const events = (raw as { events: unknown }).events;
    if (sha256(JSON.stringify(events)) !== data.checksum.events)
      throw tampered(file, 'its events do not match their checksum');
  }
  for (const [hash, content] of Object.entries(data.blobs)) {
    if (sha256(Buffer.from(content, 'base64')) !== hash)
      throw tampered(file, `blob ${hash.slice(0, 12)} does not match its content`);
  }
}

/** An export's text: a regular file of at most 256 MiB (a bundle is parsed as one JSON text). */
export function readExportFile(file: string): string {
  return readUserFile(file, { what: 'export', maxBytes: USER_FILE_LIMITS.bundle });
}

/** An export's JSON, parsed but not yet validated (it may be an encrypted envelope). */
export function parseExportJson(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new UnsupportedFormatError(`${file} (not JSON)`, null, {
      hint: 'Only files written by `conclave sessions export --format json` can be imported.',
    });
  }
}

/** Validates an export file's content; errors say what is wrong with which file. */
export function parseExportFile(text: string, file: string): ExportFile {
  return validateExport(parseExportJson(text, file), file);
}

/** Validates a parsed export: its fields, its events, its checksums and its signature. */
export function validateExport(raw: unknown, file: string): ExportFile {
  const head = exportHeadSchema.safeParse(raw);
  if (!head.success) {
    throw new UnsupportedFormatError(`${file}`, null, {
      hint: 'Only files written by `conclave sessions export --format json` can be imported.',
    });
  }
  if (head.data.formatVersion > EXPORT_FORMAT_VERSION)
    throw new UnsupportedFormatError(`The export ${file}`, head.data.formatVersion);
  const parsed = exportFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue && issue.path.length > 0 ? issue.path.join('.') : null;
    const value = field ? valueAt(raw, issue?.path ?? []) : undefined;
    const shown = typeof value === 'string' ? ` ${JSON.stringify(value.slice(0, 60))}` : '';
    throw damaged(
      file,
      field ? `its field ${field}${shown} is invalid: ${issue?.message}` : `it is not an export (${issue?.message})`,
    );
  }
  const data = parsed.data;
  // A downgrade would drop a check (the checksum, the signature): an older format never had these fields.
  const newer = FIELDS_ADDED.filter(([field, since]) => since > data.formatVersion && data[field] !== undefined).map(
    ([field]) => field,
  );
  if (newer.length > 0)
    throw tampered(
      file,
      `it claims format ${data.formatVersion} but has ${newer.join(', ')}, which format ${data.formatVersion} never had`,
    );
  if (data.formatVersion >= FIRST_SIGNED_VERSION && data.signature === undefined)
    throw tampered(
      file,
      `its signature was removed (format ${data.formatVersion} always records one, null if unsigned)`,
    );
  if (data.signature) {
    const problem = signatureProblem(raw as Record<string, unknown>, data.signature);
    if (problem) throw tampered(file, problem);
  }
  const first = data.events[0];
  if (first?.type !== 'session-created' || first.header.id !== data.sessionId)
    throw damaged(file, `its events do not start with the creation of session ${data.sessionId}`);
  data.events.forEach((event, index) => {
    const expected = index + 1;
    if (event.seq > expected)
      throw damaged(
        file,
        `${missingEvents(expected, event.seq - 1)} missing (its events go from ${expected - 1} to ${event.seq})`,
      );
    if (event.seq !== expected) throw damaged(file, `its event ${expected} is numbered ${event.seq}`);
  });
  if (data.lastSeq !== undefined && data.lastSeq > data.events.length)
    throw damaged(
      file,
      `${missingEvents(data.events.length + 1, data.lastSeq)} missing (the export was written with events 1..${data.lastSeq})`,
    );
  if (first.header.formatVersion > JOURNAL_FORMAT_VERSION)
    throw new UnsupportedFormatError(`Session ${data.sessionId} in ${file}`, first.header.formatVersion);
  verifyChecksums(raw, data, file);
  return data;
}

function missingEvents(first: number, last: number): string {
  return first === last ? `event ${first} is` : `events ${first}..${last} are`;
}

/** Writes an export into a store under its own id. Throws SessionExistsError when present. */
export async function importExportFile(
  store: SessionStore,
  data: ExportFile,
  holder: { pid: number; host: string },
): Promise<string> {
  const first = data.events[0];
  if (first?.type !== 'session-created') throw new UnsupportedFormatError('The export', null);
  for (const [hash, content] of Object.entries(data.blobs)) {
    const stored = await store.putBlob(Buffer.from(content, 'base64'));
    if (stored !== hash) throw tampered('the export', `blob ${hash.slice(0, 12)} does not match its content`);
  }
  await store.create(first.header);
  const lease = await store.acquireLease(data.sessionId, { holder });
  try {
    await store.append(data.sessionId, {
      expectedSeq: 0,
      epoch: lease.epoch,
      events: data.events,
      summary: summarize(fold(data.events)),
    });
  } finally {
    await lease.release();
  }
  return data.sessionId;
}

function referencedBlobs(events: JournalEvent[]): Set<string> {
  const hashes = new Set<string>();
  for (const event of events) {
    if (event.type === 'step-completed' && event.outputBlob) hashes.add(event.outputBlob);
    if (event.type === 'file-snapshot-taken' && event.blob) hashes.add(event.blob);
    if (event.type === 'file-version-saved') hashes.add(event.blob);
    if (event.type === 'spec-recorded' && event.blob) hashes.add(event.blob);
  }
  return hashes;
}
