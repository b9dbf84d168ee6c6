// Reading rows back: everything that comes out of the database is validated before it
// is returned, and a row that fails names its table and seq so it can be found.
import { headerPlace, type Keyring, type SealedPlace, snapshotPlace } from '@resume/core/encryption';
import {
  type FoldSnapshot,
  JournalCorruptedError,
  type JournalEvent,
  journalEventSchema,
  type SessionHeader,
  SessionNotFoundError,
  type SessionSummary,
  sessionHeaderSchema,
  sessionSummarySchema,
} from '@resume/core/spec';
import type pg from 'pg';
import { z } from 'zod';
import { describeIssues, integerColumnSchema, type RowCheck } from './event-chain.js';
import { openJson, summaryPlace } from './row-sealing.js';

export function corrupted(sessionId: string, table: string, where: string, problem: string): JournalCorruptedError {
  return new JournalCorruptedError({ sessionId, file: `PostgreSQL table ${table}, ${where}`, offset: null, problem });
}

/** The event a checked row holds, or the error naming the row. */
export function eventOf(sessionId: string, table: string, check: RowCheck): JournalEvent {
  if (!check.ok) throw corrupted(sessionId, table, `seq ${check.seq}`, check.problem);
  return check.event;
}

/** The journal's head says an event exists that the events table does not have. */
export function missingEvent(sessionId: string, table: string, seq: number): JournalCorruptedError {
  return corrupted(sessionId, table, `seq ${seq}`, `event ${seq} is missing`);
}

/**
 * A json column's value opened when sealed for `place`; a failed tag is the row's damage, a
 * key the keyring lacks an EncryptionKeyUnavailableError.
 */
function opened(keyring: Keyring | null, place: SealedPlace, table: string, value: unknown): unknown {
  const where = `id ${place.sessionId}`;
  const result = openJson(value, keyring, place, `PostgreSQL table ${table}, ${where}`);
  if (!result.ok) throw corrupted(place.sessionId, table, where, result.problem);
  return result.value;
}

export function parseHeader(sessionId: string, table: string, value: unknown, keyring: Keyring | null): SessionHeader {
  const header = sessionHeaderSchema.safeParse(opened(keyring, headerPlace(sessionId), table, value));
  if (!header.success) {
    throw corrupted(sessionId, table, `id ${sessionId}`, `invalid header (${describeIssues(header.error)})`);
  }
  return header.data;
}

export function parseSummary(
  sessionId: string,
  table: string,
  value: unknown,
  keyring: Keyring | null,
): SessionSummary {
  const summary = sessionSummarySchema.safeParse(opened(keyring, summaryPlace(sessionId), table, value));
  if (!summary.success) {
    throw corrupted(sessionId, table, `id ${sessionId}`, `invalid summary (${describeIssues(summary.error)})`);
  }
  return summary.data;
}

const snapshotRowSchema = z.object({
  seq: integerColumnSchema,
  format_version: integerColumnSchema,
  state: z.unknown(),
  operations: z.unknown().optional(),
});

/**
 * The replay operations kept with a snapshot, when every one is a valid event at or before the
 * snapshot's seq, in order; else none, and an ordered open reads them from the journal (which is
 * checked) as it does for a snapshot that kept none.
 */
function snapshotOperations(value: unknown, seq: number): JournalEvent[] | null {
  if (!Array.isArray(value)) return null;
  const operations: JournalEvent[] = [];
  for (const item of value) {
    const event = journalEventSchema.safeParse(item);
    const previous = operations.at(-1)?.seq ?? 0;
    if (!event.success || event.data.seq <= previous || event.data.seq > seq) return null;
    operations.push(event.data);
  }
  return operations;
}

/** A snapshot row; a sealed one holds the state and the operations together in `state`. */
export function parseSnapshot(
  sessionId: string,
  table: string,
  row: { state?: unknown } & Record<string, unknown>,
  keyring: Keyring | null,
): FoldSnapshot {
  const stored = opened(keyring, snapshotPlace(sessionId), table, row.state);
  const sealed = stored !== row.state;
  const snapshot = snapshotRowSchema.safeParse(sealed ? { ...row, ...(stored as object) } : row);
  if (!snapshot.success) {
    throw corrupted(sessionId, table, `id ${sessionId}`, `invalid snapshot (${describeIssues(snapshot.error)})`);
  }
  const { seq, format_version: formatVersion, state } = snapshot.data;
  const operations = snapshotOperations(snapshot.data.operations, seq);
  return { seq, formatVersion, state, ...(operations ? { operations } : {}) };
}

/** A session row as maintenance reads it: the header and summary as stored text, and the journal's head. */
export interface StoredSessionRow {
  header: string;
  summary: string | null;
  journal_seq: string;
  journal_hash: string | null;
}

/** The session row of `id` (locked for the transaction with `lock`); SessionNotFoundError when there is none. */
export async function readSessionRow(
  client: pg.PoolClient,
  schema: string,
  id: string,
  lock: boolean,
): Promise<StoredSessionRow> {
  const session = await client.query<StoredSessionRow>(
    `SELECT header::text AS header, summary::text AS summary, journal_seq, journal_hash
       FROM ${schema}.sessions WHERE id = $1${lock ? ' FOR UPDATE' : ''}`,
    [id],
  );
  const row = session.rows[0];
  if (!row) throw new SessionNotFoundError(id);
  return row;
}
