// Converting a session to encryption at rest, or to the current key (docs/encryption.md#rotation):
// every journal record, the header and the snapshot sealed with the current key. Crash-safe: each
// file is replaced whole (written aside, fsync'd, renamed), in an order where every state a kill
// can leave reads: the snapshot is removed first (derived data: an open replays the journal
// without it), then the journal replaced, then the header, then the snapshot written again
// pointing at the new journal. A file is either in its old form or its new one, never neither.
import { crc32 } from 'node:zlib';
import { type EncryptReport, isSealed } from '@resume/core/encryption';
import { JournalCorruptedError, UsageError } from '@resume/core/spec';
import { writeFileAtomically } from '../file-system/atomic-write.js';
import type { HeaderFiles } from '../header/header-file.js';
import { parseBody, verifyFrame } from '../journal/framing.js';
import { encodeBatch, isLostRecord, scanJournal } from '../journal/journal-codec.js';
import type { JournalFiles } from '../journal/journal-files.js';
import type { SnapshotFiles } from '../snapshot/snapshot-files.js';
import { openJournalRecord } from '../store/sealing.js';
import type { StoreContext } from '../store/store-context.js';
import { HEADER, JOURNAL, SNAPSHOT_NAMES } from '../store/store-paths.js';

export type { EncryptReport };

const keyPattern = /"key":"([^"\\]+)","sealed":"/g;
const snapshotKeyPattern = /"sealedSnapshot":\{"key":"([^"\\]+)"/;

/** The ids of the keys a session's files name, read without opening anything. */
export async function keysOfSession(context: StoreContext, journals: JournalFiles, id: string): Promise<string[]> {
  const found = new Set<string>();
  const journal = await journals.readBytes(id);
  for (const match of (journal?.bytes.toString('latin1') ?? '').matchAll(keyPattern)) found.add(match[1] as string);
  const header = await context.plain.readFile(context.paths.inSession(id, HEADER)).catch(() => null);
  const headerKey = header ? /^\{"crc":"[0-9a-f]{8}","v":1,"key":"([^"\\]+)"/.exec(header.toString('latin1')) : null;
  if (headerKey) found.add(headerKey[1] as string);
  for (const { name } of SNAPSHOT_NAMES.filter((snapshot) => !snapshot.archived)) {
    const head = await context.plain.readRange(context.paths.inSession(id, name), 0, 200).catch(() => null);
    const snapshotKey = head ? snapshotKeyPattern.exec(head.toString('latin1')) : null;
    if (snapshotKey) found.add(snapshotKey[1] as string);
  }
  return [...found].sort();
}

export interface EncryptParts {
  journals: JournalFiles;
  headers: HeaderFiles;
  snapshots: SnapshotFiles;
}

/** Seals what of the session is not sealed (with `rekey`, also what another key sealed) with the current key. */
export async function encryptSession(
  context: StoreContext,
  parts: EncryptParts,
  id: string,
  rekey: boolean,
): Promise<EncryptReport> {
  const key = context.keyring?.current() ?? null;
  if (!key) throw new UsageError(`Session ${id} cannot be encrypted: the store has no current key.`);
  const { paths, plain, durable } = context;
  const { journals, headers, snapshots } = parts;
  await journals.unarchive(id);
  const file = paths.inSession(id, JOURNAL);
  const bytes = await plain.readFile(file);
  // Every record is checked (and opened) first: damage is repaired before, never carried over.
  const scan = scanJournal(bytes, { sessionId: id, file, keyring: context.keyring });
  if (scan.torn) await journals.cutTornTail(id, scan.validLength, bytes.subarray(scan.torn.offset));
  const wanted = (sealedWith: string | null) => sealedWith !== key.id && (sealedWith === null || rekey);

  const lines: Buffer[] = [];
  const recordEnds = new Map<number, number>();
  let size = 0;
  let records = 0;
  for (let position = 0; position < scan.validLength; ) {
    const end = bytes.indexOf(0x0a, position);
    const line = bytes.subarray(position, end + 1);
    const verified = verifyFrame(line.subarray(0, -1));
    const parsed = verified.ok ? parseBody(verified.body) : null;
    if (!verified.ok || !parsed?.ok) {
      throw new JournalCorruptedError({ sessionId: id, file, offset: position, problem: 'record unreadable' });
    }
    const value = parsed.value as { epoch: number; last: number; key?: string };
    let out = line;
    if (!isLostRecord(verified.body) && wanted(isSealed(value) ? (value.key ?? null) : null)) {
      const opened = openJournalRecord(value, { keyring: context.keyring, sessionId: id, file });
      if (!opened.ok)
        throw new JournalCorruptedError({ sessionId: id, file, offset: position, problem: opened.problem });
      const record = opened.value as Parameters<typeof encodeBatch>[0];
      out = encodeBatch({ epoch: record.epoch, events: record.events, summary: record.summary }, null, {
        key,
        sessionId: id,
      });
      records += 1;
    }
    lines.push(out);
    size += out.length;
    recordEnds.set(value.last, size);
    position = end + 1;
  }

  const headerFile = await headers.readFile(id);
  const headerBytes = await plain.readFile(paths.inSession(id, HEADER)).catch(() => null);
  const headerKey = headerBytes
    ? /^\{"crc":"[0-9a-f]{8}","v":1,"key":"([^"\\]+)"/.exec(headerBytes.toString('latin1'))
    : null;
  const header = headerFile.kind === 'ok' && wanted(headerKey?.[1] ?? null) ? headerFile.header : null;
  const stored = await snapshots.readFile(id);
  const snapshotKey = await keysOfSnapshot(context, id);
  const snapshotChanged = stored !== null && (records > 0 || wanted(snapshotKey));

  if (records > 0 || snapshotChanged) {
    for (const { name } of SNAPSHOT_NAMES) await plain.remove(paths.inSession(id, name)).catch(() => {});
    await durable.syncDirectory(paths.session(id));
    snapshots.forget(id);
  }
  const journal = Buffer.concat(lines, size);
  if (records > 0) await writeFileAtomically(durable, file, journal);
  if (header) await headers.write(id, header);
  if (stored && snapshotChanged) {
    const { journalOffset: _offset, journalCrc: _crc, ...snapshot } = stored.snapshot;
    const offset = recordEnds.get(snapshot.seq);
    await snapshots.write(id, {
      ...snapshot,
      ...(offset === undefined ? {} : { journalOffset: offset, journalCrc: crc32(journal.subarray(0, offset)) }),
    });
    await durable.syncDirectory(paths.session(id));
  }
  return { sessionId: id, key: key.id, records, header: header !== null, snapshot: snapshotChanged };
}

async function keysOfSnapshot(context: StoreContext, id: string): Promise<string | null> {
  for (const { name } of SNAPSHOT_NAMES.filter((snapshot) => !snapshot.archived)) {
    const head = await context.plain.readRange(context.paths.inSession(id, name), 0, 200).catch(() => null);
    if (head) return snapshotKeyPattern.exec(head.toString('latin1'))?.[1] ?? null;
  }
  return null;
}
