// Reads a journal line by line without giving up at the first damage, for `verify` and
// `repair`: which records are intact, where damage is, and the longest history that can
// be proven. A valid snapshot proves the state up to its event, so when the damage lies
// before the record holding that event and the records from there on are intact, the
// damaged records are replaced by one record of their loss and everything after is kept;
// otherwise the journal is kept up to the first damage. A newline damaged between two
// intact records is simply restored.
import { parseBody, verifyFrame } from '../journal/framing.js';
import { damagedNewlineIn, encodeLost, isLostRecord } from '../journal/journal-codec.js';
import { openJournalRecord, type RecordOpening } from '../store/sealing.js';

const headPattern = /^"v":(\d+),"epoch":(\d+),"first":(\d+),"last":(\d+),/;

interface RecordLine {
  offset: number;
  /** The record's bytes with its newline (restored when it was damaged). */
  bytes: Buffer;
  first: number;
  last: number;
  epoch: number;
  lost: boolean;
}

export interface DamagedRange {
  offset: number;
  length: number;
  problem: string;
}

export interface JournalAnalysis {
  /** Records that read back intact, in file order. */
  records: RecordLine[];
  damaged: DamagedRange[];
  /** Newlines that were damaged between two intact records (restored by a repair). */
  restoredNewlines: number[];
  /** An unfinished last write (no newline): cut by any writer, reported by verify. */
  tornTail: DamagedRange | null;
}

/**
 * With `opening`, a sealed record is intact only when it opens (its tag holds where it lies);
 * a key the keyring lacks is an EncryptionKeyUnavailableError: nothing is judged without it.
 */
export function analyzeJournal(bytes: Buffer, opening?: RecordOpening): JournalAnalysis {
  const records: RecordLine[] = [];
  const damaged: DamagedRange[] = [];
  const restoredNewlines: number[] = [];
  let tornTail: DamagedRange | null = null;
  const take = (offset: number, line: Buffer): string | null => {
    const verified = verifyFrame(line);
    if (!verified.ok) return verified.problem;
    const head = headPattern.exec(verified.body.toString('latin1', 0, Math.min(verified.body.length, 96)));
    if (!head) return 'record has no version, epoch or seq range';
    if (opening) {
      const parsed = parseBody(verified.body);
      const opened = parsed.ok ? openJournalRecord(parsed.value, opening) : parsed;
      if (!opened.ok) return opened.problem;
    }
    records.push({
      offset,
      bytes: Buffer.concat([line, Buffer.from('\n')]),
      epoch: Number(head[2]),
      first: Number(head[3]),
      last: Number(head[4]),
      lost: isLostRecord(verified.body),
    });
    return null;
  };
  let position = 0;
  while (position < bytes.length) {
    const end = bytes.indexOf(0x0a, position);
    if (end === -1) {
      if (take(position, bytes.subarray(position)) !== null) {
        tornTail = { offset: position, length: bytes.length - position, problem: 'unfinished last write' };
      }
      break;
    }
    const line = bytes.subarray(position, end);
    const problem = take(position, line);
    if (problem !== null) {
      const joined = damagedNewlineIn(line);
      if (joined !== -1 && take(position, line.subarray(0, joined)) === null) {
        restoredNewlines.push(position + joined);
        const rest = take(position + joined + 1, line.subarray(joined + 1));
        if (rest !== null)
          damaged.push({ offset: position + joined + 1, length: end - position - joined, problem: rest });
      } else {
        damaged.push({ offset: position, length: end + 1 - position, problem });
      }
    }
    position = end + 1;
  }
  return { records, damaged, restoredNewlines, tornTail };
}

/**
 * Which events a damaged range held, as far as the intact records around it tell:
 * `events 11..13`, `event 11`, `events after 10` (nothing intact follows it) or `no events`.
 */
export function damagedEvents(analysis: JournalAnalysis, range: DamagedRange): string {
  let before = 0;
  let after: number | null = null;
  for (const record of analysis.records) {
    if (record.offset < range.offset) before = Math.max(before, record.last);
    else after ??= record.first;
  }
  if (after === null) return `events after ${before}`;
  if (after - 1 === before + 1) return `event ${before + 1}`;
  return after - 1 > before ? `events ${before + 1}..${after - 1}` : 'no events';
}

/** Whether damage lies after every intact record: the events it held are not known to anything else. */
export function damagedAtEnd(analysis: JournalAnalysis): boolean {
  const lastRecord = analysis.records.at(-1);
  return analysis.damaged.some((range) => lastRecord === undefined || range.offset > lastRecord.offset);
}

export interface JournalRepairPlan {
  /** The repaired journal's bytes. */
  bytes: Buffer;
  keptSeq: number;
  /** Events replaced by a record of their loss (the snapshot holds the state after them). */
  lost: { first: number; last: number } | null;
  /** Events that were in the journal (or known from the snapshot) and are gone after the repair. */
  dropped: { first: number; last: number | null } | null;
  /** Offset of the snapshot's event end in the repaired journal, when the snapshot stays valid. */
  snapshotOffset: number | null;
}

/** The longest provable history: the intact prefix, extended over one hole when the snapshot proves what follows it. */
export function planJournalRepair(
  analysis: JournalAnalysis,
  snapshotSeq: number | null,
  savedTo: string | null,
): JournalRepairPlan {
  const kept: Buffer[] = [];
  let keptSeq = 0;
  let index = 0;
  /** Where the last record kept as it was starts in the original journal. */
  let lastKeptOffset = -1;
  const records = analysis.records;
  for (; index < records.length; index += 1) {
    const record = records[index] as RecordLine;
    if (record.first !== keptSeq + 1 || record.last < record.first) break;
    kept.push(record.bytes);
    keptSeq = record.last;
    lastKeptOffset = record.offset;
  }
  let lost: JournalRepairPlan['lost'] = null;
  // A hole: intact records resume after damage; they count only if the snapshot proves the state across it.
  const resume = records.slice(index).findIndex((record, position, rest) => {
    if (record.first <= keptSeq) return false;
    let seq = record.first - 1;
    for (const next of rest.slice(position)) {
      if (next.first !== seq + 1) break;
      seq = next.last;
      if (next.last === snapshotSeq && !next.lost) return true;
    }
    return false;
  });
  if (snapshotSeq !== null && snapshotSeq > keptSeq && resume !== -1) {
    const first = records[index + resume] as RecordLine;
    lost = { first: keptSeq + 1, last: first.first - 1 };
    const lastKept = records[index - 1];
    kept.push(
      encodeLost({
        epoch: lastKept?.epoch ?? first.epoch,
        first: lost.first,
        last: lost.last,
        lost: { reason: 'the records holding them were damaged', savedTo },
      }),
    );
    keptSeq = lost.last;
    for (index += resume; index < records.length; index += 1) {
      const record = records[index] as RecordLine;
      if (record.first !== keptSeq + 1) break;
      kept.push(record.bytes);
      keptSeq = record.last;
      lastKeptOffset = record.offset;
    }
  }
  const knownEnd = Math.max(records.at(-1)?.last ?? 0, snapshotSeq ?? 0);
  const bytes = Buffer.concat(kept);
  let snapshotOffset: number | null = null;
  if (snapshotSeq !== null && snapshotSeq <= keptSeq) {
    let offset = 0;
    for (const line of kept) {
      offset += line.length;
      if (headOf(line)?.last === snapshotSeq) snapshotOffset = offset;
    }
  }
  return {
    bytes,
    keptSeq,
    lost,
    // Damage the kept records surround (recorded as lost) drops nothing; damage after them held later events.
    dropped:
      knownEnd > keptSeq || analysis.damaged.some((range) => range.offset > lastKeptOffset)
        ? { first: keptSeq + 1, last: knownEnd > keptSeq ? knownEnd : null }
        : null,
    snapshotOffset,
  };
}

function headOf(line: Buffer): { last: number } | null {
  const verified = verifyFrame(line.subarray(0, line.length - 1));
  if (!verified.ok) return null;
  const head = headPattern.exec(verified.body.toString('latin1', 0, Math.min(verified.body.length, 96)));
  return head ? { last: Number(head[4]) } : null;
}
