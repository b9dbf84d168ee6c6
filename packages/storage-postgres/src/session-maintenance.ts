// Whole-session checks and repairs, with the file store's meaning. `verify` reads every row
// of a session and names each problem with its table and seq; `repair` (or its dry run)
// keeps the longest intact prefix of whole batches, rebuilds a damaged header from the
// journal's session-created event, points the head and the summary at what it keeps and
// removes a snapshot past it. Every row it does not keep is moved into `damaged_rows`
// first: nothing is deleted unseen. A repair holds the session's writer lease and runs in
// one transaction.
import { hostname } from 'node:os';
import { type DataKey, headerPlace, type Keyring, type SealedPlace } from '@resume/core/encryption';
import {
  type IntegrityProblem,
  JournalCorruptedError,
  type JournalEvent,
  journalEventSchema,
  type LostStep,
  type RepairReport,
  type SessionHeader,
  type SessionLease,
  SessionLockedError,
  type SessionStore,
  type SessionSummary,
  sessionHeaderSchema,
  sessionSummarySchema,
  summaryFromHeader,
  type VerifyReport,
} from '@resume/core/spec';
import type pg from 'pg';
import { z } from 'zod';
import {
  chainHash,
  chainStart,
  checkEventRow,
  describeIssues,
  type EventRow,
  eventRowColumns,
  headProblem,
} from './event-chain.js';
import { eventPlace, openJson, sealedJson, sealedKeyOf, summaryPlace } from './row-sealing.js';
import { parseSnapshot, readSessionRow } from './rows.js';
import { type EncryptReport, encryptRows } from './session-encryption.js';
import { summaryAssignments, summaryValues } from './summary-columns.js';

export interface MaintenanceParts {
  /** The store's data keys (null: none). */
  keyring: Keyring | null;
  /** The quoted schema, for SQL. */
  schema: string;
  /** The schema's name, for messages. */
  schemaName: string;
  notify: (client: pg.PoolClient, sessionId: string, lastSeq: number) => Promise<void>;
  withClient: <T>(action: string, work: (client: pg.PoolClient) => Promise<T>) => Promise<T>;
  inTransaction: <T>(action: string, work: (client: pg.PoolClient) => Promise<T>) => Promise<T>;
  acquireLease: SessionStore['acquireLease'];
  inspectLease: SessionStore['inspectLease'];
}

export interface SessionMaintenance {
  verify(sessionId: string): Promise<VerifyReport>;
  repair(sessionId: string, options?: { dryRun?: boolean }): Promise<RepairReport>;
  encrypt(sessionId: string, key: DataKey, rekey: boolean): Promise<EncryptReport>;
}

/** Rows read per round trip while checking a journal. */
const pageSize = 500;

interface DamagedRow {
  seq: number;
  problem: string;
}

/** What a full read of a session found. */
interface SessionAnalysis {
  journalSeq: number;
  header: SessionHeader | null;
  headerContent: string;
  headerProblem: string | null;
  summaryProblem: string | null;
  summaryContent: string | null;
  /** The header inside the journal's first event, when that row is intact. */
  createdHeader: SessionHeader | null;
  /** The key the session's header or summary is sealed with, when held: what a repair seals with. */
  key: DataKey | null;
  damagedRows: DamagedRow[];
  /** The head remembers a last row the table no longer holds. */
  headMoved: string | null;
  /** The last row of the intact prefix that ends a batch (or of the rows written before batches were marked). */
  keptSeq: number;
  keptHash: string | null;
  /** Highest seq in the table. */
  lastRowSeq: number;
  /** Steps started in any row, with the row's seq. */
  startedSteps: Array<LostStep & { seq: number }>;
  snapshotSeq: number | null;
  snapshotProblem: string | null;
}

const stepStartedSchema = z.object({
  type: z.literal('step-started'),
  key: z.string(),
  occurrence: z.number().int().positive(),
  safety: z.enum(['idempotent', 'unsafe']),
});

/** The step a row's payload starts, read even from a damaged row (its text is still JSON, or it still opens). */
function startedStep(payload: string, keyring: Keyring | null, sessionId: string, seq: number): LostStep | null {
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return null;
  }
  if (sealedKeyOf(value) !== null) {
    if (!keyring?.get(sealedKeyOf(value) ?? '')) return null;
    const opened = openJson(value, keyring, eventPlace(sessionId, seq), '');
    if (!opened.ok) return null;
    value = opened.value;
  }
  const started = stepStartedSchema.safeParse(value);
  return started.success
    ? { key: started.data.key, occurrence: started.data.occurrence, safety: started.data.safety }
    : null;
}

export function createSessionMaintenance(parts: MaintenanceParts): SessionMaintenance {
  const { schema, schemaName, keyring } = parts;
  const opening = { keyring, table: `${schemaName}.events` };
  /** A sealed column's value opened, or the problem (a key not held is an EncryptionKeyUnavailableError). */
  const openColumn = (text: string, place: SealedPlace, file: string) => {
    const opened = openJson(JSON.parse(text), keyring, place, file);
    return opened.ok ? { value: opened.value, problem: null } : { value: null, problem: opened.problem };
  };
  const sessionsFile = (id: string) => `PostgreSQL table ${schemaName}.sessions, id ${id}`;
  const eventsFile = (seq: number) => `PostgreSQL table ${schemaName}.events, seq ${seq}`;
  const snapshotsFile = (id: string) => `PostgreSQL table ${schemaName}.snapshots, id ${id}`;
  const asideTable = `${schemaName}.damaged_rows`;

  const analyze = async (client: pg.PoolClient, id: string, lock: boolean): Promise<SessionAnalysis> => {
    const row = await readSessionRow(client, schema, id, lock);
    const openedHeader = openColumn(row.header, headerPlace(id), sessionsFile(id));
    const parsedHeader = sessionHeaderSchema.safeParse(openedHeader.value);
    const header = parsedHeader.success && parsedHeader.data.id === id ? parsedHeader.data : null;
    const headerProblem =
      openedHeader.problem ??
      (parsedHeader.success
        ? parsedHeader.data.id === id
          ? null
          : `the header names session ${parsedHeader.data.id}`
        : `invalid header (${describeIssues(parsedHeader.error)})`);
    const openedSummary = row.summary === null ? null : openColumn(row.summary, summaryPlace(id), sessionsFile(id));
    const parsedSummary = openedSummary === null ? null : sessionSummarySchema.safeParse(openedSummary.value);
    const summaryProblem =
      openedSummary?.problem ??
      (parsedSummary && !parsedSummary.success ? `invalid summary (${describeIssues(parsedSummary.error)})` : null);
    const keyId = sealedKeyOf(row.header) ?? (row.summary === null ? null : sealedKeyOf(row.summary));

    const analysis: SessionAnalysis = {
      journalSeq: Number(row.journal_seq),
      header,
      headerContent: row.header,
      headerProblem,
      summaryProblem,
      summaryContent: row.summary,
      createdHeader: null,
      key: keyId === null ? null : (keyring?.get(keyId) ?? null),
      damagedRows: [],
      headMoved: null,
      keptSeq: 0,
      keptHash: null,
      lastRowSeq: 0,
      startedSteps: [],
      snapshotSeq: null,
      snapshotProblem: null,
    };
    const position = chainStart();
    let intact = true;
    let after = 0;
    for (;;) {
      // Pages bounded by seq (as the store's reads are), so stale statistics cannot make each
      // page scan the rest of the journal; past a gap wider than a page, on from the next row.
      const page = await client.query<EventRow & { batch_end: boolean }>(
        `SELECT ${eventRowColumns}, batch_summary IS NOT NULL AS batch_end FROM ${schema}.events
          WHERE session_id = $1 AND seq > $2 AND seq <= $3 ORDER BY seq`,
        [id, after, after + pageSize],
      );
      if (page.rows.length === 0) {
        const following = await client.query<{ seq: string | null }>(
          `SELECT min(seq) AS seq FROM ${schema}.events WHERE session_id = $1 AND seq > $2`,
          [id, after],
        );
        const seq = following.rows[0]?.seq ?? null;
        if (seq === null) break;
        after = Number(seq) - 1;
        continue;
      }
      for (const eventRow of page.rows) {
        const check = checkEventRow(id, eventRow, position, opening);
        const seq = check.seq;
        after = seq;
        analysis.lastRowSeq = seq;
        const step = startedStep(eventRow.payload, keyring, id, seq);
        if (step) analysis.startedSteps.push({ ...step, seq });
        const problem = !check.ok
          ? check.problem
          : seq > analysis.journalSeq
            ? `the row is after the journal's last event (${analysis.journalSeq})`
            : null;
        if (problem) {
          analysis.damagedRows.push({ seq, problem });
          intact = false;
          continue;
        }
        if (check.ok && seq === 1 && check.event.type === 'session-created' && check.event.header.id === id) {
          analysis.createdHeader = check.event.header;
        }
        if (intact && (eventRow.batch_end || check.hash === null)) {
          analysis.keptSeq = seq;
          analysis.keptHash = check.hash;
        }
        if (intact && seq === analysis.journalSeq) analysis.headMoved = headProblem(position, row.journal_hash);
      }
    }
    if (position.expectedSeq <= analysis.journalSeq) {
      const first = position.expectedSeq;
      const last = analysis.journalSeq;
      analysis.damagedRows.push({
        seq: first,
        problem: first === last ? `event ${first} is missing` : `events ${first}..${last} are missing`,
      });
    }

    const snapshot = await client.query(
      `SELECT seq, format_version, state, operations FROM ${schema}.snapshots WHERE session_id = $1`,
      [id],
    );
    if (snapshot.rows[0]) {
      try {
        analysis.snapshotSeq = parseSnapshot(id, `${schemaName}.snapshots`, snapshot.rows[0], keyring).seq;
      } catch (error) {
        if (!JournalCorruptedError.isInstance(error)) throw error;
        analysis.snapshotProblem = 'the snapshot row is invalid';
      }
    }
    return analysis;
  };

  const snapshotPastKept = (analysis: SessionAnalysis): boolean =>
    analysis.snapshotSeq !== null && analysis.snapshotSeq > analysis.keptSeq;

  const verify = (id: string): Promise<VerifyReport> =>
    parts.withClient(`verify session ${id}`, async (client) => {
      const analysis = await analyze(client, id, false);
      const problems: IntegrityProblem[] = [];
      const add = (file: string, problem: string) => problems.push({ file, offset: null, problem });
      if (analysis.headerProblem) add(sessionsFile(id), analysis.headerProblem);
      if (analysis.summaryProblem) add(sessionsFile(id), analysis.summaryProblem);
      for (const damaged of analysis.damagedRows) add(eventsFile(damaged.seq), damaged.problem);
      if (analysis.headMoved) add(eventsFile(analysis.journalSeq), analysis.headMoved);
      if (analysis.snapshotProblem) add(snapshotsFile(id), analysis.snapshotProblem);
      else if (snapshotPastKept(analysis)) {
        add(snapshotsFile(id), `the snapshot is at event ${analysis.snapshotSeq}, past the intact journal's end`);
      }
      return { sessionId: id, lastSeq: analysis.keptSeq, problems };
    });

  /** What a repair does to the analysed session; applied inside the transaction unless a dry run. */
  const repairIn = async (client: pg.PoolClient, id: string, dryRun: boolean): Promise<RepairReport> => {
    const analysis = await analyze(client, id, !dryRun);
    const actions: string[] = [];
    const header = analysis.header ?? analysis.createdHeader;
    if (analysis.headerProblem) {
      actions.push(
        analysis.createdHeader
          ? `header: rebuilt from the journal's session-created event (${analysis.headerProblem})`
          : `header: ${analysis.headerProblem}, and no intact session-created event to rebuild it from; it is left as it is`,
      );
    }
    for (const damaged of analysis.damagedRows) actions.push(`events, seq ${damaged.seq}: ${damaged.problem}`);
    const lastKnown = Math.max(analysis.journalSeq, analysis.lastRowSeq);
    let keptSeq = analysis.keptSeq;
    const cut = lastKnown > keptSeq;
    if (cut) {
      actions.push(`events ${keptSeq + 1}..${lastKnown} are moved to ${asideTable}`);
    }
    if (analysis.headMoved) {
      actions.push(`events, seq ${analysis.journalSeq}: ${analysis.headMoved}`);
    }
    // A journal with nothing left is rebuilt with the session's creation (a session never appended to is left alone).
    const created = keptSeq === 0 && lastKnown > 0 && header !== null;
    if (created) {
      actions.push(`events: rebuilt with the session's creation from its header`);
      keptSeq = 1;
    }
    if (cut || analysis.headMoved) actions.push(`the session continues from event ${keptSeq}`);
    const removeSnapshot = analysis.snapshotProblem !== null || (analysis.snapshotSeq ?? 0) > keptSeq;
    if (removeSnapshot) {
      actions.push(
        analysis.snapshotProblem
          ? `snapshot: moved to ${asideTable} (${analysis.snapshotProblem})`
          : `snapshot: moved to ${asideTable} (the journal no longer holds event ${analysis.snapshotSeq})`,
      );
    }
    const rewriteSummary = cut || created || analysis.summaryProblem !== null || analysis.headMoved !== null;
    if (analysis.summaryProblem) actions.push(`summary: rebuilt (${analysis.summaryProblem})`);

    const removed = await client.query<{ bytes: string }>(
      `SELECT coalesce(sum(octet_length(payload::text)), 0) AS bytes FROM ${schema}.events
        WHERE session_id = $1 AND seq > $2`,
      [id, analysis.keptSeq],
    );
    const removedBytes = Number(removed.rows[0]?.bytes ?? 0);
    const lostSteps = new Map<string, LostStep>();
    for (const step of analysis.startedSteps) {
      if (step.seq > analysis.keptSeq)
        lostSteps.set(`${step.key}#${step.occurrence}`, {
          key: step.key,
          occurrence: step.occurrence,
          safety: step.safety,
        });
    }
    const report: RepairReport = {
      sessionId: id,
      keptSeq,
      removedBytes,
      savedTo: cut || removeSnapshot ? `PostgreSQL table ${asideTable} (session ${id})` : null,
      dryRun,
      actions,
      droppedEvents:
        cut || analysis.headMoved
          ? { first: analysis.keptSeq + 1, last: lastKnown > analysis.keptSeq ? lastKnown : null }
          : null,
      lostSteps: [...lostSteps.values()],
    };
    if (dryRun || actions.length === 0) return report;

    /** Copies what `select` yields (seq, epoch, hash, content; it sees the session as $1 and `values` from $4) into damaged_rows. */
    const setAside = (source: string, problem: string, select: string, values: unknown[]) =>
      client.query(
        `INSERT INTO ${schema}.damaged_rows (session_id, source, seq, epoch, hash, content, problem)
         SELECT $1, $2, seq, epoch, hash, content, $3 FROM (${select}) aside`,
        [id, source, problem, ...values],
      );
    const why = actions.join('; ');
    if (cut) {
      await setAside(
        'events',
        why,
        `SELECT seq, epoch, hash, payload::text AS content FROM ${schema}.events WHERE session_id = $1 AND seq > $4`,
        [analysis.keptSeq],
      );
      await client.query(`DELETE FROM ${schema}.events WHERE session_id = $1 AND seq > $2`, [id, analysis.keptSeq]);
    }
    if (removeSnapshot) {
      await setAside(
        'snapshots',
        why,
        `SELECT seq, NULL::bigint AS epoch, NULL AS hash,
                json_build_object('seq', seq, 'formatVersion', format_version, 'state', state)::text AS content
           FROM ${schema}.snapshots WHERE session_id = $1`,
        [],
      );
      await client.query(`DELETE FROM ${schema}.snapshots WHERE session_id = $1`, [id]);
    }
    let keptHash = analysis.keptHash;
    let summary: SessionSummary | null = null;
    if (created && header) {
      const event: JournalEvent = journalEventSchema.parse({
        type: 'session-created',
        seq: 1,
        at: header.createdAt,
        header,
      });
      const payload = sealedJson(analysis.key, eventPlace(id, 1), event);
      keptHash = chainHash(id, null, 1, payload);
      summary = { ...summaryFromHeader(id, header), lastSeq: 1 };
      await client.query(
        `INSERT INTO ${schema}.events (session_id, seq, epoch, type, payload, hash, batch_summary)
         VALUES ($1, 1, 0, $2, $3, $4, $5)`,
        [
          id,
          analysis.key ? 'sealed' : event.type,
          payload,
          keptHash,
          sealedJson(analysis.key, summaryPlace(id), summary),
        ],
      );
    } else if (rewriteSummary) {
      summary = await summaryAt(client, id, keptSeq, header);
    }
    if (analysis.headerProblem && analysis.createdHeader) {
      await setAside(
        'sessions.header',
        why,
        `SELECT NULL::bigint AS seq, NULL::bigint AS epoch, NULL AS hash, $4::text AS content`,
        [analysis.headerContent],
      );
      await client.query(`UPDATE ${schema}.sessions SET header = $2 WHERE id = $1`, [
        id,
        sealedJson(analysis.key, headerPlace(id), analysis.createdHeader),
      ]);
    }
    if (summary) {
      if (analysis.summaryProblem && analysis.summaryContent !== null) {
        await setAside(
          'sessions.summary',
          why,
          `SELECT NULL::bigint AS seq, NULL::bigint AS epoch, NULL AS hash, $4::text AS content`,
          [analysis.summaryContent],
        );
      }
      await client.query(
        `UPDATE ${schema}.sessions SET journal_seq = $2, journal_hash = $3, ${summaryAssignments(4)} WHERE id = $1`,
        [id, keptSeq, keptHash, ...summaryValues(summary, analysis.key)],
      );
    }
    await parts.notify(client, id, keptSeq);
    return report;
  };

  /** The summary the batch ending at `seq` was written with, else one made from the header. */
  const summaryAt = async (
    client: pg.PoolClient,
    id: string,
    seq: number,
    header: SessionHeader | null,
  ): Promise<SessionSummary> => {
    const result = await client.query<{ batch_summary: unknown }>(
      `SELECT batch_summary FROM ${schema}.events WHERE session_id = $1 AND seq = $2`,
      [id, seq],
    );
    const stored = result.rows[0]?.batch_summary ?? null;
    const opened = stored === null ? null : openJson(stored, keyring, summaryPlace(id), eventsFile(seq));
    const kept = sessionSummarySchema.safeParse(opened?.ok ? opened.value : null);
    return kept.success && kept.data.lastSeq === seq ? kept.data : { ...summaryFromHeader(id, header), lastSeq: seq };
  };

  /** What was derived from the journal may name rows a repair removed: readers derive it again. */
  const forgetDerived = (client: pg.PoolClient, id: string) =>
    client.query(`DELETE FROM ${schema}.derived WHERE session_id = $1`, [id]);

  const repair = async (id: string, options: { dryRun?: boolean } = {}): Promise<RepairReport> => {
    if (options.dryRun) {
      const holder = await parts.inspectLease(id);
      if (holder) throw new SessionLockedError(id, holder);
      return parts.withClient(`check session ${id}`, (client) => repairIn(client, id, true));
    }
    // The repair is the session's writer while it works.
    const lease: SessionLease = await parts.acquireLease(id, { holder: { pid: process.pid, host: hostname() } });
    try {
      return await parts.inTransaction(`repair session ${id}`, async (client) => {
        const report = await repairIn(client, id, false);
        await forgetDerived(client, id);
        return report;
      });
    } finally {
      await lease.release().catch(() => {});
    }
  };

  /** Seals the session's rows with `key`, holding its writer lease, in one transaction. */
  const encrypt = async (id: string, key: DataKey, rekey: boolean): Promise<EncryptReport> => {
    const lease: SessionLease = await parts.acquireLease(id, { holder: { pid: process.pid, host: hostname() } });
    try {
      return await parts.inTransaction(`encrypt session ${id}`, async (client) => {
        const report = await encryptRows(client, { schema, schemaName, keyring, sessionId: id, key, rekey });
        // Derived data is written again, sealed, by whoever derives it.
        await forgetDerived(client, id);
        return report;
      });
    } finally {
      await lease.release().catch(() => {});
    }
  };

  return { verify, repair, encrypt };
}
