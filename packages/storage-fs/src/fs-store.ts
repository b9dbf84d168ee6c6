// The embedded file store (docs/architecture.md#the-store-contract), composed from small parts: the guarded file
// system (store/, file-system/), headers, journals and their appender, snapshots, the
// listing index, leases, blobs, requests to a session's writer, and whole-session
// verification and repair. The layout
// under the home directory is described in store/store-paths.ts. Directories are 0700,
// files 0600; ids are validated before they become paths and files are opened without
// following symlinks. An append is one write plus one fdatasync; a failed fsync makes
// this instance refuse every later write; a full disk is a StoreFullError.
import path from 'node:path';
import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import { type Keyring, type KeyringOptions, toKeyring } from '@resume/core/encryption';
import {
  type AcquireLeaseOptions,
  createProcessProbe,
  JournalCorruptedError,
  type JournalEvent,
  matchesQuery,
  type ProcessProbe,
  type ReadRange,
  type RepairReport,
  type SessionLease,
  SessionLockedError,
  SessionNotFoundError,
  type SessionQuery,
  type SessionStore,
  type SessionSummary,
  STORE_SPECIFICATION_VERSION,
  sessionQuerySchema,
  type VerifyReport,
} from '@resume/core/spec';
import { createBlobCollector } from './blobs/blob-collection.js';
import { createBlobStore } from './blobs/blob-store.js';
import { createDerivedFiles } from './derived/derived-files.js';
import { writeFileAtomically } from './file-system/atomic-write.js';
import { createNodeFileSystem, errorCode, type FileSystem } from './file-system/file-system.js';
import { guardFileSystem } from './file-system/guarded-file-system.js';
import { createHeaderFiles } from './header/header-file.js';
import { STAMP_SETTLE_MS } from './index/index-stamp.js';
import { listedSummary, newestFirst } from './index/listing-order.js';
import {
  createSummaryIndex,
  type Damage,
  damageAt,
  type IndexEntry,
  type SummaryIndex,
} from './index/summary-index.js';
import { createJournalAppender } from './journal/journal-appender.js';
import {
  committedRecordsFromEnd,
  journalCorruption,
  type RecordDecoding,
  recordEvents,
  scanJournal,
} from './journal/journal-codec.js';
import { createJournalFiles } from './journal/journal-files.js';
import { acquireLease, inspectLease, liveHolder } from './lease/lease-files.js';
import { createJournalRewrite } from './repair/journal-rewrite.js';
import { type EncryptReport, encryptSession, keysOfSession } from './repair/session-encryption.js';
import { createSessionMaintenance } from './repair/session-maintenance.js';
import { createSessionRequests } from './requests/session-requests.js';
import { createSnapshotFiles } from './snapshot/snapshot-files.js';
import { createLayout } from './store/layout.js';
import { asideNamer, type StoreContext, sessionQueue } from './store/store-context.js';
import {
  JOURNAL,
  JOURNAL_ARCHIVED,
  LEASE_DIRECTORY,
  LEGACY_SNAPSHOT,
  resolveHome,
  SNAPSHOT,
  SNAPSHOT_ARCHIVED,
  storePaths,
} from './store/store-paths.js';
import { createStoreQuota, type StoreQuotaLimits } from './usage/store-quota.js';

const gzip = promisify(gzipCallback);

/**
 * The items `load()` gives, as an AsyncIterable that loads them on the first `next()` and then
 * hands them out one per call: an async generator's `yield*` costs several ticks per item, which
 * a whole-journal read (tens of thousands of events) pays in full.
 */
function iterateWhenLoaded<T>(load: () => Promise<T[]>): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator]() {
      let items: T[] | null = null;
      let next = 0;
      return {
        async next(): Promise<IteratorResult<T>> {
          items ??= await load();
          if (next < items.length) return { value: items[next++] as T, done: false };
          return { value: undefined, done: true };
        },
        async return(): Promise<IteratorResult<T>> {
          items = [];
          return { value: undefined, done: true };
        },
      };
    },
  };
}

export interface FsStoreOptions {
  /** The data home (`$CONCLAVE_HOME`, default `~/.conclave`); created 0700 if missing. */
  dir: string;
  /** Injected for tests: the file operations (default: the real file system). */
  fileSystem?: FileSystem;
  /** Injected for tests: how lease holders are checked for liveness. */
  processProbe?: ProcessProbe;
  /** Injected for tests: the clock used for lease times and the names of files kept aside. */
  now?: () => Date;
  /**
   * How long (ms) the sessions folder must have been unchanged before a listing stamps the
   * listing index, which lets later listings skip checking every session (default 2,000: file
   * times are only as fine as the file system's clock, a few ms). Tests pass a few tens of ms.
   */
  listingSettleMs?: number;
  /**
   * Encryption at rest (docs/encryption.md): the keys, or a Keyring over your KMS. With a current
   * key, everything written from then on that carries session data is sealed with it; every key
   * given opens what was sealed with it. Without one, encrypted sessions cannot be read.
   */
  encryption?: Keyring | KeyringOptions;
  /**
   * Space limits (docs/storage.md#space-limits): a write that would take the home or a session
   * past one is refused with StoreQuotaError before anything of it is written.
   */
  quota?: StoreQuotaLimits;
}

export interface FsStore extends SessionStore {
  readNewestFirst(sessionId: string): AsyncIterable<JournalEvent[]>;
  putDerived(sessionId: string, name: string, bytes: Uint8Array): Promise<void>;
  getDerived(sessionId: string, name: string): Promise<Uint8Array | null>;
  readonly kind: 'fs';
  repair(sessionId: string, options?: { dryRun?: boolean }): Promise<RepairReport>;
  verify(sessionId: string): Promise<VerifyReport>;
  archive(sessionId: string): Promise<void>;
  /** Restores an archived session's plain files (appends do this on their own). */
  unarchive(sessionId: string): Promise<void>;
  /**
   * Seals the session with the current key (docs/encryption.md): what is in the clear, and with
   * `rekey` what another key sealed. Crash-safe; refused while a live process writes the session.
   */
  encrypt(sessionId: string, options?: { rekey?: boolean }): Promise<EncryptReport>;
  /** The ids of the keys the session's files are sealed with (read without opening them). */
  keysOf(sessionId: string): Promise<string[]>;
  /**
   * Removes the blobs no session names (docs/storage.md#blobs): those a deletion kept because a
   * live writer might still have named them. Resolves to how many went.
   */
  sweepBlobs(): Promise<number>;
}

export function createFsStore(options: FsStoreOptions): FsStore {
  const home = resolveHome(options.dir);
  const files = guardFileSystem(options.fileSystem ?? createNodeFileSystem(), home);
  const now = options.now ?? (() => new Date());
  const context: StoreContext = {
    paths: storePaths(home),
    files,
    plain: files.plain,
    durable: files.durable,
    now,
    lease: { fileSystem: files.durable, probe: options.processProbe ?? createProcessProbe(), now },
    exclusive: sessionQueue(),
    asideName: asideNamer(now),
    keyring: toKeyring(options.encryption),
    quota: createStoreQuota(storePaths(home), options.quota),
  };
  const { paths, plain } = context;
  const layout = createLayout(context);
  const journals = createJournalFiles(context);
  let index: SummaryIndex;
  /**
   * Records damage a reader found, so listings show the session damaged until a repair: in the
   * listing index, saved at once (a changed byte in the middle of a journal leaves its size, and
   * so the entry, as they were). Best-effort: it never fails the reader.
   */
  const recordDamage = async (id: string, damage: Damage): Promise<void> => {
    try {
      if (!(await index.get(id))) return;
      await index.markDamaged(id, damage);
      await index.save();
    } catch {
      // The reader reports the damage itself; the next reader records it.
    }
  };
  /** Records the damage a JournalCorruptedError about session `id` names. */
  const notice = async (id: string, error: unknown) => {
    if (JournalCorruptedError.isInstance(error) && error.sessionId === id)
      await recordDamage(id, damageAt(error.problem, error.offset, error.file));
  };
  /** `work` on a session, recording the damage its JournalCorruptedError names. */
  const noticing =
    <A extends unknown[], T>(work: (id: string, ...rest: A) => Promise<T>) =>
    async (id: string, ...rest: A): Promise<T> => {
      try {
        return await work(id, ...rest);
      } catch (error) {
        await notice(id, error);
        throw error;
      }
    };
  const headers = createHeaderFiles(context, layout, journals, recordDamage);
  const appender = createJournalAppender(
    context,
    journals,
    { record: (entry) => index.record(entry), beginWriting: (id) => index.beginWriting(id) },
    layout,
  );
  const snapshots = createSnapshotFiles(context, layout, journals, appender);
  const maintenance = createSessionMaintenance(context, {
    layout,
    journals,
    headers,
    snapshots,
    appender,
    index: () => index,
  });
  index = createSummaryIndex({
    fileSystem: plain,
    durableFileSystem: context.durable,
    indexFile: paths.indexFile,
    sessionsDirectory: paths.sessions,
    settleMs: options.listingSettleMs ?? STAMP_SETTLE_MS,
    locate: journals.locate,
    inspect: maintenance.inspectForIndex,
    keyring: context.keyring,
  });
  const blobs = createBlobStore(context, layout);
  const blobCollector = createBlobCollector(context, journals);
  const requests = createSessionRequests(context, layout);
  const derived = createDerivedFiles(context, layout);
  const rewriteJournal = createJournalRewrite(context, { layout, journals, snapshots, appender, index: () => index });
  const leaseDirectory = (id: string) => paths.inSession(id, LEASE_DIRECTORY);

  /** The session's journal, read whole; its folder is there (checked first): a journal that is not is damage. */
  async function journalBytes(id: string): Promise<{ bytes: Buffer; file: string }> {
    const journal = await journals.readBytes(id);
    if (journal) return journal;
    throw new JournalCorruptedError({
      sessionId: id,
      file: paths.inSession(id, JOURNAL),
      offset: null,
      problem: 'the journal is missing (or is not a regular file)',
    });
  }

  async function readEvents(id: string, range: ReadRange): Promise<JournalEvent[]> {
    await layout.require(id);
    const fromOffset = await snapshots.readFromOffset(id, range);
    if (fromOffset) return fromOffset;
    const journal = await journalBytes(id);
    const scan = scanJournal(journal.bytes, {
      sessionId: id,
      file: journal.file,
      keyring: context.keyring,
      ...(range.fromSeq === undefined ? {} : { fromSeq: range.fromSeq }),
      ...(range.toSeq === undefined ? {} : { toSeq: range.toSeq }),
    });
    // Every record was checked against its checksum: as good as checking the prefix a snapshot summarizes.
    if (range.fromSeq === undefined && range.toSeq === undefined) snapshots.wholeJournalChecked(id);
    // A plain journal only grows: the next read after its end starts there (an archived one is read whole).
    if (journal.file === paths.inSession(id, JOURNAL)) snapshots.endRead(id, scan.lastSeq, scan.validLength);
    return scan.events;
  }

  const readNoticing = noticing(readEvents);
  const read = (id: string, range: ReadRange = {}): AsyncIterable<JournalEvent> =>
    iterateWhenLoaded(() => readNoticing(id, range));

  /** The journal from its end, a committed batch at a time, each record checked and decoded when it is reached. */
  async function* readNewestFirst(id: string): AsyncGenerator<JournalEvent[]> {
    try {
      await layout.require(id);
      const { bytes, file } = await journalBytes(id);
      const decoding: RecordDecoding = {
        opening: { keyring: context.keyring, sessionId: id, file },
        corrupted: journalCorruption({ sessionId: id, file }),
      };
      for (const record of committedRecordsFromEnd(bytes, file, decoding.corrupted))
        yield recordEvents(record, decoding);
    } catch (error) {
      await notice(id, error);
      throw error;
    }
  }

  const decorate = (entry: IndexEntry & { summary: SessionSummary }): SessionSummary => listedSummary(entry);

  const list = async (query: SessionQuery = {}): Promise<SessionSummary[]> => {
    const parsedQuery = sessionQuerySchema.parse(query);
    await layout.ensure();
    const summaries = (await index.all())
      .filter((entry): entry is IndexEntry & { summary: SessionSummary } => entry.summary !== null)
      .map(decorate)
      .filter((summary) => matchesQuery(summary, parsedQuery))
      .sort(newestFirst);
    const offset = parsedQuery.offset ?? 0;
    return summaries.slice(offset, parsedQuery.limit === undefined ? undefined : offset + parsedQuery.limit);
  };

  const remove = async (id: string): Promise<boolean> => {
    files.refuseIfBroken();
    if (!(await layout.exists(id))) return false;
    return context.exclusive(id, async () => {
      snapshots.forget(id);
      await appender.drop(id);
      const named = await blobCollector.namedBy(id);
      // Renamed away first so the session disappears at once, even if removing its files is slow or interrupted.
      const trash = path.join(paths.sessions, `.deleting-${id}-${Date.now().toString(36)}`);
      try {
        await plain.rename(paths.session(id), trash);
      } catch (error) {
        if (errorCode(error) === 'ENOENT') return false;
        throw error;
      }
      await context.durable.syncDirectory(paths.sessions);
      await plain.removeTree(trash);
      await index.endWriting(id);
      index.forget(id);
      // Looked for after the session is gone: two deletions at once each see the other's session gone or still there.
      await blobCollector.collect(named, Date.now());
      return true;
    });
  };

  /** The lease files' part of `acquire`. A session removed meanwhile is not found, whichever step noticed. */
  const takeLease = async (id: string, leaseOptions: AcquireLeaseOptions) => {
    await layout.require(id);
    try {
      // A lease folder replaced by a symlink would take lease files (and their removal) out of the store.
      await layout.requireDirectory(leaseDirectory(id));
      return await acquireLease(context.lease, id, leaseDirectory(id), leaseOptions.holder);
    } catch (error) {
      if (!SessionLockedError.isInstance(error) && !(await layout.exists(id))) {
        throw new SessionNotFoundError(id, undefined, { cause: error });
      }
      throw error;
    }
  };

  const acquire = async (id: string, leaseOptions: AcquireLeaseOptions): Promise<SessionLease> => {
    files.refuseIfBroken();
    const held = await takeLease(id, leaseOptions);
    // This holder checks the journal afresh (its release vouches for what it checked).
    snapshots.forget(id);
    snapshots.leaseTaken(id, held.epoch, held.previous);
    // The new holder is the only writer now: recover a torn tail a dead writer left behind.
    try {
      const writer = await context.exclusive(id, () => appender.openWriter(id));
      const left = held.previous?.lastSeq;
      if (left !== undefined && left > writer.lastSeq) {
        throw new JournalCorruptedError({
          sessionId: id,
          file: paths.inSession(id, JOURNAL),
          offset: writer.size,
          problem: `the journal ends at event ${writer.lastSeq} but its last writer left it at event ${left}: it was cut`,
        });
      }
    } catch (error) {
      await context.exclusive(id, () => appender.drop(id));
      await index.endWriting(id);
      await held.release(held.previous?.lastSeq).catch(() => {});
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
        const writer = appender.writer(id);
        const lastSeq = writer?.lastSeq;
        await context.exclusive(id, () => appender.drop(id));
        // Before the lease goes: the next writer's marker must never be removed under it.
        await index.endWriting(id);
        // The journal's stamp, when this writer checked it at open and wrote all of it since.
        const status = writer && snapshots.checked(id) ? await plain.status(paths.inSession(id, JOURNAL)) : null;
        const stamp =
          status?.changedMs !== undefined && status.size === writer?.size
            ? { size: status.size, changedMs: status.changedMs }
            : undefined;
        await held.release(lastSeq, stamp);
        await index.save().catch(() => {});
      },
    };
  };

  /** Runs `work` on a session no live process holds, alone, with any cached writer dropped first. */
  const maintain = async <T>(id: string, work: () => Promise<T>): Promise<T> => {
    files.refuseIfBroken();
    await layout.require(id);
    await layout.requireDirectory(leaseDirectory(id));
    const { record } = await liveHolder(context.lease, leaseDirectory(id));
    if (record) {
      throw new SessionLockedError(id, { pid: record.pid, host: record.host, since: record.since });
    }
    return context.exclusive(id, async () => {
      await appender.drop(id);
      return index.whileWriting(id, work);
    });
  };

  const archive = (id: string): Promise<void> =>
    maintain(id, async () => {
      const location = await journals.locate(id);
      if (!location || location.missing || location.archived) return;
      const journal = await plain.readFile(paths.inSession(id, JOURNAL));
      // Only the committed prefix is archived; a torn tail stays readable beside it.
      const scan = scanJournal(journal, { sessionId: id, file: paths.inSession(id, JOURNAL), eventsWanted: false });
      if (scan.torn) await journals.cutTornTail(id, scan.validLength, journal.subarray(scan.torn.offset));
      await writeFileAtomically(
        context.durable,
        paths.inSession(id, JOURNAL_ARCHIVED),
        await gzip(journal.subarray(0, scan.validLength)),
      );
      await plain.remove(paths.inSession(id, JOURNAL));
      for (const name of [SNAPSHOT, LEGACY_SNAPSHOT]) {
        const snapshot = await plain.readFile(paths.inSession(id, name)).catch(() => null);
        if (!snapshot) continue;
        await writeFileAtomically(context.durable, paths.inSession(id, SNAPSHOT_ARCHIVED), await gzip(snapshot));
        await plain.remove(paths.inSession(id, name));
        break;
      }
      snapshots.forget(id);
      await context.durable.syncDirectory(paths.session(id));
    });

  return {
    specificationVersion: STORE_SPECIFICATION_VERSION,
    kind: 'fs',
    location: home,
    create: headers.create,
    append: appender.append,
    read,
    readNewestFirst,
    getHeader: noticing(headers.get),
    async getSummary(id) {
      if (!(await layout.exists(id))) return null;
      const entry = await index.get(id);
      return entry?.summary ? decorate({ ...entry, summary: entry.summary }) : null;
    },
    list,
    delete: remove,
    acquireLease: noticing(acquire),
    async inspectLease(id) {
      if (!(await layout.exists(id))) return null;
      // Never read through a lease folder replaced by a symlink.
      if (!(await plain.status(leaseDirectory(id)))?.isDirectory) return null;
      return inspectLease(context.lease, leaseDirectory(id));
    },
    putSnapshot: snapshots.put,
    getSnapshot: noticing(snapshots.get),
    putBlob: blobs.put,
    sweepBlobs: () => {
      files.refuseIfBroken();
      return blobCollector.sweep();
    },
    getBlob: blobs.get,
    async repair(id, repairOptions) {
      const report = await maintenance.repair(id, repairOptions);
      // What was derived from the journal may name events the repair removed.
      if (!repairOptions?.dryRun) await derived.forget(id);
      return report;
    },
    rewrite: noticing(async (id, rewrite) => {
      // What was derived from the journal names events by the seqs the rewrite renumbers.
      await derived.forget(id);
      return rewriteJournal(id, rewrite);
    }),
    async verify(id) {
      const report = await noticing(maintenance.verify)(id);
      const [first] = report.problems;
      if (first) await recordDamage(id, damageAt(first.problem, first.offset, first.file));
      return report;
    },
    archive,
    postRequest: requests.post,
    listRequests: requests.list,
    putDerived: derived.put,
    getDerived: derived.get,
    async encrypt(id, encryptOptions = {}) {
      const report = await maintain(id, async () => {
        const encrypted = await encryptSession(
          context,
          { journals, headers, snapshots },
          id,
          encryptOptions.rekey ?? false,
        );
        // Derived data is rewritten sealed by whoever derives it.
        await derived.forget(id);
        return encrypted;
      });
      // The listing index holds the session's summary: it is refreshed and saved sealed at once.
      await index.get(id);
      await index.save().catch(() => {});
      return report;
    },
    async keysOf(id) {
      await layout.require(id);
      return keysOfSession(context, journals, id);
    },
    async unarchive(id) {
      files.refuseIfBroken();
      await layout.require(id);
      await context.exclusive(id, () => index.whileWriting(id, () => journals.unarchive(id)));
    },
    async close() {
      await appender.closeAll();
      if (!files.broken) await index.save().catch(() => {});
    },
  };
}
