// Whole-session checks and repairs. `verify` reads every file of a session in full and
// names each problem with its file and offset; `repair` (or its dry run) rebuilds what
// can be rebuilt: the header from the journal's first record (or the journal's first
// record from the header), the longest provable journal (see journal-analysis.ts), and
// the snapshot re-pointed at it or removed. Anything removed is kept beside the journal
// first, and everything known to have existed beyond what is kept (the snapshot, the
// listing index, the last writer's lease) is reported as dropped, never hidden.
// A repair holds the session's writer lease while it works.
import { hostname } from 'node:os';
import { crc32 } from 'node:zlib';
import { lazySchema } from '@resume/core/lazy-schema';
import {
  EncryptionKeyUnavailableError,
  type IntegrityProblem,
  JournalCorruptedError,
  journalEventSchema,
  type RepairReport,
  type SessionHeader,
  SessionLockedError,
  type SessionSummary,
  sessionHeaderSchema,
  sessionSummarySchema,
  type VerifyReport,
} from '@resume/core/spec';
import { z } from 'zod';
import { writeFileAtomically } from '../file-system/atomic-write.js';
import type { HeaderFiles } from '../header/header-file.js';
import type { Damage, IndexEntry, InspectedSession, JournalLocation, SummaryIndex } from '../index/summary-index.js';
import { unframe } from '../journal/framing.js';
import type { JournalAppender } from '../journal/journal-appender.js';
import { encodeBatch, encodeLost, lastRecordInTail, type RecordSealing } from '../journal/journal-codec.js';
import { headerInFirstRecord, type JournalFiles } from '../journal/journal-files.js';
import { stepsStartedIn } from '../journal/lost-steps.js';
import { acquireLease, currentEpoch, inspectLease, latestLease, liveHolder } from '../lease/lease-files.js';
import type { SnapshotFiles, StoredSnapshot } from '../snapshot/snapshot-files.js';
import type { Layout } from '../store/layout.js';
import { openJournalRecord, type RecordOpening } from '../store/sealing.js';
import type { StoreContext } from '../store/store-context.js';
import { HEADER, JOURNAL, LEASE_DIRECTORY, LEGACY_SNAPSHOT, SNAPSHOT, SNAPSHOT_NAMES } from '../store/store-paths.js';
import {
  analyzeJournal,
  damagedAtEnd,
  damagedEvents,
  type JournalAnalysis,
  planJournalRepair,
} from './journal-analysis.js';
import { summaryFromHeader } from './placeholder-summary.js';

export interface SessionMaintenance {
  verify(sessionId: string): Promise<VerifyReport>;
  repair(sessionId: string, options?: { dryRun?: boolean }): Promise<RepairReport>;
  /** What the listing index keeps of a session: its summary and any damage seen without reading its history. */
  inspectForIndex(sessionId: string, location: JournalLocation, known: IndexEntry | null): Promise<InspectedSession>;
}

export interface MaintenanceParts {
  layout: Layout;
  journals: JournalFiles;
  headers: HeaderFiles;
  snapshots: SnapshotFiles;
  appender: JournalAppender;
  index: () => SummaryIndex;
}

const snapshotHeaderSchema = lazySchema(() => z.object({ header: sessionHeaderSchema }));

/** Evidence of how far the journal went: what other files remember of it. */
interface Evidence {
  seq: number;
  source: string;
  file: string;
}

export function createSessionMaintenance(context: StoreContext, parts: MaintenanceParts): SessionMaintenance {
  const { paths, plain } = context;
  const { layout, journals, headers, snapshots, appender } = parts;
  const journalFile = (id: string) => paths.inSession(id, JOURNAL);
  const leaseDirectory = (id: string) => paths.inSession(id, LEASE_DIRECTORY);

  const evidenceOf = async (id: string): Promise<Evidence[]> => {
    const found: Evidence[] = [];
    const snapshot = await snapshots.readFile(id);
    if (snapshot)
      found.push({ seq: snapshot.snapshot.seq, source: 'its snapshot', file: paths.inSession(id, snapshot.name) });
    const entry = await parts.index().known(id);
    if (entry?.summary) found.push({ seq: entry.summary.lastSeq, source: 'the listing index', file: paths.indexFile });
    const lease = await latestLease(plain, leaseDirectory(id)).catch(() => null);
    if (lease?.lastSeq !== undefined) {
      found.push({ seq: lease.lastSeq, source: 'its last writer', file: leaseDirectory(id) });
    }
    return found;
  };

  /** How this session's sealed records are opened, and sealed when a repair writes one. */
  const openingOf = (id: string): RecordOpening => ({ keyring: context.keyring, sessionId: id, file: journalFile(id) });
  const sealingOf = (id: string): RecordSealing | null => {
    const key = context.keyring?.current() ?? null;
    return key && { key, sessionId: id };
  };
  /** Throws EncryptionKeyUnavailableError, before anything is touched, when a file of the session needs a key not held. */
  const requireKeys = async (id: string): Promise<void> => {
    analyzeJournal((await journalOf(id)).bytes, openingOf(id));
    await headers.readFile(id);
    await snapshots.readFile(id);
  };

  const journalOf = async (id: string): Promise<{ bytes: Buffer; file: string; missing: boolean }> => {
    const journal = await journals.readBytes(id);
    return journal ? { ...journal, missing: false } : { bytes: Buffer.alloc(0), file: journalFile(id), missing: true };
  };

  const verify = async (id: string): Promise<VerifyReport> => {
    await layout.require(id);
    const problems: IntegrityProblem[] = [];
    const headerFile = await headers.readFile(id);
    if (headerFile.kind === 'missing')
      problems.push({ file: paths.inSession(id, HEADER), offset: null, problem: 'header.json is missing' });
    if (headerFile.kind === 'damaged')
      problems.push({ file: paths.inSession(id, HEADER), offset: 0, problem: headerFile.problem });
    const fromJournal = await journals.headerFromJournal(id).catch(() => null);
    if (headerFile.kind === 'ok' && headerFile.header.id !== id) {
      problems.push({
        file: paths.inSession(id, HEADER),
        offset: 0,
        problem: `it names session ${headerFile.header.id}`,
      });
    }
    if (fromJournal && fromJournal.id !== id) {
      problems.push({ file: journalFile(id), offset: 0, problem: `the journal belongs to session ${fromJournal.id}` });
    }
    const journal = await journalOf(id);
    if (journal.missing) problems.push({ file: journal.file, offset: null, problem: 'the journal is missing' });
    const analysis = analyzeJournal(journal.bytes, openingOf(id));
    for (const range of analysis.damaged) {
      problems.push({
        file: journal.file,
        offset: range.offset,
        problem: `the record at byte ${range.offset} (${damagedEvents(analysis, range)}) is damaged: ${range.problem} (${range.length} bytes)`,
      });
    }
    for (const offset of analysis.restoredNewlines) {
      problems.push({ file: journal.file, offset, problem: 'the newline between two records is damaged' });
    }
    const plan = planJournalRepair(analysis, null, null);
    const lastRecord = analysis.records.at(-1);
    if (lastRecord && plan.keptSeq < lastRecord.last && analysis.damaged.length === 0) {
      problems.push({
        file: journal.file,
        offset: null,
        problem: `the events after ${plan.keptSeq} are not numbered in order`,
      });
    }
    if (!journal.missing && analysis.records.length === 0 && analysis.damaged.length === 0) {
      problems.push({ file: journal.file, offset: null, problem: 'the journal is empty' });
    }
    const damagedSnapshot = (await snapshots.readFile(id)) ? null : await damagedSnapshotName(id);
    if (damagedSnapshot && !damagedSnapshot.archived) {
      problems.push({
        file: paths.inSession(id, damagedSnapshot.name),
        offset: null,
        problem: 'the snapshot is damaged (opening ignores it and replays the journal; a repair moves it aside)',
      });
    }
    if (problems.length === 0) {
      await snapshots.get(id).catch((error: unknown) => {
        if (!JournalCorruptedError.isInstance(error)) throw error;
        problems.push({ file: error.file, offset: error.offset, problem: error.message });
      });
    }
    // The journal was cut when its intact records end short of what other files knew; damage after
    // the last intact record is reported above with the events it held, not as a cut.
    const readableEnd = Math.max(plan.keptSeq, lastRecord?.last ?? 0);
    for (const evidence of damagedAtEnd(analysis) ? [] : await evidenceOf(id)) {
      if (evidence.seq > readableEnd) {
        problems.push({
          file: journal.file,
          offset: null,
          problem: `the journal ends at event ${readableEnd} but ${evidence.source} knew ${evidence.seq}: it was cut`,
        });
      }
    }
    return { sessionId: id, lastSeq: plan.keptSeq, problems: dedupe(problems) };
  };

  /** The header to keep: header.json when it is sound, else rebuilt from the journal or the snapshot. */
  const headerFor = async (
    id: string,
    journalBytes: Buffer,
  ): Promise<{ header: SessionHeader | null; rewrite: string | null }> => {
    const file = await headers.readFile(id);
    if (file.kind === 'ok' && file.header.id === id) return { header: file.header, rewrite: null };
    const why =
      file.kind === 'missing'
        ? 'it was missing'
        : file.kind === 'damaged'
          ? file.problem
          : `it named session ${file.header.id}`;
    const fromJournal = firstHeader(journalBytes, openingOf(id));
    if (fromJournal?.id === id)
      return { header: fromJournal, rewrite: `rebuilt from the journal's first record (${why})` };
    const snapshot = await snapshots.readFile(id);
    const fromSnapshot = snapshotHeaderSchema.safeParse(snapshot?.snapshot.state);
    if (fromSnapshot.success && fromSnapshot.data.header.id === id) {
      return { header: fromSnapshot.data.header, rewrite: `rebuilt from the snapshot (${why})` };
    }
    return { header: null, rewrite: null };
  };

  /** The snapshot file a read would use, when reading it found none sound: it exists but fails its checks. */
  const damagedSnapshotName = async (id: string): Promise<(typeof SNAPSHOT_NAMES)[number] | null> => {
    for (const snapshot of SNAPSHOT_NAMES) {
      const status = await plain.status(paths.inSession(id, snapshot.name));
      if (status?.isFile) return snapshot;
      if (status) return null;
    }
    return null;
  };

  /** The session's files that exist as something other than a regular file (a directory, a symlink). */
  const nonFiles = async (id: string): Promise<string[]> => {
    const found: string[] = [];
    for (const name of [HEADER, JOURNAL, SNAPSHOT, LEGACY_SNAPSHOT]) {
      const status = await plain.status(paths.inSession(id, name));
      if (status && !status.isFile) found.push(name);
    }
    return found;
  };

  const repairNow = async (id: string, dryRun: boolean): Promise<RepairReport> => {
    await appender.drop(id);
    snapshots.forget(id);
    if (!dryRun) await journals.unarchive(id);
    const journal = await journalOf(id);
    const analysis: JournalAnalysis = analyzeJournal(journal.bytes, openingOf(id));
    const snapshot = await snapshots.readFile(id);
    const savedTo = paths.inSession(id, context.asideName(JOURNAL, 'damaged'));
    const savedFor = (bytes: Buffer) => (bytes.length > 0 ? savedTo : null);
    const plan = planJournalRepair(analysis, snapshot?.snapshot.seq ?? null, savedTo);
    const { header, rewrite } = await headerFor(id, plan.bytes.length > 0 ? plan.bytes : journal.bytes);
    const actions: string[] = [];
    let bytes = plan.bytes;
    let keptSeq = plan.keptSeq;
    if (keptSeq === 0 && header) {
      // Nothing of the journal survives: the session's creation is rebuilt from its header.
      bytes = creationRecord(header, sealingOf(id));
      keptSeq = 1;
      actions.push(
        `journal.jsonl: ${journal.missing ? 'recreated' : 'rebuilt'} with the session's creation from its header`,
      );
    }
    if (rewrite) actions.push(`header.json: ${rewrite}`);
    // The journal itself proves events up to here; a snapshot beyond it still proves the state after its event.
    const provenSeq = keptSeq;
    const restored =
      snapshot && keptSeq > 0
        ? restoredFromSnapshot(
            id,
            snapshot,
            keptSeq,
            epochAt(analysis, keptSeq),
            savedFor(journal.bytes),
            sealingOf(id),
          )
        : null;
    if (restored) {
      bytes = Buffer.concat([bytes, restored.bytes]);
      keptSeq = restored.seq;
    }
    const journalChanged = !bytes.equals(journal.bytes);
    const removedBytes = journalChanged ? Math.max(0, journal.bytes.length - bytesKeptOf(analysis, provenSeq)) : 0;
    if (journalChanged) {
      for (const offset of analysis.restoredNewlines)
        actions.push(`journal.jsonl: restore the damaged newline at byte ${offset}`);
      for (const range of analysis.damaged) {
        actions.push(`journal.jsonl: drop ${range.length} damaged bytes at byte ${range.offset} (${range.problem})`);
      }
      if (plan.lost) {
        actions.push(
          `journal.jsonl: events ${plan.lost.first}..${plan.lost.last} are unreadable; they are recorded as lost and the snapshot at event ${snapshot?.snapshot.seq} keeps the state after them`,
        );
      }
      if (analysis.tornTail)
        actions.push(`journal.jsonl: cut an unfinished last write of ${analysis.tornTail.length} bytes`);
      if (restored) {
        const lost = restored.lost
          ? `events ${restored.lost.first}..${restored.lost.last} themselves are recorded as lost, event ${restored.seq} as restored from the snapshot`
          : `event ${restored.seq} is recorded as restored from the snapshot`;
        actions.push(
          `journal.jsonl: the state after event ${restored.seq} (messages, usage, status) is rebuilt from ${snapshot?.name}; ${lost}${restored.summaryKept ? '' : ' (the snapshot kept no listing summary: the session lists with its header until it is written again)'}`,
        );
      }
      if (journal.bytes.length > 0) actions.push(`the journal as it was is kept in ${savedTo}`);
    }
    const evidence = await evidenceOf(id);
    // What the kept journal (with what the snapshot restores) now reaches is not dropped.
    const dropped = plan.dropped && (plan.dropped.last === null || plan.dropped.last > keptSeq) ? plan.dropped : null;
    const knownEnd = Math.max(dropped?.last ?? 0, ...evidence.map((item) => item.seq));
    const droppedEvents =
      knownEnd > keptSeq || dropped ? { first: keptSeq + 1, last: knownEnd > keptSeq ? knownEnd : null } : null;
    if (droppedEvents) {
      const which =
        droppedEvents.last === null
          ? `after ${keptSeq} (those the damaged bytes held)`
          : `${droppedEvents.first}..${droppedEvents.last}`;
      const sources = evidence.filter((item) => item.seq > keptSeq).map((item) => item.source);
      actions.push(
        `events ${which} cannot be kept${sources.length > 0 ? ` (known from ${sources.join(', ')})` : ''}; the session continues from event ${keptSeq}`,
      );
    }
    const snapshotOffset = restored ? bytes.length : plan.snapshotOffset;
    const snapshotAction = !snapshot
      ? null
      : snapshot.snapshot.seq > keptSeq || (journalChanged && snapshotOffset === null)
        ? 'remove'
        : journalChanged || snapshot.archived
          ? 'repoint'
          : null;
    if (snapshotAction === 'remove')
      actions.push(`${snapshot?.name}: remove (the journal no longer holds event ${snapshot?.snapshot.seq})`);
    if (snapshotAction === 'repoint') actions.push(`${snapshot?.name}: point it at the repaired journal`);
    // A snapshot that fails its own checks is only derived data: the journal holds everything it summarized.
    const damagedSnapshot = snapshot ? null : (await damagedSnapshotName(id))?.name;
    const snapshotAside = damagedSnapshot && paths.inSession(id, context.asideName(damagedSnapshot, 'damaged'));
    if (damagedSnapshot) {
      actions.push(
        `${damagedSnapshot}: damaged; dropped (moved aside to ${snapshotAside}); the journal holds everything it summarized and the next writer takes a new one`,
      );
    }
    const report: RepairReport = {
      sessionId: id,
      keptSeq,
      removedBytes,
      savedTo: journalChanged && journal.bytes.length > 0 ? savedTo : null,
      dryRun,
      actions,
      droppedEvents,
      lostSteps: journalChanged
        ? stepsStartedIn(removedPart(journal.bytes, analysis, keptSeq, plan.lost ?? restored?.lost ?? null))
        : [],
    };
    const misplaced = await nonFiles(id);
    for (const name of misplaced) actions.push(`${name}: not a regular file; it is moved aside`);
    if (dryRun || actions.length === 0) return report;
    // A directory or link where a file belongs is moved aside, never written through.
    for (const name of misplaced)
      await plain.rename(paths.inSession(id, name), paths.inSession(id, context.asideName(name, 'replaced')));

    if (journalChanged) {
      if (journal.bytes.length > 0) await writeFileAtomically(context.durable, savedTo, journal.bytes);
      await writeFileAtomically(context.durable, journalFile(id), bytes);
    }
    if (rewrite && header) await headers.write(id, header);
    if (damagedSnapshot && snapshotAside) await plain.rename(paths.inSession(id, damagedSnapshot), snapshotAside);
    if (snapshot && snapshotAction === 'remove') {
      for (const { name } of SNAPSHOT_NAMES) await plain.remove(paths.inSession(id, name)).catch(() => {});
    }
    if (snapshot && snapshotAction === 'repoint' && snapshotOffset !== null) {
      await snapshots.write(id, {
        ...snapshot.snapshot,
        // Not the replay log: an ordered replay needs the journal's own records, which the repair may have lost.
        operations: undefined,
        journalOffset: snapshotOffset,
        journalCrc: crc32(bytes.subarray(0, snapshotOffset)),
      });
    }
    const summary = lastSummaryOf(bytes, openingOf(id)) ?? summaryFromHeader(id, header);
    parts.index().record({ id, summary, journalSize: bytes.length, archived: false, damage: null, missing: [] });
    await parts
      .index()
      .save()
      .catch(() => {});
    return report;
  };

  const repair = async (id: string, options: { dryRun?: boolean } = {}): Promise<RepairReport> => {
    context.files.refuseIfBroken();
    await layout.require(id);
    await layout.requireDirectory(leaseDirectory(id));
    const dryRun = options.dryRun ?? false;
    if (dryRun) {
      const { record } = await liveHolder(context.lease, leaseDirectory(id));
      if (record) throw new SessionLockedError(id, { pid: record.pid, host: record.host, since: record.since });
      return context.exclusive(id, () => repairNow(id, true));
    }
    await requireKeys(id);
    // The repair is the session's writer while it works; its release records where the journal now ends.
    const held = await acquireLease(context.lease, id, leaseDirectory(id), { pid: process.pid, host: hostname() });
    let keptSeq: number | undefined;
    try {
      const report = await context.exclusive(id, () => parts.index().whileWriting(id, () => repairNow(id, false)));
      keptSeq = report.keptSeq;
      return report;
    } finally {
      await held.release(keptSeq).catch(() => {});
    }
  };

  /** What a listing shows of a session encrypted with a key the store does not hold: its id and dates. */
  const lockedSummary = async (id: string, keyId: string): Promise<SessionSummary> => {
    const placeholder = summaryFromHeader(id, null);
    const modifiedMs = (await plain.status(journalFile(id)).catch(() => null))?.modifiedMs;
    const updatedAt = modifiedMs === undefined ? placeholder.updatedAt : new Date(modifiedMs).toISOString();
    return { ...placeholder, title: `encrypted (key ${keyId} not available)`, updatedAt, locked: { key: keyId } };
  };

  const inspectForIndex = async (
    id: string,
    location: JournalLocation,
    known: IndexEntry | null,
  ): Promise<InspectedSession> => {
    let summary: SessionSummary | null = null;
    let damage: Damage | null = null;
    try {
      summary = await journals.readLastSummary(id, location);
    } catch (error) {
      if (EncryptionKeyUnavailableError.isInstance(error))
        return { summary: await lockedSummary(id, error.keyId), damage: null };
      if (!JournalCorruptedError.isInstance(error)) throw error;
      damage = { problem: error.message, file: error.file };
    }
    if (location.missing) damage ??= { problem: 'the journal is missing', file: journalFile(id) };
    else if (summary === null && !damage) {
      // A session being created has an empty journal until its creator's first append: damage
      // only once a writer took the lease and is gone without leaving the session's creation.
      const taken = (await currentEpoch(plain, leaseDirectory(id)).catch(() => 0)) > 0;
      const holder = taken ? await inspectLease(context.lease, leaseDirectory(id)).catch(() => null) : null;
      if (taken && !holder) damage = { problem: 'the journal is empty', file: journalFile(id) };
    }
    // Checked when the entry is refreshed (listing keeps to one status call per fresh session);
    // an open or `show` that finds it missing marks the entry at once.
    if (!(await plain.status(paths.inSession(id, HEADER)))?.isFile) {
      damage ??= { problem: 'header.json is missing', file: paths.inSession(id, HEADER) };
    }
    const knownSeq = known?.summary?.lastSeq ?? 0;
    if (known?.summary && (summary?.lastSeq ?? 0) < knownSeq && location.size < known.journalSize) {
      damage ??= {
        problem: `the journal ends at event ${summary?.lastSeq ?? 0} but it was listed with ${knownSeq}: it was cut`,
        file: journalFile(id),
      };
      // The last known summary stays, so the evidence outlives this listing.
      summary = known.summary;
    }
    if (!summary && damage) {
      const file = await headers.readFile(id).catch(() => null);
      summary = summaryFromHeader(
        id,
        file?.kind === 'ok' ? file.header : await journals.headerFromJournal(id).catch(() => null),
      );
    }
    return { summary, damage };
  };

  return { verify, repair, inspectForIndex };
}

/** The data key of the event a repair writes where a snapshot restores the state the journal lost. */
const RESTORED_FROM_SNAPSHOT = 'restoredFromSnapshot';

const snapshotStateSchema = lazySchema(() =>
  z.object({ header: sessionHeaderSchema, lastSeq: z.number().int().positive() }),
);

interface Restored {
  /** The records that stand for the events the journal lost, up to and including the snapshot's. */
  bytes: Buffer;
  seq: number;
  lost: { first: number; last: number } | null;
  /** Whether the snapshot kept the listing summary of its event (snapshots written before it did not). */
  summaryKept: boolean;
}

/**
 * When the journal ends (after a repair) before a sound snapshot's event, the snapshot still
 * proves the session's state after that event: the events in between are written as one
 * record of their loss, and the snapshot's event as a `data-set` of `restoredFromSnapshot`,
 * carrying the listing summary of that moment. An open folds from the snapshot and reads on
 * from that event; nothing before it is replayed (a full replay reports the loss, exit 65).
 */
function restoredFromSnapshot(
  id: string,
  { snapshot, name: snapshotName }: StoredSnapshot,
  keptSeq: number,
  epoch: number,
  savedTo: string | null,
  sealing: RecordSealing | null,
): Restored | null {
  if (snapshot.seq <= keptSeq) return null;
  const state = snapshotStateSchema.safeParse(snapshot.state);
  if (!state.success || state.data.header.id !== id || state.data.lastSeq !== snapshot.seq) return null;
  const kept = sessionSummarySchema.safeParse(snapshot.summary);
  const summaryKept = kept.success && kept.data.id === id && kept.data.lastSeq === snapshot.seq;
  const summary: SessionSummary = summaryKept
    ? kept.data
    : { ...summaryFromHeader(id, state.data.header), lastSeq: snapshot.seq };
  const lost = snapshot.seq - 1 > keptSeq ? { first: keptSeq + 1, last: snapshot.seq - 1 } : null;
  const reason = `the journal no longer held them; the snapshot at event ${snapshot.seq} holds the state after them`;
  const restoredEvent = journalEventSchema.parse({
    seq: snapshot.seq,
    at: summary.updatedAt,
    type: 'data-set',
    key: RESTORED_FROM_SNAPSHOT,
    value: { from: snapshotName, lost: lost && [lost.first, lost.last], savedTo },
  });
  return {
    bytes: Buffer.concat([
      ...(lost ? [encodeLost({ epoch, first: lost.first, last: lost.last, lost: { reason, savedTo } })] : []),
      encodeBatch({ epoch, events: [restoredEvent], summary }, null, sealing),
    ]),
    seq: snapshot.seq,
    lost,
    summaryKept,
  };
}

/** The epoch of the intact record holding event `seq` (0 when there is none: the records are rebuilt). */
function epochAt(analysis: JournalAnalysis, seq: number): number {
  return analysis.records.find((record) => record.first <= seq && seq <= record.last)?.epoch ?? 0;
}

function creationRecord(header: SessionHeader, sealing: RecordSealing | null): Buffer {
  const created = journalEventSchema.parse({ type: 'session-created', seq: 1, at: header.createdAt, header });
  const summary = { ...summaryFromHeader(header.id, header), lastSeq: 1 };
  return encodeBatch({ epoch: 0, events: [created], summary }, null, sealing);
}

function firstHeader(bytes: Buffer, opening: RecordOpening): SessionHeader | null {
  const end = bytes.indexOf(0x0a);
  if (end === -1) return null;
  const framed = unframe(bytes.subarray(0, end));
  const opened = framed.ok ? openJournalRecord(framed.value, opening) : framed;
  return opened.ok ? headerInFirstRecord(opened.value) : null;
}

function lastSummaryOf(bytes: Buffer, opening: RecordOpening): SessionSummary | null {
  const found = lastRecordInTail(bytes, true, opening);
  return found === 'more' ? null : (found?.summary ?? null);
}

/** The original journal's bytes a repair does not keep: damaged lines, lost records and anything after `keptSeq`. */
function removedPart(
  bytes: Buffer,
  analysis: JournalAnalysis,
  keptSeq: number,
  lost: { first: number; last: number } | null,
): Buffer {
  const parts = analysis.damaged.map((range) => bytes.subarray(range.offset, range.offset + range.length));
  for (const record of analysis.records) {
    const inLost = lost !== null && record.first >= lost.first && record.last <= lost.last;
    if (record.last > keptSeq || inLost) parts.push(record.bytes);
  }
  if (analysis.tornTail) parts.push(bytes.subarray(analysis.tornTail.offset));
  return Buffer.concat(parts);
}

/** Bytes of the original journal the repaired one still holds (its intact records up to `keptSeq`). */
function bytesKeptOf(analysis: JournalAnalysis, keptSeq: number): number {
  let kept = 0;
  for (const record of analysis.records) if (record.last <= keptSeq) kept += record.bytes.length;
  return kept;
}

function dedupe(problems: IntegrityProblem[]): IntegrityProblem[] {
  const seen = new Set<string>();
  return problems.filter((problem) => {
    const key = `${problem.file}|${problem.offset}|${problem.problem}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
