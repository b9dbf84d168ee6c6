// Reading rows back: everything that comes out of the database is validated before it
// is returned, and a row that fails names its table and seq so it can be found.
import {
  type FoldSnapshot,
  JournalCorruptedError,
  type JournalEvent,
  type SessionHeader,
  type SessionSummary,
  sessionHeaderSchema,
  sessionSummarySchema,
} from '@resume/core/spec';
import { z } from 'zod';
import { describeIssues, integerColumnSchema, type RowCheck } from './event-chain.js';

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

export function parseHeader(sessionId: string, table: string, value: unknown): SessionHeader {
  const header = sessionHeaderSchema.safeParse(value);
  if (!header.success) {
    throw corrupted(sessionId, table, `id ${sessionId}`, `invalid header (${describeIssues(header.error)})`);
  }
  return header.data;
}

export function parseSummary(sessionId: string, table: string, value: unknown): SessionSummary {
  const summary = sessionSummarySchema.safeParse(value);
  if (!summary.success) {
    throw corrupted(sessionId, table, `id ${sessionId}`, `invalid summary (${describeIssues(summary.error)})`);
  }
  return summary.data;
}

const snapshotRowSchema = z.object({
  seq: integerColumnSchema,
  format_version: integerColumnSchema,
  state: z.unknown(),
});

export function parseSnapshot(sessionId: string, table: string, row: unknown): FoldSnapshot {
  const snapshot = snapshotRowSchema.safeParse(row);
  if (!snapshot.success) {
    throw corrupted(sessionId, table, `id ${sessionId}`, `invalid snapshot (${describeIssues(snapshot.error)})`);
  }
  return { seq: snapshot.data.seq, formatVersion: snapshot.data.format_version, state: snapshot.data.state };
}
