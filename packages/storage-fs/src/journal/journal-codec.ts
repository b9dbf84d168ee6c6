// The journal file format: one framed line per committed batch, carrying the
// writer's lease epoch, the seq range, the events and the session summary after
// the batch (so the listing index can always be rebuilt from journals alone).
// Decoding finds the committed prefix: a torn tail is reported (never returned),
// damage before the last record is a JournalCorruptedError with file and offset.
import type { DataKey, Keyring } from '@resume/core/encryption';
import { checkedSafeParser, lazySchema } from '@resume/core/lazy-schema';
import {
  JournalCorruptedError,
  type JournalEvent,
  journalEventSchema,
  type SessionSummary,
  sessionSummarySchema,
  UnsupportedFormatError,
} from '@resume/core/spec';
import { z } from 'zod';
import { withCheckedEvents } from '../store/checked-parse.js';
import { journalPlace, openJournalRecord, type RecordOpening, sealedObjectJson } from '../store/sealing.js';
import { checkRecordHead, checkRecordSummary, checkTailRecord } from '../store/store-files-check.generated.js';
import { frameJson, frameObject, type LineFramer, parseBody, parseBodyBefore, verifyFrame } from './framing.js';

/** The framing version of journal records this code writes. */
export const JOURNAL_RECORD_VERSION = 1;

export interface JournalBatchRecord {
  epoch: number;
  events: JournalEvent[];
  summary: SessionSummary;
}

/**
 * A record a repair wrote in place of damaged records: it keeps the seq numbering, says
 * which events were lost and where their bytes were kept, and holds no events. Only written
 * when a valid snapshot still holds the state after them.
 */
const lostRecordSchema = lazySchema(() =>
  z.object({
    v: z.number().int().positive(),
    epoch: z.number().int().nonnegative(),
    first: z.number().int().positive(),
    last: z.number().int().positive(),
    lost: z.object({ reason: z.string(), savedTo: z.string().nullable() }),
  }),
);
export type LostRecord = z.infer<typeof lostRecordSchema>;

/** Encodes the record a repair writes in place of events it could not keep. */
export function encodeLost(record: Omit<LostRecord, 'v'>): Buffer {
  return frameObject({
    v: JOURNAL_RECORD_VERSION,
    epoch: record.epoch,
    first: record.first,
    last: record.last,
    lost: record.lost,
  });
}

// The schemas are built on first use: a valid record is accepted by its generated check
// (store-files-check.generated.ts), which needs no schema; zod sees only what it does not accept.
// Each is a view of part of a record: the record's other members pass through unread (loose).
/** A record as reading events checks it: everything but the summary. */
export const recordEventsSchema = lazySchema(() =>
  z.looseObject({
    v: z.number().int().positive(),
    epoch: z.number().int().nonnegative(),
    first: z.number().int().positive(),
    last: z.number().int().positive(),
    events: z.array(journalEventSchema).min(1),
  }),
);
/**
 * A record's head, its events left to the journal's own event check (`safeParseJournalEvent`):
 * the generated check of the store's files holds no second copy of every event's check, which a
 * process would compile again on its first read.
 */
export const recordHeadSchema = lazySchema(() => recordEventsSchema.extend({ events: z.array(z.unknown()).min(1) }));
/** The summary a record carries, checked where it is used. */
export const recordSummarySchema = lazySchema(() => z.looseObject({ summary: sessionSummarySchema }));
/** What the listing reads from a journal's last record. */
export const tailRecordSchema = lazySchema(() =>
  z.looseObject({ epoch: z.number().int(), last: z.number().int(), summary: sessionSummarySchema }),
);
// Records read back are validated (a checksum proves the bytes are what was written, not that what
// was written is valid for this version): by the generated check, zod for the rest. Reading
// events checks the record's head and every event; the summary each record carries is checked where
// it is used (the last one, for the listing: `decodeSummary`, `lastRecordInTail`), not on every read.
const parseRecord = withCheckedEvents(checkedSafeParser(recordHeadSchema, checkRecordHead));
const parseRecordSummary = checkedSafeParser(recordSummarySchema, checkRecordSummary);
const parseTailRecord = checkedSafeParser(tailRecordSchema, checkTailRecord);

/** The key a session's new records are sealed with, and the session (part of every record's place). */
export interface RecordSealing {
  key: DataKey;
  sessionId: string;
}

/**
 * Encodes one batch as one journal line (newline included). With `framer`, the line is framed in
 * its reused buffer (a view valid until its next use), as an append does. With `sealing`, the
 * events and the summary are sealed (store/sealing.ts); the head stays readable.
 */
export function encodeBatch(
  record: JournalBatchRecord,
  framer?: LineFramer | null,
  sealing?: RecordSealing | null,
): Buffer {
  const first = record.events[0];
  const last = record.events.at(-1);
  if (!first || !last) throw new TypeError('a batch holds at least one event');
  // Member order matters: the head (v, epoch, first, last) is read without parsing the whole line.
  const head = { v: JOURNAL_RECORD_VERSION, epoch: record.epoch, first: first.seq, last: last.seq };
  if (sealing) {
    const place = journalPlace(sealing.sessionId, first.seq, last.seq);
    const json = sealedObjectJson(sealing.key, place, head, { events: record.events, summary: record.summary });
    return framer ? framer.frameJson(json) : frameJson(json);
  }
  const framed = { ...head, events: record.events, summary: record.summary };
  return framer ? framer.frame(framed) : frameObject(framed);
}

const headPattern = /^"v":(\d+),"epoch":(\d+),"first":(\d+),"last":(\d+),/;

export interface TornTail {
  /** Byte offset where the incomplete or unreadable last record starts. */
  offset: number;
  length: number;
  problem: string;
}

export interface JournalScan {
  /** Events within the requested range, in seq order. */
  events: JournalEvent[];
  lastSeq: number;
  lastEpoch: number;
  /** Bytes of the committed prefix (complete, valid records). */
  validLength: number;
  /** The last committed record's summary, when asked for. */
  lastSummary: SessionSummary | null;
  torn: TornTail | null;
  records: number;
}

export interface ScanOptions {
  sessionId: string;
  /** For messages: the file the bytes came from. */
  file: string;
  fromSeq?: number;
  toSeq?: number;
  /** Skip decoding events (recovery and tail checks only need the framing and seqs). */
  eventsWanted?: boolean;
  summaryWanted?: boolean;
  /** When `buffer` is the journal from a record boundary on: the seq before its first record. */
  startSeq?: number;
  /** ...and the file offset `buffer` starts at (for error messages and torn-tail offsets). */
  baseOffset?: number;
  /** Opens sealed records (null or absent: a sealed record read is an EncryptionKeyUnavailableError). */
  keyring?: Keyring | null;
}

/** A committed record whose checksum and seq range were checked, its events not decoded yet. */
export interface CommittedRecord {
  /** Byte offset of the record in the file. */
  offset: number;
  /** The checksummed body (a view of the scanned buffer). */
  body: Buffer;
  first: number;
  last: number;
}

/** What decoding a record needs besides the record: how to open it and how to name damage. */
export interface RecordDecoding {
  opening: RecordOpening;
  corrupted: (offset: number, problem: string, cause?: unknown) => JournalCorruptedError;
}

/**
 * The events of one committed record, checked against their schema and numbering. A record a
 * repair wrote in place of lost events is damage here: the session's state after them comes from
 * its snapshot, not from its events.
 */
export function recordEvents(record: CommittedRecord, { opening, corrupted }: RecordDecoding): JournalEvent[] {
  const { offset, first, last } = record;
  const parsed = openedEvents(record.body, opening);
  // Only a record with a `lost` member can be one a repair wrote (most records are events).
  const lost = parsed.ok && hasLostMember(parsed.value) ? lostRecordSchema.safeParse(parsed.value) : null;
  if (lost?.success) {
    throw corrupted(
      offset,
      `events ${first}..${last} were lost to damage (${lost.data.lost.reason}; ${lost.data.lost.savedTo === null ? 'none of their bytes were left to keep' : `their bytes are in ${lost.data.lost.savedTo}`}); the session's state after them comes from its snapshot`,
    );
  }
  if (!parsed.ok) throw corrupted(offset, parsed.problem);
  const decoded = parseRecord(parsed.value);
  if (!decoded.success) throw corrupted(offset, `record does not match its schema`, decoded.error);
  const events = decoded.data.events;
  const seqsMatch =
    decoded.data.first === first &&
    decoded.data.last === last &&
    events.length === last - first + 1 &&
    events.every((event, index) => event.seq === first + index);
  if (!seqsMatch) throw corrupted(offset, 'record events are not numbered consecutively');
  return events;
}

/**
 * A journal's committed records from its end back to its start, each checked when it is reached
 * as `scanJournal` checks it: its checksum, its head, and that its seq range ends where the next
 * one's begins (the oldest's beginning at 1). As there, an unterminated last line, or a last line
 * failing its checksum, is a write a crash interrupted, never acknowledged: it is left out.
 */
export function* committedRecordsFromEnd(
  buffer: Buffer,
  file: string,
  corrupted: RecordDecoding['corrupted'],
): Generator<CommittedRecord> {
  // Bytes after the last newline are an unterminated line: never a committed record.
  let end = buffer.lastIndexOf(0x0a);
  /** Whether the line ending at `end` is the last and ends at the file's last byte (a torn write may be). */
  let mayBeTorn = end === buffer.length - 1;
  let newerFirst: number | null = null;
  while (end !== -1) {
    const start = end > 0 ? buffer.lastIndexOf(0x0a, end - 1) + 1 : 0;
    const record = framedRecord(buffer.subarray(start, end), start, mayBeTorn, file, corrupted);
    if (!('torn' in record)) {
      const { first, last } = record;
      if (last < first || (newerFirst !== null && last !== newerFirst - 1) || (start === 0 && first !== 1)) {
        const next = newerFirst === null ? 'the journal ends there' : `${newerFirst} comes next`;
        throw corrupted(start, `record holds events ${first}..${last} but ${next}`);
      }
      newerFirst = first;
      yield record;
    }
    mayBeTorn = false;
    end = start - 1;
  }
}

/**
 * The record on `line` (without its newline) at `offset`, its checksum and head checked. A line
 * failing its checksum that `mayBeTorn` (the file's last, ending at its last byte) is a write a
 * crash interrupted, never acknowledged: `torn` names its problem; anywhere else it is damage, as
 * is a last line holding two records whose newline between them was damaged.
 */
function framedRecord(
  line: Buffer,
  offset: number,
  mayBeTorn: boolean,
  file: string,
  corrupted: RecordDecoding['corrupted'],
): (CommittedRecord & { epoch: number }) | { torn: string } {
  const verified = verifyFrame(line);
  if (!verified.ok) {
    const joined = mayBeTorn ? damagedNewlineIn(line) : -1;
    if (joined !== -1)
      throw corrupted(offset + joined, 'the newline ending a committed record is damaged (two records run together)');
    if (!mayBeTorn) throw corrupted(offset, verified.problem);
    return { torn: verified.problem };
  }
  const head = headPattern.exec(verified.body.toString('latin1', 0, Math.min(verified.body.length, 96)));
  if (!head) throw corrupted(offset, 'record has no version, epoch or seq range');
  if (Number(head[1]) > JOURNAL_RECORD_VERSION) throw new UnsupportedFormatError(`Journal ${file}`, Number(head[1]));
  return { offset, body: verified.body, epoch: Number(head[2]), first: Number(head[3]), last: Number(head[4]) };
}

/** How damage in the journal `file` of session `sessionId` is reported (offsets from `baseOffset`). */
export function journalCorruption(where: { sessionId: string; file: string; baseOffset?: number }) {
  const baseOffset = where.baseOffset ?? 0;
  return (offset: number, problem: string, cause?: unknown): JournalCorruptedError =>
    new JournalCorruptedError(
      { sessionId: where.sessionId, file: where.file, offset: baseOffset + offset, problem },
      cause === undefined ? {} : { cause },
    );
}

/**
 * Decodes a whole journal. The last record may be incomplete or fail its checksum
 * (a write the crash interrupted): it is reported as `torn`, never returned.
 * Any bad record before the last one is corruption.
 */
export function scanJournal(buffer: Buffer, options: ScanOptions): JournalScan {
  const fromSeq = options.fromSeq ?? 1;
  const toSeq = options.toSeq ?? Number.POSITIVE_INFINITY;
  const eventsWanted = options.eventsWanted ?? true;
  const opening: RecordOpening = { keyring: options.keyring ?? null, sessionId: options.sessionId, file: options.file };
  const corrupted = journalCorruption(options);

  const decoding: RecordDecoding = { opening, corrupted };
  const events: JournalEvent[] = [];
  let lastSeq = options.startSeq ?? 0;
  let lastEpoch = 0;
  let lastBody: Buffer | null = null;
  let lastOffset = 0;
  let records = 0;
  let position = 0;
  let torn: TornTail | null = null;

  while (position < buffer.length) {
    const end = buffer.indexOf(0x0a, position);
    if (end === -1) {
      torn = { offset: position, length: buffer.length - position, problem: 'incomplete last record' };
      break;
    }
    const record = framedRecord(
      buffer.subarray(position, end),
      position,
      end === buffer.length - 1,
      options.file,
      corrupted,
    );
    if ('torn' in record) {
      torn = { offset: position, length: buffer.length - position, problem: record.torn };
      break;
    }
    const { epoch, first, last } = record;
    if (first !== lastSeq + 1 || last < first) {
      throw corrupted(position, `record holds events ${first}..${last} but ${lastSeq + 1} was next`);
    }
    if (eventsWanted && last >= fromSeq && first <= toSeq) {
      for (const event of recordEvents(record, decoding)) {
        if (event.seq >= fromSeq && event.seq <= toSeq) events.push(event);
      }
    }
    lastSeq = last;
    lastEpoch = epoch;
    lastBody = record.body;
    lastOffset = position;
    records += 1;
    position = end + 1;
  }

  let lastSummary: SessionSummary | null = null;
  if (options.summaryWanted && lastBody) {
    lastSummary = decodeSummary(lastBody, lastOffset, opening, corrupted);
  }
  return { events, lastSeq, lastEpoch, validLength: position, lastSummary, torn, records };
}

/** A record's body parsed, its sealed members opened. */
function openedBody(
  body: Buffer,
  opening: RecordOpening,
): { ok: true; value: unknown } | { ok: false; problem: string } {
  const parsed = parseBody(body);
  return parsed.ok ? openJournalRecord(parsed.value, opening) : parsed;
}

/** Where a record's events end and the summary it carries, its last member, begins. */
const summaryMember = Buffer.from('],"summary":{');

/**
 * A record's body parsed for reading its events: without the summary, which that read does not
 * check (a quarter of the text of a record of one small event). In JSON text a quote after a
 * comma is never inside a string, so the last `],"summary":{` is a member of an object; when the
 * text before it is not an object by itself, that object was not the record and the whole body
 * is parsed.
 */
function openedEvents(
  body: Buffer,
  opening: RecordOpening,
): { ok: true; value: unknown } | { ok: false; problem: string } {
  const summaryAt = body.lastIndexOf(summaryMember);
  const head = summaryAt === -1 ? null : parseBodyBefore(body, summaryAt + 1);
  return head?.ok ? openJournalRecord(head.value, opening) : openedBody(body, opening);
}

function decodeSummary(
  body: Buffer,
  offset: number,
  opening: RecordOpening,
  corrupted: (offset: number, problem: string, cause?: unknown) => JournalCorruptedError,
): SessionSummary {
  const parsed = openedBody(body, opening);
  const summary = parsed.ok ? parseRecordSummary(parsed.value) : null;
  if (!parsed.ok) throw corrupted(offset, parsed.problem);
  if (!summary?.success) throw corrupted(offset, 'the last record has no valid summary');
  return summary.data.summary;
}

export interface TailRecord {
  epoch: number;
  lastSeq: number;
  summary: SessionSummary;
}

/**
 * Finds the last committed record by reading only the end of a journal (the listing
 * index uses it to refresh one session without reading its whole history).
 * Returns null when the journal has no committed record, `more` when the tail
 * given does not reach back far enough.
 */
export function lastRecordInTail(
  tail: Buffer,
  startsAtFileStart: boolean,
  opening: RecordOpening = { keyring: null, sessionId: '', file: 'journal.jsonl' },
): TailRecord | null | 'more' {
  let end = tail.lastIndexOf(0x0a);
  while (end !== -1) {
    const start = end === 0 ? 0 : tail.lastIndexOf(0x0a, end - 1) + 1;
    if (start === 0 && !startsAtFileStart) return 'more';
    const verified = verifyFrame(tail.subarray(start, end));
    if (verified.ok) {
      const parsed = openedBody(verified.body, opening);
      const record = parsed.ok ? parseTailRecord(parsed.value) : null;
      if (record?.success) return { epoch: record.data.epoch, lastSeq: record.data.last, summary: record.data.summary };
    }
    end = start - 1;
  }
  return startsAtFileStart ? null : 'more';
}

export interface CommittedTail {
  /** File offset just past the last committed record. */
  end: number;
  lastSeq: number;
}

/**
 * Finds where the committed prefix ends by reading only the end of a journal, for a
 * writer taking over: past the last valid record there may be one torn record (a
 * complete line failing its checksum) and/or an unterminated fragment. Anything less
 * ordinary returns null and the caller scans the whole file; `more` asks for a longer tail.
 */
export function committedEndInTail(tail: Buffer, tailStart: number): CommittedTail | null | 'more' {
  let end = tail.lastIndexOf(0x0a);
  let skippedBadLine = false;
  while (end !== -1) {
    const start = end === 0 ? 0 : tail.lastIndexOf(0x0a, end - 1) + 1;
    if (start === 0 && tailStart !== 0) return 'more';
    const verified = verifyFrame(tail.subarray(start, end));
    if (verified.ok) {
      const head = headPattern.exec(verified.body.toString('latin1', 0, Math.min(verified.body.length, 96)));
      if (!head) return null;
      return { end: tailStart + end + 1, lastSeq: Number(head[4]) };
    }
    // Two records run together (a damaged newline) is damage, never a torn tail: the whole file is checked.
    if (skippedBadLine || damagedNewlineIn(tail.subarray(start, end)) !== -1) return null;
    skippedBadLine = true;
    end = start - 1;
  }
  return tailStart === 0 && !skippedBadLine ? { end: 0, lastSeq: 0 } : tailStart === 0 ? null : 'more';
}

const sealedHeadPattern =
  /^\{"crc":"[0-9a-f]{8}","v":\d+,"epoch":\d+,"first":\d+,"last":\d+,"key":"([^"\\]+)","sealed":"/;

/**
 * The key id the last record of `tail` (a journal's bytes up to a record's end) was sealed with;
 * null when it is not sealed; `more` when the tail does not reach back to the record's start.
 */
export function keyOfLastRecord(tail: Buffer, startsAtFileStart: boolean): string | null | 'more' {
  if (tail.length === 0) return null;
  const start = tail.lastIndexOf(0x0a, tail.length - 2) + 1;
  if (start === 0 && !startsAtFileStart) return 'more';
  const head = sealedHeadPattern.exec(tail.toString('latin1', start, Math.min(tail.length, start + 200)));
  return head?.[1] ?? null;
}

export interface RecordHead {
  /** Offset (in the buffer) where the record's line starts. */
  start: number;
  first: number;
  last: number;
}

/**
 * The record whose line ends with the newline at `newlineIndex` of `buffer`: its start and
 * seq range, after checking its checksum. `more` when the buffer does not reach back to the
 * line's start; null when there is no valid record there.
 */
export function recordEndingAt(
  buffer: Buffer,
  newlineIndex: number,
  startsAtFileStart: boolean,
): RecordHead | null | 'more' {
  if (newlineIndex < 0 || buffer[newlineIndex] !== 0x0a) return null;
  const start = newlineIndex === 0 ? 0 : buffer.lastIndexOf(0x0a, newlineIndex - 1) + 1;
  if (start === 0 && !startsAtFileStart) return 'more';
  const verified = verifyFrame(buffer.subarray(start, newlineIndex));
  if (!verified.ok) return null;
  const head = headPattern.exec(verified.body.toString('latin1', 0, Math.min(verified.body.length, 96)));
  if (!head) return null;
  return { start, first: Number(head[3]), last: Number(head[4]) };
}

const recordStart = Buffer.from('{"crc":"');

/**
 * Where a line that fails its checksum is really a committed record followed by another
 * one whose newline between them was damaged: the index of that byte, or -1. (`{"crc":"`
 * never occurs inside a record, JSON escapes its quotes, so it marks record starts.)
 */
export function damagedNewlineIn(line: Buffer): number {
  for (let start = line.indexOf(recordStart, 1); start !== -1; start = line.indexOf(recordStart, start + 1)) {
    if (verifyFrame(line.subarray(0, start - 1)).ok) return start - 1;
  }
  return -1;
}

function hasLostMember(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Object.hasOwn(value, 'lost');
}

/** Whether a record (its checksummed body) is a lost-events record a repair wrote. */
export function isLostRecord(body: Buffer): boolean {
  const parsed = parseBody(body);
  return parsed.ok && hasLostMember(parsed.value) && lostRecordSchema.safeParse(parsed.value).success;
}
