// Fold snapshots: derived data that lets an open skip replaying the journal. Writing
// one is best-effort (a full disk costs replay time later, never the run). Each records
// the journal offset just past its last event and the crc32 of every journal byte before
// it, so an open trusts it only after the journal prefix it summarizes checks out (one
// pass of crc32 over the bytes, no parsing): damage hidden behind a snapshot is found
// before anything is appended after it, and a journal cut short of a snapshot's event is
// damage, never a silently shorter session.
import { crc32 } from 'node:zlib';
import {
  type FoldSnapshot,
  JournalCorruptedError,
  type JournalEvent,
  type ReadRange,
  UsageError,
} from '@resume/core/spec';
import { writeFileAtomically } from '../file-system/atomic-write.js';
import { errorCode } from '../file-system/file-system.js';
import type { JournalAppender } from '../journal/journal-appender.js';
import { recordEndingAt, scanJournal } from '../journal/journal-codec.js';
import { gunzip, type JournalFiles } from '../journal/journal-files.js';
import { type LeaseRecord, latestLease } from '../lease/lease-files.js';
import type { Layout } from '../store/layout.js';
import type { StoreContext } from '../store/store-context.js';
import { JOURNAL, LEASE_DIRECTORY, SNAPSHOT, SNAPSHOT_NAMES } from '../store/store-paths.js';
import { decodeSnapshot, encodeSnapshot, openSnapshot, type SnapshotFile, sealSnapshot } from './snapshot-format.js';

export type { SnapshotFile } from './snapshot-format.js';

export interface SnapshotFiles {
  put(sessionId: string, snapshot: FoldSnapshot): Promise<void>;
  get(sessionId: string): Promise<FoldSnapshot | null>;
  /** The snapshot file as stored (and its name), without checking it against the journal; null when absent or damaged. */
  readFile(sessionId: string): Promise<StoredSnapshot | null>;
  /** Writes a snapshot file as given, removing it under any other name (repair re-points one at a rewritten journal). */
  write(sessionId: string, snapshot: SnapshotFile): Promise<void>;
  /** Events from a snapshot's recorded offset, or null when that shortcut does not apply. */
  readFromOffset(sessionId: string, range: ReadRange): Promise<JournalEvent[] | null>;
  /** Notes where a read found the journal's last committed record ending (its seq), for the next read after it. */
  endRead(sessionId: string, seq: number, offset: number): void;
  forget(sessionId: string): void;
  /** Whether this store checked the session's journal prefix (or found it untouched) since it was last forgotten. */
  checked(sessionId: string): boolean;
  /** Notes that a read checked every record of the session's journal (ordered replay reads it whole). */
  wholeJournalChecked(sessionId: string): void;
  /** Notes the lease this store now holds (its epoch) and the one it followed, whose release can vouch for the journal. */
  leaseTaken(sessionId: string, epoch: number, previous: LeaseRecord | null): void;
}

export interface StoredSnapshot {
  snapshot: SnapshotFile;
  /** The file's name in the session's directory (`snapshot.bin`, or a former name). */
  name: string;
  archived: boolean;
}

export function createSnapshotFiles(
  context: StoreContext,
  layout: Layout,
  journals: JournalFiles,
  appender: JournalAppender,
): SnapshotFiles {
  const { paths, plain } = context;
  const offsets = new Map<string, { seq: number; offset: number }>();
  /** Where the journal ended when this store last read it to its end: a later read after it starts there. */
  const ends = new Map<string, { seq: number; offset: number }>();
  const checkedPrefixes = new Set<string>();
  const heldLeases = new Map<string, { epoch: number; previous: LeaseRecord | null }>();
  const journalFile = (id: string) => paths.inSession(id, JOURNAL);

  const write = async (id: string, snapshot: SnapshotFile) => {
    const key = context.keyring?.current() ?? null;
    const encoded = encodeSnapshot(snapshot);
    const bytes = key ? sealSnapshot(encoded, key, id) : encoded;
    // Over a space limit the snapshot is left out, as on a full disk: the journal holds everything.
    const quota = context.quota;
    const replaced = quota ? ((await plain.status(paths.inSession(id, SNAPSHOT)))?.size ?? 0) : 0;
    quota?.admit(id, bytes.length - replaced);
    await writeFileAtomically(plain, paths.inSession(id, SNAPSHOT), bytes);
    quota?.written(id, bytes.length - replaced);
    for (const { name } of SNAPSHOT_NAMES.slice(1)) await plain.remove(paths.inSession(id, name)).catch(() => {});
  };

  const put = async (id: string, snapshot: FoldSnapshot): Promise<void> => {
    context.files.refuseIfBroken();
    await layout.require(id);
    if (!Number.isSafeInteger(snapshot.seq) || snapshot.seq < 0 || !Number.isSafeInteger(snapshot.formatVersion))
      throw new UsageError(`The snapshot for session ${id} is not valid.`);
    await context.exclusive(id, async () => {
      try {
        const writer = appender.writer(id);
        const atEnd = writer !== undefined && writer.lastSeq === snapshot.seq;
        if (writer && atEnd && writer.crc === null) {
          writer.crc = crc32(await plain.readRange(journalFile(id), 0, writer.size));
        }
        await write(id, {
          seq: snapshot.seq,
          formatVersion: snapshot.formatVersion,
          ...(writer && atEnd ? { journalOffset: writer.size, journalCrc: writer.crc ?? 0 } : {}),
          state: snapshot.state,
          ...(Array.isArray(snapshot.operations) ? { operations: snapshot.operations } : {}),
          ...(writer && atEnd && writer.summary?.lastSeq === snapshot.seq ? { summary: writer.summary } : {}),
        });
        if (writer && atEnd) offsets.set(id, { seq: snapshot.seq, offset: writer.size });
      } catch {
        // Best-effort: a snapshot only saves replay time; the journal holds everything.
      }
    });
  };

  /** The first of the snapshot's names that holds a file; a damaged archive reads as none. */
  const readFile = async (id: string): Promise<StoredSnapshot | null> => {
    for (const { name, archived } of SNAPSHOT_NAMES) {
      let content: Buffer;
      try {
        content = await plain.readFile(paths.inSession(id, name));
      } catch (error) {
        if (errorCode(error) === 'ENOENT' || errorCode(error) === 'EISDIR') continue;
        // An archive that cannot be read is no snapshot (the journal holds everything).
        if (archived) return null;
        throw error;
      }
      const decoded = archived ? await gunzip(content).catch(() => null) : content;
      const opened = decoded && openSnapshot(decoded, context.keyring, id, paths.inSession(id, name));
      // openSnapshot hands back a file that is not sealed as it is; anything else passed its tag.
      const snapshot = opened && decodeSnapshot(opened, { opened: opened !== decoded });
      return snapshot ? { snapshot, name, archived } : null;
    }
    return null;
  };

  /** Throws when the journal no longer holds, intact, the prefix the snapshot summarizes. */
  const confirmPrefix = async (id: string, snapshot: SnapshotFile, archived: boolean) => {
    const damaged = (offset: number | null, problem: string, file = journalFile(id)) =>
      new JournalCorruptedError({ sessionId: id, file, offset, problem });
    const location = await journals.locate(id);
    if (!location || location.missing) {
      throw damaged(null, `the journal is missing although the snapshot holds ${snapshot.seq} events`);
    }
    if (location.archived || archived || snapshot.journalOffset === undefined) {
      const journal = await journals.readBytes(id);
      const lastSeq = journal
        ? scanJournal(journal.bytes, { sessionId: id, file: journal.file, eventsWanted: false }).lastSeq
        : 0;
      if (lastSeq < snapshot.seq) {
        throw damaged(null, `the journal ends at event ${lastSeq} but its snapshot holds ${snapshot.seq}: it was cut`);
      }
      return;
    }
    const offset = snapshot.journalOffset;
    if (location.size < offset) {
      const end = await journals.committedEnd(id);
      throw damaged(
        end.end,
        `the journal ends at event ${end.lastSeq} (byte ${location.size}) but its snapshot holds ${snapshot.seq} events up to byte ${offset}: it was cut`,
      );
    }
    if (snapshot.journalCrc === undefined || offset === 0) return;
    // Untouched since its last writer released it (same size, same change time): that writer checked it.
    // When the latest lease is the one this store just took, the last writer is the holder before it
    // (taking a lease does not touch the journal; recovering a torn tail does, and changes its time).
    const latest = await latestLease(plain, paths.inSession(id, LEASE_DIRECTORY)).catch(() => null);
    const held = heldLeases.get(id);
    const lease = latest && !latest.released && held?.epoch === latest.epoch ? held.previous : latest;
    const status = await plain.status(journalFile(id));
    if (
      lease?.released &&
      lease.journal &&
      status?.changedMs !== undefined &&
      lease.journal.size === status.size &&
      lease.journal.changedMs === status.changedMs
    ) {
      return;
    }
    const prefix = await plain.readRange(journalFile(id), 0, offset);
    if (crc32(prefix) === snapshot.journalCrc) return;
    // Something before the snapshot changed: name the first damaged record if there is one.
    const scan = scanJournal(prefix, { sessionId: id, file: journalFile(id), eventsWanted: false });
    const record = recordEndingAt(prefix, offset - 1, true);
    throw damaged(
      record === null || record === 'more' || record.last !== snapshot.seq ? scan.validLength : null,
      `the journal before event ${snapshot.seq} differs from what its snapshot was taken from`,
    );
  };

  /** Throws when the last writer's lease says the journal went further than it now does. */
  const confirmLastWriter = async (id: string) => {
    const lease = await latestLease(plain, paths.inSession(id, LEASE_DIRECTORY)).catch(() => null);
    if (lease?.lastSeq === undefined || !lease.released) return;
    const location = await journals.locate(id);
    if (!location || location.archived) return;
    const end = location.missing ? { end: 0, lastSeq: 0 } : await journals.committedEnd(id);
    if (end.lastSeq < lease.lastSeq) {
      throw new JournalCorruptedError({
        sessionId: id,
        file: journalFile(id),
        offset: end.end,
        problem: `the journal ends at event ${end.lastSeq} but its last writer left it at event ${lease.lastSeq}: it was cut`,
      });
    }
  };

  const get = async (id: string): Promise<FoldSnapshot | null> => {
    await layout.require(id);
    await confirmLastWriter(id);
    const found = await readFile(id);
    // A snapshot is derived data: a damaged one is ignored and the journal replayed instead.
    // (Without one the engine replays the whole journal, checking every record.)
    if (!found) {
      checkedPrefixes.add(id);
      return null;
    }
    const { snapshot, archived } = found;
    await confirmPrefix(id, snapshot, archived);
    checkedPrefixes.add(id);
    if (snapshot.journalOffset !== undefined && !archived) {
      offsets.set(id, { seq: snapshot.seq, offset: snapshot.journalOffset });
    }
    const result: FoldSnapshot = { seq: snapshot.seq, formatVersion: snapshot.formatVersion, state: snapshot.state };
    // The replay log's operations stay undecoded until asked for (a keyed open never does).
    const operations = Object.getOwnPropertyDescriptor(snapshot, 'operations');
    if (operations) Object.defineProperty(result, 'operations', operations);
    return result;
  };

  /**
   * Reads from a snapshot's recorded offset instead of the whole journal: the record ending
   * there must be the one holding the snapshot's last event (checked against its checksum and
   * seq range), which is also returned when asked for (`fromSeq` = the snapshot's seq) so a
   * caller can confirm the journal still has it. Null when the offset does not fit.
   */
  const readFromOffset = async (id: string, range: ReadRange): Promise<JournalEvent[] | null> => {
    const fits = (boundary: { seq: number; offset: number } | undefined) =>
      boundary !== undefined && boundary.offset > 0 && range.fromSeq !== undefined && range.fromSeq >= boundary.seq;
    const snapshotAt = offsets.get(id);
    const endAt = ends.get(id);
    // The boundary nearest before the range: the end of the last read, else the snapshot's.
    const boundary = fits(endAt) && (!fits(snapshotAt) || endAt!.seq >= snapshotAt!.seq) ? endAt : snapshotAt;
    const known = boundary && fits(boundary) ? boundary : undefined;
    // Without one, a range that starts after the first event is found walking back from the end.
    if (!known && (range.fromSeq === undefined || range.fromSeq <= 1)) return null;
    const location = await journals.locate(id);
    if (!location || location.missing || location.archived || location.size < (known?.offset ?? 0)) return null;
    const file = journalFile(id);
    const fromSeq = range.fromSeq ?? 1;
    return journals
      .fromTail(file, known?.offset ?? location.size, (before, start) => {
        if (known) {
          const record = recordEndingAt(before, known.offset - 1 - start, start === 0);
          if (record === 'more') return 'more';
          // Not the boundary it claimed to be (the journal was repaired or replaced): read it whole.
          if (record === null || record.last !== known.seq) return null;
          return { start: start + record.start, first: record.first };
        }
        // Record by record from the end, each checked against its checksum, to the one holding `fromSeq`;
        // a torn or damaged record on the way sends the read to the whole journal.
        for (let end = location.size - 1 - start; ; ) {
          const record = recordEndingAt(before, end, start === 0);
          if (record === 'more' || record === null) return record;
          if (record.first <= fromSeq) return { start: start + record.start, first: record.first };
          if (record.start === 0) return start === 0 ? null : 'more';
          end = record.start - 1;
        }
      })
      .then(async (record) => {
        if (!record) return null;
        const bytes = await plain.readRange(file, record.start, location.size - record.start);
        try {
          const scan = scanJournal(bytes, {
            sessionId: id,
            file,
            keyring: context.keyring,
            fromSeq: range.fromSeq ?? 1,
            ...(range.toSeq === undefined ? {} : { toSeq: range.toSeq }),
            startSeq: record.first - 1,
            baseOffset: record.start,
          });
          endRead(id, scan.lastSeq, record.start + scan.validLength);
          return scan.events;
        } catch (error) {
          // Damage after the snapshot is reported by the whole-journal read with its offset.
          if (JournalCorruptedError.isInstance(error)) return null;
          throw error;
        }
      });
  };

  const endRead = (id: string, seq: number, offset: number): void => {
    if (offset > 0) ends.set(id, { seq, offset });
  };

  return {
    put,
    get,
    readFile,
    write,
    readFromOffset,
    endRead,
    forget(id) {
      offsets.delete(id);
      ends.delete(id);
      checkedPrefixes.delete(id);
    },
    checked: (id) => checkedPrefixes.has(id),
    wholeJournalChecked(id) {
      checkedPrefixes.add(id);
    },
    leaseTaken(id, epoch, previous) {
      heldLeases.set(id, { epoch, previous });
    },
  };
}
