// The embedded file store (DESIGN 5). Layout under the home directory:
//   sessions/<id>/header.json        the header given to `create` (framed, checksummed)
//   sessions/<id>/journal.jsonl      one framed line per committed batch (journal.jsonl.gz once archived)
//   sessions/<id>/snapshot.json      the latest fold snapshot (snapshot.json.gz once archived)
//   sessions/<id>/lease/epoch-N      the writer lease of epoch N (see lease/lease-files.ts)
//   blobs/ab/cdef...                 content-addressed blobs (sha256)
//   index/summaries.json             the listing cache (see index/summary-index.ts)
// Directories are 0700, files 0600; ids are validated before they become paths and
// files are opened without following symlinks. An append is one write plus one
// fdatasync; a failed fsync makes this instance refuse every later write.
import { createHash, randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { gunzip as gunzipCallback, gzip as gzipCallback } from 'node:zlib';
import {
  type AcquireLeaseOptions,
  type AppendBatch,
  AppendConflictError,
  type FoldSnapshot,
  JournalCorruptedError,
  type JournalEvent,
  journalEventSchema,
  LeaseLostError,
  matchesQuery,
  newSessionRequest,
  type ReadRange,
  type RepairReport,
  SessionExistsError,
  type SessionHeader,
  type SessionLease,
  SessionLockedError,
  SessionNotFoundError,
  type SessionQuery,
  type SessionRequest,
  type SessionRequestInput,
  type SessionStore,
  type SessionSummary,
  STORE_SPECIFICATION_VERSION,
  StoreIoError,
  sessionHeaderSchema,
  sessionIdSchema,
  sessionQuerySchema,
  sessionRequestSchema,
  sessionSummarySchema,
  UsageError,
} from '@resume/core/spec';
import { z } from 'zod';
import { writeFileAtomically } from './file-system/atomic-write.js';
import { createNodeFileSystem, errorCode, type FileSystem, type WritableFile } from './file-system/file-system.js';
import { createSummaryIndex, type IndexEntry, type JournalLocation } from './index/summary-index.js';
import { frameObject, unframe } from './journal/framing.js';
import {
  committedEndInTail,
  encodeBatch,
  type JournalScan,
  lastRecordInTail,
  recordEndingAt,
  scanJournal,
} from './journal/journal-codec.js';
import { stepsStartedIn } from './journal/lost-steps.js';
import {
  acquireLease,
  currentEpoch,
  inspectLease,
  type LeaseFilesContext,
  leaseName,
  liveHolder,
} from './lease/lease-files.js';
import { createProcessProbe, type ProcessProbe } from './lease/process-probe.js';

const gzip = promisify(gzipCallback);
const gunzip = promisify(gunzipCallback);

export interface FsStoreOptions {
  /** The data home (`$CONCLAVE_HOME`, default `~/.conclave`); created 0700 if missing. */
  dir: string;
  /** Injected for tests: the file operations (default: the real file system). */
  fileSystem?: FileSystem;
  /** Injected for tests: how lease holders are checked for liveness. */
  processProbe?: ProcessProbe;
  /** Injected for tests: the clock used for lease times and the names of files kept aside. */
  now?: () => Date;
}

export interface FsStore extends SessionStore {
  readonly kind: 'fs';
  repair(sessionId: string): Promise<RepairReport>;
  archive(sessionId: string): Promise<void>;
  /** Restores an archived session's plain files (appends do this on their own). */
  unarchive(sessionId: string): Promise<void>;
}

const JOURNAL = 'journal.jsonl';
const JOURNAL_ARCHIVED = 'journal.jsonl.gz';
const SNAPSHOT = 'snapshot.json';
const SNAPSHOT_ARCHIVED = 'snapshot.json.gz';
const HEADER = 'header.json';
const LEASE_DIRECTORY = 'lease';
const REQUESTS = 'requests.jsonl';
const TAIL_CHUNK = 64 * 1024;
const blobHashPattern = /^[0-9a-f]{64}$/;

const headerFileSchema = z.object({ v: z.literal(1), header: sessionHeaderSchema });
const snapshotFileSchema = z.object({
  v: z.literal(1),
  seq: z.number().int().nonnegative(),
  formatVersion: z.number().int(),
  /** Byte offset of the journal just past event `seq`, so an open reads only what follows. */
  journalOffset: z.number().int().nonnegative().optional(),
  state: z.unknown(),
});
const batchShapeSchema = z.object({
  expectedSeq: z.number().int().nonnegative(),
  epoch: z.number().int().nonnegative(),
  events: z.array(journalEventSchema).min(1),
  summary: sessionSummarySchema,
});

interface JournalWriter {
  file: WritableFile;
  size: number;
  lastSeq: number;
}

function stripNewline(content: Buffer): Buffer {
  return content.at(-1) === 0x0a ? content.subarray(0, -1) : content;
}

export function createFsStore(options: FsStoreOptions): FsStore {
  const home = path.resolve(options.dir);
  const base = linksReadAsAbsent(options.fileSystem ?? createNodeFileSystem());
  const probe = options.processProbe ?? createProcessProbe();
  const now = options.now ?? (() => new Date());
  const sessionsDirectory = path.join(home, 'sessions');
  const blobsDirectory = path.join(home, 'blobs');
  const indexDirectory = path.join(home, 'index');

  // An fsync that failed may have dropped data the kernel already reported as written;
  // retrying could "succeed" over a hole. So the first failure ends all writing here.
  let broken: unknown = null;
  const refuseIfBroken = () => {
    if (broken !== null) {
      throw new StoreIoError(
        `The session store at ${home} stopped accepting writes after a failed fsync; nothing more was written.`,
        home,
        { cause: broken, hint: 'Check the disk (space, errors), then run the command again.' },
      );
    }
  };
  const fatal = (error: unknown, where: string): never => {
    broken ??= error;
    throw new StoreIoError(`Could not make ${where} durable: the session store at ${home} stops writing.`, where, {
      cause: error,
      hint: 'Check the disk (space, errors), then run the command again.',
    });
  };
  const fileSystem: FileSystem = {
    ...base,
    async openAppend(target) {
      const file = await base.openAppend(target);
      return {
        ...file,
        datasync: () => file.datasync().catch((error: unknown) => fatal(error, target)),
        // A failed write on a file opened for durable writes may be a failed flush: just as fatal.
        ...(file.durableWrites
          ? { write: (data: Uint8Array) => file.write(data).catch((error: unknown) => fatal(error, target)) }
          : {}),
        ...(file.writeNow && file.durableWrites
          ? {
              writeNow: (data: Uint8Array) => {
                try {
                  file.writeNow?.(data);
                } catch (error) {
                  fatal(error, target);
                }
              },
            }
          : { writeNow: undefined }),
      };
    },
    async createExclusive(target) {
      const file = await base.createExclusive(target);
      return { ...file, datasync: () => file.datasync().catch((error: unknown) => fatal(error, target)) };
    },
    syncDirectory: (target) => base.syncDirectory(target).catch((error: unknown) => fatal(error, target)),
  };

  const leaseContext: LeaseFilesContext = { fileSystem, probe, now };
  const sessionDirectory = (id: string) => path.join(sessionsDirectory, id);
  const inSession = (id: string, name: string) => path.join(sessionsDirectory, id, name);

  let layout: Promise<void> | null = null;
  const ensureLayout = () => {
    layout ??= (async () => {
      await makeDirectories(fileSystem, home);
      if (!(await base.status(home))?.isDirectory) {
        throw new StoreIoError(`The data home ${home} is not a directory.`, home, {
          hint: 'Point --home (or CONCLAVE_HOME) at a directory, or at a path that does not exist yet.',
        });
      }
      let created = false;
      for (const directory of [sessionsDirectory, blobsDirectory, indexDirectory]) {
        await base.makeDirectory(directory).then(
          () => {
            created = true;
          },
          (error: unknown) => {
            if (errorCode(error) !== 'EEXIST') throw error;
          },
        );
        const status = await base.status(directory);
        if (!status?.isDirectory) {
          throw new StoreIoError(`${directory} is not a directory (a symlink is not followed).`, directory);
        }
      }
      // A new directory's entry is durable only once its parent is synced (a first session must survive a power loss).
      if (created) await fileSystem.syncDirectory(home);
    })();
    return layout;
  };

  /** The session's directory if the id is valid and it exists as a real directory. */
  const existingSession = async (id: string): Promise<boolean> => {
    if (!sessionIdSchema.safeParse(id).success) return false;
    await ensureLayout();
    const status = await base.status(sessionDirectory(id));
    if (status?.isSymbolicLink) {
      throw new StoreIoError(`${sessionDirectory(id)} is a symlink; the store never follows links out of it.`, home);
    }
    return status?.isDirectory ?? false;
  };
  const requireSession = async (id: string) => {
    if (!(await existingSession(id))) throw new SessionNotFoundError(id);
  };

  // Listing calls this for every session: without a thread-pool round trip when the file system can.
  const statusOf = base.statusNow
    ? async (target: string) => base.statusNow?.(target) ?? null
    : (target: string) => base.status(target);
  const locate = async (id: string): Promise<JournalLocation | null> => {
    // A session directory replaced by a symlink is never listed (nor read through).
    if (!(await statusOf(sessionDirectory(id)))?.isDirectory) return null;
    const plain = await statusOf(inSession(id, JOURNAL));
    if (plain?.isFile) return { size: plain.size, archived: false };
    const archived = await statusOf(inSession(id, JOURNAL_ARCHIVED));
    if (archived?.isFile) return { size: archived.size, archived: true };
    return null;
  };

  const readJournalBytes = async (id: string): Promise<{ bytes: Buffer; file: string } | null> => {
    const location = await locate(id);
    if (!location) return null;
    if (!location.archived) return { bytes: await base.readFile(inSession(id, JOURNAL)), file: inSession(id, JOURNAL) };
    const file = inSession(id, JOURNAL_ARCHIVED);
    try {
      return { bytes: await gunzip(await base.readFile(file)), file };
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return null;
      throw new JournalCorruptedError(
        { sessionId: id, file, offset: null, problem: 'the archive cannot be decompressed' },
        { cause: error },
      );
    }
  };

  const readLastSummary = async (id: string, location: JournalLocation): Promise<SessionSummary | null> => {
    if (location.archived) {
      const journal = await readJournalBytes(id);
      if (!journal) return null;
      return scanJournal(journal.bytes, { sessionId: id, file: journal.file, eventsWanted: false, summaryWanted: true })
        .lastSummary;
    }
    const file = inSession(id, JOURNAL);
    for (let length = TAIL_CHUNK; ; length *= 4) {
      const start = Math.max(0, location.size - length);
      const tail = await base.readRange(file, start, location.size - start);
      const found = lastRecordInTail(tail, start === 0);
      if (found !== 'more') return found?.summary ?? null;
    }
  };

  const index = createSummaryIndex({
    fileSystem,
    indexFile: path.join(indexDirectory, 'summaries.json'),
    sessionsDirectory,
    locate,
    readLastSummary,
  });

  const decorate = (summary: SessionSummary, entry: IndexEntry): SessionSummary => ({
    ...summary,
    archived: entry.archived,
    bytes: entry.journalSize,
  });

  // Appends (and the repairs that rewrite a journal) of one session run one at a time in this process.
  const queues = new Map<string, Promise<unknown>>();
  const exclusive = <T>(id: string, work: () => Promise<T>): Promise<T> => {
    const previous = queues.get(id) ?? Promise.resolve();
    const result = previous.then(work, work);
    const settled = result.catch(() => {});
    queues.set(id, settled);
    void settled.then(() => {
      if (queues.get(id) === settled) queues.delete(id);
    });
    return result;
  };

  const writers = new Map<string, JournalWriter>();
  const snapshotOffsets = new Map<string, { seq: number; offset: number }>();
  const dropWriter = async (id: string) => {
    const writer = writers.get(id);
    writers.delete(id);
    await writer?.file.close().catch(() => {});
  };

  const asideName = (name: string, reason: string) =>
    `${name}.${reason}-${now().toISOString().replace(/[:.]/g, '-')}-${randomBytes(3).toString('hex')}`;

  /** Cuts a torn tail back to the committed prefix, keeping the cut bytes in a file beside the journal. */
  const cutTornTail = async (
    id: string,
    bytes: Buffer,
    scan: Pick<JournalScan, 'torn' | 'validLength'>,
  ): Promise<string | null> => {
    if (!scan.torn) return null;
    const aside = inSession(id, asideName(JOURNAL, 'torn'));
    const file = await fileSystem.createExclusive(aside);
    try {
      await file.write(bytes.subarray(scan.torn.offset));
      await file.datasync();
    } finally {
      await file.close();
    }
    await base.truncate(inSession(id, JOURNAL), scan.validLength).catch((error: unknown) => fatal(error, JOURNAL));
    await fileSystem.syncDirectory(sessionDirectory(id));
    return aside;
  };

  const unarchiveUnlocked = async (id: string) => {
    const location = await locate(id);
    if (!location?.archived) return;
    const journal = await readJournalBytes(id);
    if (!journal) return;
    await writeFileAtomically(fileSystem, inSession(id, JOURNAL), journal.bytes);
    await base.remove(inSession(id, JOURNAL_ARCHIVED));
    const snapshot = await base.status(inSession(id, SNAPSHOT_ARCHIVED));
    if (snapshot?.isFile) {
      const content = await gunzip(await base.readFile(inSession(id, SNAPSHOT_ARCHIVED))).catch(() => null);
      if (content) await writeFileAtomically(fileSystem, inSession(id, SNAPSHOT), content);
      await base.remove(inSession(id, SNAPSHOT_ARCHIVED));
    }
    await fileSystem.syncDirectory(sessionDirectory(id));
  };

  /** Opens the journal for appending after recovering its tail (the caller may write it). */
  const openWriter = async (id: string): Promise<JournalWriter> => {
    await unarchiveUnlocked(id);
    const file = inSession(id, JOURNAL);
    const status = await base.status(file);
    if (!status?.isFile) throw new SessionNotFoundError(id);
    // Only the end of the journal decides where appends go: read the tail, not the history.
    for (let length = TAIL_CHUNK; ; length *= 4) {
      const start = Math.max(0, status.size - length);
      const tail = await base.readRange(file, start, status.size - start);
      const found = committedEndInTail(tail, start);
      if (found === 'more') continue;
      if (found === null) break;
      if (found.end < status.size) {
        const relative = found.end - start;
        await cutTornTail(id, tail, {
          torn: { offset: relative, length: tail.length - relative, problem: 'torn last record' },
          validLength: found.end,
        });
      }
      const handle = await fileSystem.openAppend(file);
      return { file: handle, size: found.end, lastSeq: found.lastSeq };
    }
    const bytes = await base.readFile(file);
    const scan = scanJournal(bytes, { sessionId: id, file, eventsWanted: false });
    await cutTornTail(id, bytes, scan);
    const handle = await fileSystem.openAppend(file);
    return { file: handle, size: scan.validLength, lastSeq: scan.lastSeq };
  };

  const currentWriter = async (id: string): Promise<JournalWriter> => {
    const cached = writers.get(id);
    // Another process may have written since (it held the lease in between): start over from the file.
    if (cached && (cached.file.sizeNow ? cached.file.sizeNow() : await cached.file.size()) === cached.size)
      return cached;
    await dropWriter(id);
    const writer = await openWriter(id);
    writers.set(id, writer);
    return writer;
  };

  /**
   * Fencing: whether a lease newer than `epoch` exists. Lease files are created as
   * highest + 1 and only those below (current - 1) are removed, so a newer lease exists
   * exactly when epoch + 1 exists or this epoch's own file is gone. Two existence checks
   * answered at once where the file system can; a directory listing otherwise.
   */
  const leaseSuperseded = async (id: string, epoch: number): Promise<boolean> => {
    const directory = inSession(id, LEASE_DIRECTORY);
    if (fileSystem.existsNow && epoch > 0) {
      if (fileSystem.existsNow(path.join(directory, leaseName(epoch + 1)))) return true;
      if (fileSystem.existsNow(path.join(directory, leaseName(epoch)))) return false;
      if (!fileSystem.existsNow(directory)) throw new SessionNotFoundError(id);
      return true;
    }
    const current = await currentEpoch(base, directory).catch((error: unknown) => {
      if (errorCode(error) === 'ENOENT') throw new SessionNotFoundError(id);
      throw error;
    });
    return epoch < current;
  };

  let pendingAppends = 0;
  const append = async (id: string, batch: AppendBatch): Promise<void> => {
    refuseIfBroken();
    const shape = batchShapeSchema.safeParse(batch);
    if (!shape.success) {
      throw new UsageError(`The batch for session ${id} is not valid: ${shape.error.issues[0]?.message ?? ''}`);
    }
    if (!writers.has(id)) await requireSession(id);
    pendingAppends += 1;
    try {
      await exclusive(id, () => appendNow(id, shape.data));
    } finally {
      pendingAppends -= 1;
    }
  };

  const appendNow = async (id: string, batch: z.infer<typeof batchShapeSchema>) => {
    refuseIfBroken();
    const [superseded, writer] = await Promise.all([leaseSuperseded(id, batch.epoch), currentWriter(id)]);
    if (superseded) throw new LeaseLostError(id);
    if (batch.expectedSeq !== writer.lastSeq) throw new AppendConflictError(id, batch.expectedSeq, writer.lastSeq);
    batch.events.forEach((event, position) => {
      if (event.seq !== batch.expectedSeq + position + 1) {
        throw new AppendConflictError(id, batch.expectedSeq + position, event.seq - 1, {
          hint: 'The events of a batch must be numbered consecutively after the expected seq.',
        });
      }
    });
    const line = encodeBatch({ epoch: batch.epoch, events: batch.events, summary: batch.summary });
    try {
      // A lone append (the common case: one session writing) is written synchronously, saving a
      // thread-pool round trip; while other appends are pending it goes through the pool so they overlap.
      if (writer.file.writeNow && pendingAppends === 1) writer.file.writeNow(line);
      else {
        await writer.file.write(line);
        if (!writer.file.durableWrites) await writer.file.datasync();
      }
    } catch (error) {
      // What reached the file is unknown: the next append re-reads and recovers the tail.
      await dropWriter(id);
      throw new StoreIoError(`Could not write to the journal of session ${id}.`, inSession(id, JOURNAL), {
        cause: error,
      });
    }
    writer.size += line.length;
    writer.lastSeq = batch.events.at(-1)?.seq ?? writer.lastSeq;
    index.record({ id, summary: batch.summary, journalSize: writer.size, archived: false });
  };

  /**
   * Reads from a snapshot's recorded offset instead of the whole journal: the record ending
   * there must be the one holding the snapshot's last event (checked against its checksum and
   * seq range), which is also returned when asked for (`fromSeq` = the snapshot's seq) so a
   * caller can confirm the journal still has it. Null when the offset does not fit.
   */
  const readFromOffset = async (id: string, range: ReadRange): Promise<JournalEvent[] | null> => {
    const known = snapshotOffsets.get(id);
    if (!known || known.offset === 0) return null;
    if (range.fromSeq !== known.seq && range.fromSeq !== known.seq + 1) return null;
    const location = await locate(id);
    if (!location || location.archived || location.size < known.offset) return null;
    const file = inSession(id, JOURNAL);
    for (let back = TAIL_CHUNK; ; back *= 4) {
      const start = Math.max(0, known.offset - back);
      const bytes = await base.readRange(file, start, location.size - start);
      const record = recordEndingAt(bytes, known.offset - 1 - start, start === 0);
      if (record === 'more') continue;
      // Not the boundary it claimed to be (the journal was repaired or replaced): read it whole.
      if (record === null || record.last !== known.seq) return null;
      try {
        return scanJournal(bytes.subarray(record.start), {
          sessionId: id,
          file,
          fromSeq: range.fromSeq,
          ...(range.toSeq === undefined ? {} : { toSeq: range.toSeq }),
          startSeq: record.first - 1,
          baseOffset: start + record.start,
        }).events;
      } catch {
        return null;
      }
    }
  };

  async function* read(id: string, range: ReadRange = {}): AsyncIterable<JournalEvent> {
    await requireSession(id);
    const fromOffset = await readFromOffset(id, range);
    if (fromOffset) {
      yield* fromOffset;
      return;
    }
    const journal = await readJournalBytes(id);
    if (!journal) throw new SessionNotFoundError(id);
    const scan = scanJournal(journal.bytes, {
      sessionId: id,
      file: journal.file,
      ...(range.fromSeq === undefined ? {} : { fromSeq: range.fromSeq }),
      ...(range.toSeq === undefined ? {} : { toSeq: range.toSeq }),
    });
    yield* scan.events;
  }

  const getHeader = async (id: string): Promise<SessionHeader | null> => {
    if (!(await existingSession(id))) return null;
    const file = inSession(id, HEADER);
    let content: Buffer;
    try {
      content = await base.readFile(file);
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return null;
      throw error;
    }
    const framed = unframe(stripNewline(content));
    const parsed = framed.ok ? headerFileSchema.safeParse(framed.value) : null;
    if (!parsed?.success) {
      throw new JournalCorruptedError({
        sessionId: id,
        file,
        offset: 0,
        problem: framed.ok ? 'the header does not match its schema' : framed.problem,
      });
    }
    return parsed.data.header;
  };

  const create = async (header: SessionHeader): Promise<void> => {
    refuseIfBroken();
    const parsed = sessionHeaderSchema.safeParse(header);
    if (!parsed.success) {
      throw new UsageError(`The session header is not valid: ${parsed.error.issues[0]?.message ?? ''}`);
    }
    await ensureLayout();
    const id = parsed.data.id;
    if (await base.status(sessionDirectory(id))) throw new SessionExistsError(id);
    // Built under a temporary name and renamed into place, so a crash never leaves half a session.
    const building = path.join(sessionsDirectory, `.creating-${id}-${randomBytes(4).toString('hex')}`);
    await base.makeDirectory(building);
    try {
      await base.makeDirectory(path.join(building, LEASE_DIRECTORY));
      await writeFileAtomically(fileSystem, path.join(building, HEADER), frameObject({ v: 1, header: parsed.data }));
      const journal = await fileSystem.createExclusive(path.join(building, JOURNAL));
      await journal.datasync();
      await journal.close();
      await fileSystem.syncDirectory(building);
      await base.rename(building, sessionDirectory(id));
    } catch (error) {
      await base.removeTree(building).catch(() => {});
      if (['EEXIST', 'ENOTEMPTY'].includes(errorCode(error) ?? '')) throw new SessionExistsError(id);
      throw error;
    }
    await fileSystem.syncDirectory(sessionsDirectory);
  };

  const getSummary = async (id: string): Promise<SessionSummary | null> => {
    if (!(await existingSession(id))) return null;
    const entry = await index.get(id);
    return entry?.summary ? decorate(entry.summary, entry) : null;
  };

  const list = async (query: SessionQuery = {}): Promise<SessionSummary[]> => {
    const parsedQuery = sessionQuerySchema.parse(query);
    await ensureLayout();
    const summaries = (await index.all())
      .filter((entry) => entry.summary !== null)
      .map((entry) => decorate(entry.summary as SessionSummary, entry))
      .filter((summary) => matchesQuery(summary, parsedQuery))
      .sort((a, b) =>
        a.updatedAt === b.updatedAt ? (a.id < b.id ? 1 : a.id > b.id ? -1 : 0) : a.updatedAt < b.updatedAt ? 1 : -1,
      );
    const offset = parsedQuery.offset ?? 0;
    return summaries.slice(offset, parsedQuery.limit === undefined ? undefined : offset + parsedQuery.limit);
  };

  const remove = async (id: string): Promise<boolean> => {
    refuseIfBroken();
    if (!(await existingSession(id))) return false;
    return exclusive(id, async () => {
      snapshotOffsets.delete(id);
      await dropWriter(id);
      // Renamed away first so the session disappears at once, even if removing its files is slow or interrupted.
      const trash = path.join(sessionsDirectory, `.deleting-${id}-${randomBytes(4).toString('hex')}`);
      try {
        await base.rename(sessionDirectory(id), trash);
      } catch (error) {
        if (errorCode(error) === 'ENOENT') return false;
        throw error;
      }
      await fileSystem.syncDirectory(sessionsDirectory);
      await base.removeTree(trash);
      index.forget(id);
      snapshotOffsets.delete(id);
      return true;
    });
  };

  const acquire = async (id: string, leaseOptions: AcquireLeaseOptions): Promise<SessionLease> => {
    refuseIfBroken();
    await requireSession(id);
    const held = await acquireLease(leaseContext, id, inSession(id, LEASE_DIRECTORY), leaseOptions.holder);
    // The new holder is the only writer now: recover a torn tail a dead writer left behind.
    try {
      await exclusive(id, async () => {
        await dropWriter(id);
        writers.set(id, await openWriter(id));
      });
    } catch (error) {
      await held.release().catch(() => {});
      throw error;
    }
    let released = false;
    return {
      sessionId: id,
      epoch: held.epoch,
      holder: held.holder,
      async release() {
        if (released) return;
        released = true;
        await exclusive(id, () => dropWriter(id));
        await held.release();
        await index.save().catch(() => {});
      },
    };
  };

  const putSnapshot = async (id: string, snapshot: FoldSnapshot): Promise<void> => {
    refuseIfBroken();
    await requireSession(id);
    const parsed = snapshotFileSchema.omit({ v: true }).safeParse(snapshot);
    if (!parsed.success) throw new UsageError(`The snapshot for session ${id} is not valid.`);
    const writer = writers.get(id);
    const journalOffset = writer && writer.lastSeq === snapshot.seq ? writer.size : undefined;
    await writeFileAtomically(
      fileSystem,
      inSession(id, SNAPSHOT),
      frameObject({
        v: 1,
        seq: snapshot.seq,
        formatVersion: snapshot.formatVersion,
        journalOffset,
        state: snapshot.state,
      }),
    );
    if (journalOffset !== undefined) snapshotOffsets.set(id, { seq: snapshot.seq, offset: journalOffset });
    await base.remove(inSession(id, SNAPSHOT_ARCHIVED)).catch(() => {});
  };

  const getSnapshot = async (id: string): Promise<FoldSnapshot | null> => {
    await requireSession(id);
    let content: Buffer;
    try {
      content = await base.readFile(inSession(id, SNAPSHOT));
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') throw error;
      try {
        content = await gunzip(await base.readFile(inSession(id, SNAPSHOT_ARCHIVED)));
      } catch {
        return null;
      }
    }
    // A snapshot is derived data: a damaged one is ignored and the journal replayed instead.
    const framed = unframe(stripNewline(content));
    const parsed = framed.ok ? snapshotFileSchema.safeParse(framed.value) : null;
    if (!parsed?.success) return null;
    if (parsed.data.journalOffset !== undefined) {
      snapshotOffsets.set(id, { seq: parsed.data.seq, offset: parsed.data.journalOffset });
    }
    return { seq: parsed.data.seq, formatVersion: parsed.data.formatVersion, state: parsed.data.state };
  };

  const blobPath = (hash: string) => path.join(blobsDirectory, hash.slice(0, 2), hash.slice(2));

  const putBlob = async (content: Uint8Array): Promise<string> => {
    refuseIfBroken();
    await ensureLayout();
    const hash = createHash('sha256').update(content).digest('hex');
    const target = blobPath(hash);
    const directory = path.dirname(target);
    const created = await base.makeDirectory(directory).then(
      () => true,
      (error: unknown) => {
        if (errorCode(error) !== 'EEXIST') throw error;
        return false;
      },
    );
    // A blob folder replaced by a symlink would take the write out of the store.
    if (!(await base.status(directory))?.isDirectory) {
      throw new StoreIoError(`${directory} is not a directory (a symlink is not followed).`, directory);
    }
    if ((await base.status(target))?.isFile) return hash;
    await writeFileAtomically(fileSystem, target, content);
    if (created) await fileSystem.syncDirectory(blobsDirectory);
    return hash;
  };

  const getBlob = async (hash: string): Promise<Uint8Array | null> => {
    if (!blobHashPattern.test(hash)) return null;
    await ensureLayout();
    // Only the file itself is opened without following links: the folder is checked here.
    if (!(await base.status(path.dirname(blobPath(hash))))?.isDirectory) return null;
    let content: Buffer;
    try {
      content = await base.readFile(blobPath(hash));
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return null;
      throw error;
    }
    if (createHash('sha256').update(content).digest('hex') !== hash) {
      throw new JournalCorruptedError({
        sessionId: null,
        file: blobPath(hash),
        offset: null,
        problem: 'the blob content does not match its hash',
      });
    }
    return new Uint8Array(content.buffer, content.byteOffset, content.byteLength);
  };

  /** Runs `work` on a session no live process holds, alone, with any cached writer dropped first. */
  const maintain = async <T>(id: string, work: () => Promise<T>): Promise<T> => {
    refuseIfBroken();
    await requireSession(id);
    const { record } = await liveHolder(leaseContext, inSession(id, LEASE_DIRECTORY));
    if (record) throw new SessionLockedError(id, { pid: record.pid, host: record.host, since: record.since });
    return exclusive(id, async () => {
      await dropWriter(id);
      return work();
    });
  };

  const repair = (id: string): Promise<RepairReport> =>
    maintain(id, async () => {
      await unarchiveUnlocked(id);
      const file = inSession(id, JOURNAL);
      const bytes = await base.readFile(file).catch((error: unknown) => {
        if (errorCode(error) === 'ENOENT') throw new SessionNotFoundError(id);
        throw error;
      });
      let keptLength: number;
      let keptSeq: number;
      try {
        const scan = scanJournal(bytes, { sessionId: id, file, eventsWanted: true });
        keptLength = scan.validLength;
        keptSeq = scan.lastSeq;
      } catch (error) {
        if (!JournalCorruptedError.isInstance(error) || error.offset === null) throw error;
        keptLength = error.offset;
        keptSeq = scanJournal(bytes.subarray(0, keptLength), { sessionId: id, file, eventsWanted: false }).lastSeq;
      }
      if (keptLength === bytes.length) return { sessionId: id, keptSeq, removedBytes: 0, savedTo: null, lostSteps: [] };
      const savedTo = inSession(id, asideName(JOURNAL, 'damaged'));
      await writeFileAtomically(fileSystem, savedTo, bytes.subarray(keptLength));
      await writeFileAtomically(fileSystem, file, bytes.subarray(0, keptLength));
      const snapshot = await getSnapshot(id);
      if (snapshot && snapshot.seq > keptSeq) await base.remove(inSession(id, SNAPSHOT)).catch(() => {});
      return {
        sessionId: id,
        keptSeq,
        removedBytes: bytes.length - keptLength,
        savedTo,
        lostSteps: stepsStartedIn(bytes.subarray(keptLength)),
      };
    });

  const archive = (id: string): Promise<void> =>
    maintain(id, async () => {
      const location = await locate(id);
      if (!location || location.archived) return;
      const journal = await base.readFile(inSession(id, JOURNAL));
      // Only the committed prefix is archived; a torn tail stays readable beside it.
      const scan = scanJournal(journal, { sessionId: id, file: inSession(id, JOURNAL), eventsWanted: false });
      await cutTornTail(id, journal, scan);
      await writeFileAtomically(
        fileSystem,
        inSession(id, JOURNAL_ARCHIVED),
        await gzip(journal.subarray(0, scan.validLength)),
      );
      await base.remove(inSession(id, JOURNAL));
      const snapshot = await base.readFile(inSession(id, SNAPSHOT)).catch(() => null);
      if (snapshot) {
        await writeFileAtomically(fileSystem, inSession(id, SNAPSHOT_ARCHIVED), await gzip(snapshot));
        await base.remove(inSession(id, SNAPSHOT));
      }
      await fileSystem.syncDirectory(sessionDirectory(id));
    });

  // Requests to a session's writer: one JSON line each in `requests.jsonl`, appended without
  // the lease (O_APPEND keeps concurrent posts whole); a torn last line is ignored.
  const requestsFile = (id: string) => inSession(id, REQUESTS);
  const postRequest = async (id: string, input: SessionRequestInput): Promise<SessionRequest> => {
    refuseIfBroken();
    await requireSession(id);
    const request = newSessionRequest(input);
    const line = Buffer.from(`${JSON.stringify(request)}\n`, 'utf8');
    let file: WritableFile;
    try {
      file = await fileSystem.openAppend(requestsFile(id));
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') throw error;
      file = await fileSystem.createExclusive(requestsFile(id)).catch((created: unknown) => {
        if (errorCode(created) === 'EEXIST') return fileSystem.openAppend(requestsFile(id));
        throw created;
      });
    }
    try {
      await file.write(line);
      if (!file.durableWrites) await file.datasync();
    } finally {
      await file.close();
    }
    return request;
  };
  const listRequests = async (id: string): Promise<SessionRequest[]> => {
    await requireSession(id);
    let bytes: Buffer;
    try {
      bytes = await fileSystem.readFile(requestsFile(id));
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return [];
      throw error;
    }
    return bytes
      .toString('utf8')
      .split('\n')
      .flatMap((line) => {
        if (line.trim() === '') return [];
        try {
          const parsed = sessionRequestSchema.safeParse(JSON.parse(line));
          return parsed.success ? [parsed.data] : [];
        } catch {
          return [];
        }
      });
  };

  const unarchive = async (id: string): Promise<void> => {
    refuseIfBroken();
    await requireSession(id);
    await exclusive(id, () => unarchiveUnlocked(id));
  };

  return {
    specificationVersion: STORE_SPECIFICATION_VERSION,
    kind: 'fs',
    location: home,
    create,
    append,
    read,
    getHeader,
    getSummary,
    list,
    delete: remove,
    acquireLease: acquire,
    async inspectLease(id) {
      if (!(await existingSession(id))) return null;
      return inspectLease(leaseContext, inSession(id, LEASE_DIRECTORY));
    },
    putSnapshot,
    getSnapshot,
    putBlob,
    getBlob,
    repair,
    archive,
    unarchive,
    postRequest,
    listRequests,
    async close() {
      for (const id of [...writers.keys()]) await exclusive(id, () => dropWriter(id));
      if (broken === null) await index.save().catch(() => {});
    },
  };
}

/**
 * Files are opened without following symlinks (O_NOFOLLOW fails with ELOOP); a session
 * file replaced by a symlink reads as absent, so it is refused like a missing one.
 */
function linksReadAsAbsent(fileSystem: FileSystem): FileSystem {
  const absent = (error: unknown): never => {
    if (errorCode(error) === 'ELOOP')
      throw Object.assign(new Error(`${String(error)} (a symlink)`), { code: 'ENOENT' });
    throw error;
  };
  return {
    ...fileSystem,
    openAppend: (target) => fileSystem.openAppend(target).catch(absent),
    readFile: (target) => fileSystem.readFile(target).catch(absent),
    readRange: (target, position, length) => fileSystem.readRange(target, position, length).catch(absent),
  };
}

/** Creates the home and its missing parents, each new one private. */
async function makeDirectories(fileSystem: FileSystem, directory: string): Promise<void> {
  const status = await fileSystem.status(directory);
  if (status) return;
  await makeDirectories(fileSystem, path.dirname(directory));
  const created = await fileSystem.makeDirectory(directory).then(
    () => true,
    (error: unknown) => {
      if (errorCode(error) !== 'EEXIST') throw error;
      return false;
    },
  );
  if (created) await fileSystem.syncDirectory(path.dirname(directory));
}
