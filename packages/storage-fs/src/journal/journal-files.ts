// A session's journal file as the store sees it: where it is (plain or archived), its
// bytes, its last summary and committed end read from the tail, its first record (the
// session's creation, which also rebuilds a lost header), the cut of a torn tail, and
// the unarchiving that makes it appendable again.
import { promisify } from 'node:util';
import { gunzip as gunzipCallback } from 'node:zlib';
import { checkedSafeParser, lazySchema } from '@resume/core/lazy-schema';
import {
  JournalCorruptedError,
  PermissionDeniedError,
  type SessionHeader,
  type SessionSummary,
  sessionHeaderSchema,
} from '@resume/core/spec';
import { z } from 'zod';
import { writeFileAtomically } from '../file-system/atomic-write.js';
import { errorCode, type FileStatus } from '../file-system/file-system.js';
import type { JournalLocation } from '../index/summary-index.js';
import { openJournalRecord } from '../store/sealing.js';
import type { StoreContext } from '../store/store-context.js';
import { checkFirstEvent } from '../store/store-files-check.generated.js';
import { JOURNAL, JOURNAL_ARCHIVED, SNAPSHOT, SNAPSHOT_NAMES } from '../store/store-paths.js';
import { parseBody, verifyFrame } from './framing.js';
import { committedEndInTail, lastRecordInTail, scanJournal } from './journal-codec.js';

export const gunzip = promisify(gunzipCallback);
const TAIL_CHUNK = 64 * 1024;

export interface CommittedEnd {
  /** File offset just past the last committed record. */
  end: number;
  lastSeq: number;
}

export interface JournalFiles {
  locate(sessionId: string, isDirectory?: boolean): Promise<JournalLocation | null>;
  /** The whole journal (decompressed when archived); null when there is none. */
  readBytes(sessionId: string): Promise<{ bytes: Buffer; file: string } | null>;
  readLastSummary(sessionId: string, location: JournalLocation): Promise<SessionSummary | null>;
  /** Where the committed records of the plain journal end, read from its tail (the whole file when the tail is unusual). */
  committedEnd(sessionId: string): Promise<CommittedEnd & { torn: boolean }>;
  /** The header recorded in the journal's first record (the session's creation), null when unreadable. */
  headerFromJournal(sessionId: string): Promise<SessionHeader | null>;
  /** Cuts the journal back to `keptLength`, keeping the cut bytes (`cut`) in a file beside it. */
  cutTornTail(sessionId: string, keptLength: number, cut: Buffer): Promise<string>;
  unarchive(sessionId: string): Promise<void>;
  /** Reads the last `length`-growing chunks of a file until `find` answers (not `more`). */
  fromTail<T>(file: string, size: number, find: (tail: Buffer, start: number) => T | 'more'): Promise<T>;
}

/** A journal's size, once it is known this process may read it (a listing names a refused one instead of trusting its entry). */
function readableSize(status: FileStatus, file: string): number {
  if (status.readable === false) throw new PermissionDeniedError(file, 'read');
  return status.size;
}

/** The journal's first event, the session's creation, as far as the header it holds (built on first use). */
export const firstEventSchema = lazySchema(() =>
  // Loose: the event's other members pass through unread (its full check is the journal's).
  z.looseObject({ seq: z.literal(1), type: z.literal('session-created'), header: sessionHeaderSchema }),
);
const parseFirstEvent = checkedSafeParser(firstEventSchema, checkFirstEvent);

/**
 * The header recorded in a journal's first record (its parsed body): the first event's. The
 * events after it in the same record (a task message, a recorded spec: the session's set-up,
 * written with its creation) are not needed for it, and are not what makes it readable.
 */
export function headerInFirstRecord(record: unknown): SessionHeader | null {
  if (typeof record !== 'object' || record === null || !('events' in record)) return null;
  const events = record.events;
  const first = Array.isArray(events) ? (events[0] as unknown) : undefined;
  const parsed = first === undefined ? null : parseFirstEvent(first);
  return parsed?.success ? parsed.data.header : null;
}

export function createJournalFiles(context: StoreContext): JournalFiles {
  const { paths, plain, durable } = context;

  // Listing calls this for every session: without a thread-pool round trip when the file system can.
  const statusOf = plain.statusNow
    ? async (target: string) => plain.statusNow?.(target) ?? null
    : (target: string) => plain.status(target);

  /** `isDirectory`: the caller listed the folder as a real directory, so one status call (the journal's) suffices. */
  const locate = async (id: string, isDirectory = false): Promise<JournalLocation | null> => {
    // A session directory replaced by a symlink is never listed (nor read through).
    if (!isDirectory && !(await statusOf(paths.session(id)))?.isDirectory) return null;
    const journal = await statusOf(paths.inSession(id, JOURNAL));
    if (journal?.isFile)
      return { size: readableSize(journal, paths.inSession(id, JOURNAL)), archived: false, missing: false };
    const archived = await statusOf(paths.inSession(id, JOURNAL_ARCHIVED));
    if (archived?.isFile)
      return { size: readableSize(archived, paths.inSession(id, JOURNAL_ARCHIVED)), archived: true, missing: false };
    return { size: 0, archived: false, missing: true };
  };

  const readBytes = async (id: string): Promise<{ bytes: Buffer; file: string } | null> => {
    const location = await locate(id);
    if (!location || location.missing) return null;
    if (!location.archived) {
      const file = paths.inSession(id, JOURNAL);
      return { bytes: await plain.readFile(file), file };
    }
    const file = paths.inSession(id, JOURNAL_ARCHIVED);
    try {
      return { bytes: await gunzip(await plain.readFile(file)), file };
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return null;
      throw new JournalCorruptedError(
        { sessionId: id, file, offset: null, problem: 'the archive cannot be decompressed' },
        { cause: error },
      );
    }
  };

  const fromTail = async <T>(file: string, size: number, find: (tail: Buffer, start: number) => T | 'more') => {
    for (let length = TAIL_CHUNK; ; length *= 4) {
      const start = Math.max(0, size - length);
      const found = find(await plain.readRange(file, start, size - start), start);
      if (found !== 'more') return found;
    }
  };

  const readLastSummary = async (id: string, location: JournalLocation): Promise<SessionSummary | null> => {
    if (location.missing) return null;
    if (location.archived) {
      const journal = await readBytes(id);
      if (!journal) return null;
      return scanJournal(journal.bytes, {
        sessionId: id,
        file: journal.file,
        eventsWanted: false,
        summaryWanted: true,
        keyring: context.keyring,
      }).lastSummary;
    }
    const opening = { keyring: context.keyring, sessionId: id, file: paths.inSession(id, JOURNAL) };
    const found = await fromTail(paths.inSession(id, JOURNAL), location.size, (tail, start) =>
      lastRecordInTail(tail, start === 0, opening),
    );
    return found?.summary ?? null;
  };

  const committedEnd = async (id: string): Promise<CommittedEnd & { torn: boolean }> => {
    const file = paths.inSession(id, JOURNAL);
    const status = await plain.status(file);
    const size = status?.isFile ? status.size : 0;
    const found = await fromTail(file, size, (tail, start) => committedEndInTail(tail, start));
    if (found) return { ...found, torn: found.end < size };
    const scan = scanJournal(await plain.readFile(file), { sessionId: id, file, eventsWanted: false });
    return { end: scan.validLength, lastSeq: scan.lastSeq, torn: scan.torn !== null };
  };

  const headerFromJournal = async (id: string): Promise<SessionHeader | null> => {
    const location = await locate(id);
    if (!location || location.missing) return null;
    let head: Buffer;
    if (location.archived) head = (await readBytes(id))?.bytes ?? Buffer.alloc(0);
    else head = await plain.readRange(paths.inSession(id, JOURNAL), 0, Math.min(location.size, TAIL_CHUNK));
    let end = head.indexOf(0x0a);
    if (end === -1 && !location.archived && location.size > head.length) {
      head = await plain.readFile(paths.inSession(id, JOURNAL));
      end = head.indexOf(0x0a);
    }
    if (end === -1) return null;
    const verified = verifyFrame(head.subarray(0, end));
    const parsed = verified.ok ? parseBody(verified.body) : null;
    const file = paths.inSession(id, location.archived ? JOURNAL_ARCHIVED : JOURNAL);
    const opened = parsed?.ok
      ? openJournalRecord(parsed.value, { keyring: context.keyring, sessionId: id, file })
      : null;
    return opened?.ok ? headerInFirstRecord(opened.value) : null;
  };

  const cutTornTail = async (id: string, keptLength: number, cut: Buffer): Promise<string> => {
    const aside = paths.inSession(id, context.asideName(JOURNAL, 'torn'));
    const file = await durable.createExclusive(aside);
    try {
      await file.write(cut);
      await file.datasync();
    } finally {
      await file.close();
    }
    await plain
      .truncate(paths.inSession(id, JOURNAL), keptLength)
      .catch((error: unknown) => context.files.fatal(error, paths.inSession(id, JOURNAL)));
    await durable.syncDirectory(paths.session(id));
    return aside;
  };

  const unarchive = async (id: string) => {
    const location = await locate(id);
    if (!location?.archived) return;
    const journal = await readBytes(id);
    if (!journal) return;
    await writeFileAtomically(durable, paths.inSession(id, JOURNAL), journal.bytes);
    await plain.remove(paths.inSession(id, JOURNAL_ARCHIVED));
    for (const { name } of SNAPSHOT_NAMES.filter((snapshot) => snapshot.archived)) {
      const snapshot = await plain.status(paths.inSession(id, name));
      if (!snapshot?.isFile) continue;
      const content = await gunzip(await plain.readFile(paths.inSession(id, name))).catch(() => null);
      if (content) await writeFileAtomically(durable, paths.inSession(id, SNAPSHOT), content);
      await plain.remove(paths.inSession(id, name));
      break;
    }
    await durable.syncDirectory(paths.session(id));
  };

  return { locate, readBytes, readLastSummary, committedEnd, headerFromJournal, cutTornTail, unarchive, fromTail };
}
