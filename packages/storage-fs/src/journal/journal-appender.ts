// Appends: one framed line per batch, written and made durable at once (O_DSYNC), with
// the writer's lease epoch checked first (fencing) and the expected seq compared with
// the committed end (optimistic concurrency). Each session's open journal is cached
// with its size, last seq and the running crc32 of its bytes (which snapshots record).
import path from 'node:path';
import { crc32 } from 'node:zlib';
import type { DataKey } from '@resume/core/encryption';
import { checkedSafeParser, lazySchema } from '@resume/core/lazy-schema';
import {
  type AppendBatch,
  AppendConflictError,
  journalEventSchema,
  LeaseLostError,
  SessionNotFoundError,
  type SessionSummary,
  StoreIoError,
  sessionSummarySchema,
  UsageError,
} from '@resume/core/spec';
import { z } from 'zod';
import { errorCode, type WritableFile } from '../file-system/file-system.js';
import { isDiskFull } from '../file-system/guarded-file-system.js';
import type { SummaryIndex } from '../index/summary-index.js';
import { currentEpoch, leaseName } from '../lease/lease-files.js';
import { withCheckedEvents } from '../store/checked-parse.js';
import type { Layout } from '../store/layout.js';
import type { StoreContext } from '../store/store-context.js';
import { checkBatchHead } from '../store/store-files-check.generated.js';
import { JOURNAL, LEASE_DIRECTORY } from '../store/store-paths.js';
import { LineFramer } from './framing.js';
import { encodeBatch, keyOfLastRecord } from './journal-codec.js';
import type { JournalFiles } from './journal-files.js';

export const batchShapeSchema = lazySchema(() =>
  z.object({
    expectedSeq: z.number().int().nonnegative(),
    epoch: z.number().int().nonnegative(),
    events: z.array(journalEventSchema).min(1),
    summary: sessionSummarySchema,
  }),
);
type BatchShape = z.infer<typeof batchShapeSchema>;
/** The batch with its events left to the journal's own event check (see `recordHeadSchema`). */
export const batchHeadSchema = lazySchema(() => batchShapeSchema.extend({ events: z.array(z.unknown()).min(1) }));
// The engine validated these events as they were recorded: the generated check
// (store-files-check.generated.ts) confirms the batch without a second zod parse and without
// building the schema; zod only sees (and reports) what the check does not accept.
const parseBatch = withCheckedEvents(checkedSafeParser(batchHeadSchema, checkBatchHead));

export interface JournalWriter {
  file: WritableFile;
  size: number;
  lastSeq: number;
  /** crc32 of the journal's bytes [0, size), once known (computed on the first snapshot). */
  crc: number | null;
  /** The summary the last batch this writer appended carried (kept with a snapshot taken there). */
  summary: SessionSummary | null;
  /** Frames this journal's appends in one buffer kept between them (appends to a journal are one at a time). */
  framer: LineFramer;
  /** The lease files fencing checks, named once. */
  leaseFiles: { directory: string; epoch: number; current: string; next: string } | null;
  /**
   * The key the journal's last record was sealed with, when the store has keys but no current
   * one (encryption turned off): an encrypted session stays encrypted as it goes on.
   */
  sealedWith: DataKey | null;
}

export interface JournalAppender {
  append(sessionId: string, batch: AppendBatch): Promise<void>;
  /** Opens the journal for appending after recovering its tail (under the session's queue). */
  openWriter(sessionId: string): Promise<JournalWriter>;
  writer(sessionId: string): JournalWriter | undefined;
  drop(sessionId: string): Promise<void>;
  closeAll(): Promise<void>;
}

export function createJournalAppender(
  context: StoreContext,
  journals: JournalFiles,
  index: Pick<SummaryIndex, 'record' | 'beginWriting'>,
  layout: Layout,
): JournalAppender {
  const { paths, plain, durable } = context;
  const writers = new Map<string, JournalWriter>();
  /** The session's folder is gone (removed by hand while it was written, say): named, so the error can say where. */
  const missing = (id: string) =>
    new SessionNotFoundError(id, `Session ${id} is not in the store: its folder ${paths.session(id)} is gone.`, {
      location: paths.session(id),
    });

  const drop = async (id: string) => {
    const writer = writers.get(id);
    writers.delete(id);
    await writer?.file.close().catch(() => {});
  };

  const openWriter = async (id: string): Promise<JournalWriter> => {
    await drop(id);
    // Listings trust the index only while no session is written unannounced (index/summary-index.ts).
    await index.beginWriting(id);
    await journals.unarchive(id);
    const file = paths.inSession(id, JOURNAL);
    if (!(await plain.status(file))?.isFile) throw missing(id);
    // Only the end of the journal decides where appends go: read the tail, not the history.
    const committed = await journals.committedEnd(id);
    if (committed.torn) {
      const status = await plain.status(file);
      const size = status?.size ?? committed.end;
      const tail = await plain.readRange(file, committed.end, size - committed.end);
      await journals.cutTornTail(id, committed.end, tail);
    }
    const keyring = context.keyring;
    const lastKey =
      keyring && !keyring.current() && committed.end > 0
        ? await journals.fromTail(file, committed.end, (tail, start) => keyOfLastRecord(tail, start === 0))
        : null;
    const writer: JournalWriter = {
      sealedWith: lastKey === null ? null : (keyring?.get(lastKey) ?? null),
      file: await durable.openAppend(file),
      size: committed.end,
      lastSeq: committed.lastSeq,
      crc: null,
      summary: null,
      framer: new LineFramer(),
      leaseFiles: null,
    };
    writers.set(id, writer);
    return writer;
  };

  const currentWriter = async (id: string): Promise<JournalWriter> => {
    const cached = writers.get(id);
    // Another process may have written since (it held the lease in between): start over from the file.
    if (cached && (cached.file.sizeNow ? cached.file.sizeNow() : await cached.file.size()) === cached.size)
      return cached;
    return openWriter(id);
  };

  /** The cached writer when the file system answers at once and nobody else wrote since, without a promise. */
  const currentWriterNow = (id: string): JournalWriter | undefined => {
    const cached = writers.get(id);
    return cached?.file.sizeNow && cached.file.sizeNow() === cached.size ? cached : undefined;
  };

  /**
   * Fencing: whether a lease newer than `epoch` exists. Lease files are created as
   * highest + 1 and only those below (current - 1) are removed, so a newer lease exists
   * exactly when epoch + 1 exists or this epoch's own file is gone. Two existence checks
   * answered at once where the file system can; a directory listing otherwise.
   */
  const leaseSupersededNow = (id: string, epoch: number, writer?: JournalWriter): boolean | undefined => {
    if (!plain.existsNow || epoch <= 0) return undefined;
    let names = writer?.leaseFiles;
    if (!names || names.epoch !== epoch) {
      const directory = paths.inSession(id, LEASE_DIRECTORY);
      names = {
        directory,
        epoch,
        current: path.join(directory, leaseName(epoch)),
        next: path.join(directory, leaseName(epoch + 1)),
      };
      if (writer) writer.leaseFiles = names;
    }
    if (plain.existsNow(names.next)) return true;
    if (plain.existsNow(names.current)) return false;
    if (!plain.existsNow(names.directory)) throw missing(id);
    return true;
  };

  const leaseSuperseded = async (id: string, epoch: number, writer?: JournalWriter): Promise<boolean> => {
    const now = leaseSupersededNow(id, epoch, writer);
    if (now !== undefined) return now;
    const current = await currentEpoch(plain, paths.inSession(id, LEASE_DIRECTORY)).catch((error: unknown) => {
      if (errorCode(error) === 'ENOENT') throw missing(id);
      throw error;
    });
    return epoch < current;
  };

  const appendNow = async (id: string, batch: BatchShape, alone: boolean) => {
    context.files.refuseIfBroken();
    // Answered without a promise where the file system can (the common case): an append is
    // mostly these checks and one write, and each await is a turn of the microtask queue.
    const writer = currentWriterNow(id) ?? (await currentWriter(id));
    const superseded = leaseSupersededNow(id, batch.epoch, writer) ?? (await leaseSuperseded(id, batch.epoch, writer));
    if (superseded) throw new LeaseLostError(id);
    if (batch.expectedSeq !== writer.lastSeq) throw new AppendConflictError(id, batch.expectedSeq, writer.lastSeq);
    batch.events.forEach((event, position) => {
      if (event.seq !== batch.expectedSeq + position + 1) {
        throw new AppendConflictError(id, batch.expectedSeq + position, event.seq - 1, {
          hint: 'The events of a batch must be numbered consecutively after the expected seq.',
        });
      }
    });
    const key = context.keyring?.current() ?? writer.sealedWith;
    const line = encodeBatch(
      { epoch: batch.epoch, events: batch.events, summary: batch.summary },
      writer.framer,
      key && { key, sessionId: id },
    );
    context.quota?.admit(id, line.length);
    try {
      // A lone append (the common case: one session writing) is written synchronously, saving a
      // thread-pool round trip; while other appends are pending it goes through the pool so they overlap.
      if (writer.file.writeNow && alone) writer.file.writeNow(line);
      else {
        await writer.file.write(line);
        if (!writer.file.durableWrites) await writer.file.datasync();
      }
    } catch (error) {
      // What reached the file is unknown: the next append re-reads and recovers the tail.
      await drop(id);
      if (isDiskFull(error)) throw error;
      throw new StoreIoError(`Could not write to the journal of session ${id}.`, paths.inSession(id, JOURNAL), {
        cause: error,
      });
    }
    if (writer.crc !== null) writer.crc = crc32(line, writer.crc);
    writer.size += line.length;
    context.quota?.written(id, line.length);
    writer.lastSeq = batch.events.at(-1)?.seq ?? writer.lastSeq;
    writer.summary = batch.summary;
    index.record({ id, summary: batch.summary, journalSize: writer.size, archived: false, damage: null, missing: [] });
  };

  let pendingAppends = 0;
  const append = async (id: string, batch: AppendBatch): Promise<void> => {
    context.files.refuseIfBroken();
    const shape = parseBatch(batch);
    if (!shape.success) {
      throw new UsageError(`The batch for session ${id} is not valid: ${shape.error.issues[0]?.message ?? ''}`);
    }
    if (!writers.has(id)) await layout.require(id);
    pendingAppends += 1;
    try {
      await context.exclusive(id, () => appendNow(id, shape.data, pendingAppends === 1));
    } finally {
      pendingAppends -= 1;
    }
  };

  return {
    append,
    openWriter,
    writer: (id) => writers.get(id),
    drop,
    async closeAll() {
      for (const id of [...writers.keys()]) await context.exclusive(id, () => drop(id));
    },
  };
}
