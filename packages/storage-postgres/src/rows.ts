// Reading rows back: everything that comes out of the database is validated before it
// is returned, and a row that fails names its table and seq so it can be found.
import {
  type FoldSnapshot,
  JournalCorruptedError,
  type JournalEvent,
  journalEventSchema,
  type SessionHeader,
  type SessionSummary,
  sessionHeaderSchema,
  sessionSummarySchema,
} from '@resume/core/spec';
import { z } from 'zod';

const integerColumnSchema = z.union([z.number(), z.string().regex(/^-?\d+$/)]).transform(Number);

export const eventRowSchema = z.object({ seq: integerColumnSchema, payload: z.unknown() });
export type EventRow = z.input<typeof eventRowSchema>;

function corrupted(sessionId: string, table: string, where: string, problem: string): JournalCorruptedError {
  return new JournalCorruptedError({ sessionId, file: `PostgreSQL table ${table}, ${where}`, offset: null, problem });
}

function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join('.') || 'value'}: ${issue.message}`).join('; ');
}

export function parseEventRow(sessionId: string, table: string, row: EventRow, expectedSeq: number): JournalEvent {
  const parsedRow = eventRowSchema.safeParse(row);
  if (!parsedRow.success) throw corrupted(sessionId, table, `row after seq ${expectedSeq - 1}`, 'malformed row');
  const { seq, payload } = parsedRow.data;
  if (seq !== expectedSeq) {
    throw corrupted(sessionId, table, `seq ${seq}`, `the journal jumps from seq ${expectedSeq - 1} to ${seq}`);
  }
  const event = journalEventSchema.safeParse(payload);
  if (!event.success) throw corrupted(sessionId, table, `seq ${seq}`, `invalid event (${describeIssues(event.error)})`);
  if (event.data.seq !== seq) {
    throw corrupted(sessionId, table, `seq ${seq}`, `the event inside says seq ${event.data.seq}`);
  }
  return event.data;
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
