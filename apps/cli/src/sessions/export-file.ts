// The exported-session file (`sessions export --format json`): the whole journal plus
// the blobs it references, so `sessions import` recreates a session that shows the same
// transcript. Validated with zod on the way in; a newer format is refused.
import { fold, summarize } from '@resume/core';
import {
  JOURNAL_FORMAT_VERSION,
  type JournalEvent,
  journalEventSchema,
  type SessionStore,
  sessionIdSchema,
  UnsupportedFormatError,
} from '@resume/core/spec';
import { z } from 'zod';

export const EXPORT_FORMAT = 'conclave-session';
export const EXPORT_FORMAT_VERSION = 1;

const exportHeadSchema = z.object({
  format: z.literal(EXPORT_FORMAT),
  formatVersion: z.number().int().positive(),
});

export const exportFileSchema = z.object({
  format: z.literal(EXPORT_FORMAT),
  formatVersion: z.literal(EXPORT_FORMAT_VERSION),
  exportedAt: z.string(),
  exportedBy: z.string(),
  sessionId: sessionIdSchema,
  journalFormatVersion: z.number().int().positive(),
  events: z.array(journalEventSchema).min(1),
  /** Referenced blobs (file snapshots, large step outputs, specs): sha256 → base64. */
  blobs: z.record(z.string().regex(/^[0-9a-f]{64}$/), z.string()),
});
export type ExportFile = z.infer<typeof exportFileSchema>;

export async function buildExportFile(
  store: SessionStore,
  sessionId: string,
  events: JournalEvent[],
  meta: { now: Date; version: string },
): Promise<ExportFile> {
  const blobs: Record<string, string> = {};
  for (const hash of referencedBlobs(events)) {
    const content = await store.getBlob(hash);
    if (content) blobs[hash] = Buffer.from(content).toString('base64');
  }
  return {
    format: EXPORT_FORMAT,
    formatVersion: EXPORT_FORMAT_VERSION,
    exportedAt: meta.now.toISOString(),
    exportedBy: `conclave ${meta.version}`,
    sessionId,
    journalFormatVersion: JOURNAL_FORMAT_VERSION,
    events,
    blobs,
  };
}

/** Validates an export file's content; errors say what is wrong with which file. */
export function parseExportFile(text: string, file: string): ExportFile {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new UnsupportedFormatError(`${file} (not JSON)`, null, {
      hint: 'Only files written by `conclave sessions export --format json` can be imported.',
    });
  }
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
    throw new UnsupportedFormatError(
      `${file} (${issue ? `${issue.path.join('.')}: ${issue.message}` : 'invalid'})`,
      head.data.formatVersion,
      { hint: 'The file is damaged or was edited by hand; export the session again.' },
    );
  }
  const data = parsed.data;
  const first = data.events[0];
  if (first?.type !== 'session-created' || first.header.id !== data.sessionId)
    throw new UnsupportedFormatError(`${file} (the journal does not start with this session's creation)`, 1);
  data.events.forEach((event, index) => {
    if (event.seq !== index + 1)
      throw new UnsupportedFormatError(`${file} (event ${index + 1} is numbered ${event.seq})`, 1);
  });
  if (first.header.formatVersion > JOURNAL_FORMAT_VERSION)
    throw new UnsupportedFormatError(`Session ${data.sessionId} in ${file}`, first.header.formatVersion);
  return data;
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
    if (stored !== hash)
      throw new UnsupportedFormatError(`The export (blob ${hash.slice(0, 12)} does not match its content)`, 1);
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
    if (event.type === 'spec-recorded' && event.blob) hashes.add(event.blob);
  }
  return hashes;
}
