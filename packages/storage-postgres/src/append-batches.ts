// Appends of several sessions in one statement: while one statement is on its way, the appends
// that arrive meanwhile wait and go together in the next, so concurrent sessions share a round
// trip and a commit (a lone append goes at once). Each session's append is checked on its own
// (the writer's epoch, the expected seq, the chain's head) and written only when its checks pass;
// a session whose checks fail does not hold the others back.
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { summaryColumns } from './summary-columns.js';

/** One session's append, chained and ready to go. */
export interface SessionAppend {
  sessionId: string;
  epoch: number;
  expectedSeq: number;
  previousHash: string | null;
  newSeq: number;
  lastHash: string | null;
  /** `summaryValues(summary)`. */
  summary: unknown[];
  events: Array<{ seq: number; type: string; payload: string; hash: string }>;
}

/** A row of an append statement's answer: where a session stood, and whether its append was written. */
export interface AppendOutcomeRow {
  id: string;
  journal_seq: string;
  journal_hash: string | null;
  epoch: string | null;
  appended: boolean;
}

/** Where the session stood, and whether the append was written; null when there is no such session. */
export type AppendOutcome = Omit<AppendOutcomeRow, 'id'> | null;

/** At most this many sessions per statement, and this many statements on their way at once. */
const MAX_SESSIONS_PER_STATEMENT = 100;
const MAX_STATEMENTS_IN_FLIGHT = 4;

/** The inputs of one session's append, in the order of `appendValues`, with their SQL types. */
const inputs = [
  ['session_id', 'text'],
  ['expected_seq', 'bigint'],
  ['epoch', 'bigint'],
  ['previous_hash', 'text'],
  ['new_seq', 'bigint'],
  ['last_hash', 'text'],
  ...summaryColumns,
] as const;

/**
 * The append statement in its two forms: a lone session's inputs as plain parameters (the
 * common case, and about a quarter quicker on the server than unpacking one-element arrays),
 * several sessions' as arrays unpacked together. Each is prepared once per connection, named by
 * its text (which names the schema).
 */
export function appendStatements(schema: string): (appends: SessionAppend[]) => pg.QueryConfig {
  const names = inputs.map(([name]) => name).join(', ');
  const lone = appendStatement(
    schema,
    `SELECT ${inputs.map(([name, type], index) => `$${index + 1}::${type} AS ${name}`).join(', ')}`,
    's.id = $1::text',
  );
  const batch = appendStatement(
    schema,
    `SELECT * FROM unnest(${inputs.map(([, type], index) => `$${index + 1}::${type}[]`).join(', ')}) AS i (${names})`,
    's.id = ANY ($1::text[])',
  );
  const named = (text: string) => ({
    name: `conclave-append-${createHash('sha256').update(text).digest('hex').slice(0, 16)}`,
    text,
  });
  const forms = { lone: named(lone), batch: named(batch) };
  return (appends) => {
    const lone = appends.length === 1;
    return { ...(lone ? forms.lone : forms.batch), values: appendValues(appends, lone) };
  };
}

function appendStatement(schema: string, input: string, sessionsWanted: string): string {
  const events = inputs.length;
  const assignments = summaryColumns.map(([column]) => `${column} = a.${column}`).join(', ');
  // Locking the session rows (in id order, so two statements never wait on each other in a
  // circle) serializes appends and lease takeovers of each session. The lease rows are read
  // after that, and share-locked: a takeover that committed while this statement waited for the
  // session row is seen with its new epoch, not as this statement's snapshot had it, so the
  // writer it replaced is refused. (KEY SHARE would not do: it keeps the version an update of
  // other columns replaced.) A heartbeat's update waits for the append, or it for the heartbeat.
  return `WITH input AS (
      ${input}
    ), locked AS (
      SELECT s.id, s.journal_seq, s.journal_hash FROM ${schema}.sessions s
       WHERE ${sessionsWanted} ORDER BY s.id FOR UPDATE
    ), lease AS (
      SELECT l.session_id, l.epoch FROM ${schema}.leases l JOIN locked k ON k.id = l.session_id FOR SHARE OF l
    ), current AS (
      SELECT k.id, k.journal_seq, k.journal_hash, e.epoch FROM locked k LEFT JOIN lease e ON e.session_id = k.id
    ), allowed AS (
      SELECT i.* FROM input i JOIN current c ON c.id = i.session_id
       WHERE c.journal_seq = i.expected_seq AND coalesce(c.epoch, 0) <= i.epoch
         AND c.journal_hash IS NOT DISTINCT FROM i.previous_hash
    ), inserted AS (
      INSERT INTO ${schema}.events (session_id, seq, epoch, type, payload, hash, batch_summary)
      SELECT e.session_id, e.seq, a.epoch, e.type, e.payload, e.hash,
             CASE WHEN e.seq = a.new_seq THEN a.summary END
        FROM unnest($${events + 1}::text[], $${events + 2}::bigint[], $${events + 3}::text[], $${events + 4}::json[], $${events + 5}::text[])
             AS e (session_id, seq, type, payload, hash)
        JOIN allowed a ON a.session_id = e.session_id
    ), updated AS (
      UPDATE ${schema}.sessions s SET journal_seq = a.new_seq, journal_hash = a.last_hash, ${assignments}
        FROM allowed a WHERE s.id = a.session_id RETURNING s.id
    )
    SELECT c.id, c.journal_seq, c.journal_hash, c.epoch, EXISTS (SELECT 1 FROM updated u WHERE u.id = c.id) AS appended
      FROM current c`;
}

/** The values of an append statement: a lone append's inputs as they are, several sessions' as arrays. */
function appendValues(appends: SessionAppend[], lone: boolean): unknown[] {
  const column = <T>(pick: (append: SessionAppend) => T) => (lone ? pick(appends[0]!) : appends.map(pick));
  const events = appends.flatMap((append) => append.events.map((event) => ({ sessionId: append.sessionId, ...event })));
  return [
    column((append) => append.sessionId),
    column((append) => append.expectedSeq),
    column((append) => append.epoch),
    column((append) => append.previousHash),
    column((append) => append.newSeq),
    column((append) => append.lastHash),
    ...summaryColumns.map((_, index) => column((append) => append.summary[index])),
    events.map((event) => event.sessionId),
    events.map((event) => event.seq),
    events.map((event) => event.type),
    events.map((event) => event.payload),
    events.map((event) => event.hash),
  ];
}

/** Runs appends, several sessions per statement when they arrive together. */
export function createAppendQueue(
  runStatement: (appends: SessionAppend[]) => Promise<pg.QueryResult<AppendOutcomeRow>>,
): (append: SessionAppend) => Promise<AppendOutcome> {
  const waiting: Array<{
    append: SessionAppend;
    resolve: (outcome: AppendOutcome) => void;
    reject: (error: unknown) => void;
  }> = [];
  let inFlight = 0;

  const run = async (batch: typeof waiting) => {
    try {
      const result = await runStatement(batch.map((entry) => entry.append));
      const bySession = new Map(result.rows.map((row) => [row.id, row]));
      for (const entry of batch) {
        const row = bySession.get(entry.append.sessionId);
        entry.resolve(
          row
            ? { journal_seq: row.journal_seq, journal_hash: row.journal_hash, epoch: row.epoch, appended: row.appended }
            : null,
        );
      }
    } catch (error) {
      // One statement failed for all: each append alone, so one session's trouble stays its own.
      if (batch.length === 1) batch[0]?.reject(error);
      else for (const entry of batch) void run([entry]);
    }
  };

  const pump = () => {
    while (inFlight < MAX_STATEMENTS_IN_FLIGHT && waiting.length > 0) {
      // One append per session per statement: a session's next append waits for the statement after.
      const sessions = new Set<string>();
      const batch: typeof waiting = [];
      for (let index = 0; index < waiting.length && batch.length < MAX_SESSIONS_PER_STATEMENT; ) {
        const entry = waiting[index]!;
        if (sessions.has(entry.append.sessionId)) {
          index += 1;
          continue;
        }
        sessions.add(entry.append.sessionId);
        batch.push(entry);
        waiting.splice(index, 1);
      }
      inFlight += 1;
      void run(batch).finally(() => {
        inFlight -= 1;
        pump();
      });
    }
  };

  return (append) =>
    new Promise<AppendOutcome>((resolve, reject) => {
      waiting.push({ append, resolve, reject });
      pump();
    });
}
