// The checksum chain over a session's event rows. Each row's hash is the sha256 of the
// previous row's hash, its seq and its payload text, so a row whose payload or seq was
// changed, or one removed with the rows after it renumbered, no longer matches; the
// session row keeps the last row's hash, so a journal cut at its end is found as well.
// Appends of a session are serialized by its row lock, so the chain grows in one line and
// a batch is chained in memory before its one INSERT.
// Rows written before the chain existed (schema version 2) have no hash: they are read as
// unchecked, as they always were. A row without a hash after one with a hash is damage.
import { hash as digest } from 'node:crypto';
import type { Keyring } from '@resume/core/encryption';
import { type JournalEvent, safeParseJournalEvent } from '@resume/core/spec';
import { z } from 'zod';
import { eventPlace, openJson } from './row-sealing.js';

/** A bigint column (the driver returns it as a string). */
export const integerColumnSchema = z.union([z.number(), z.string().regex(/^-?\d+$/)]).transform(Number);

/** An event row as read for checking: the payload as the text that was stored. */
export const eventRowSchema = z.object({
  seq: integerColumnSchema,
  payload: z.string(),
  hash: z.string().nullable(),
});
export type EventRow = z.input<typeof eventRowSchema>;

/** The columns an event row is read with (the payload's stored text, not a parsed copy). */
export const eventRowColumns = 'seq, payload::text AS payload, hash';

/** The hash of the row at `seq` holding `payload`, after a row whose hash is `previous`. */
export function chainHash(sessionId: string, previous: string | null, seq: number, payload: string): string {
  // The first row (or the first after unchecked rows) starts from the session's id, so a
  // row copied from another session does not match either.
  return digest('sha256', `${previous ?? sessionId}\n${seq}\n${payload}`, 'hex');
}

/** The hashes of a batch's payloads, chained after `previous`. */
export function chainBatch(
  sessionId: string,
  previous: string | null,
  rows: Array<{ seq: number; payload: string }>,
): string[] {
  let last = previous;
  return rows.map((row) => {
    last = chainHash(sessionId, last, row.seq, row.payload);
    return last;
  });
}

/**
 * Where sessions' chains stood after this store's appends: a hint that spares an append reading
 * the head first, never trusted (the append checks it against the session row).
 */
export function createJournalHeads(limit = 10_000) {
  const heads = new Map<string, { seq: number; hash: string | null }>();
  return {
    /** The chain's hash at `seq`, when this store left it there; else null (where a chain starts). */
    get(sessionId: string, seq: number): string | null {
      const head = heads.get(sessionId);
      return head && head.seq === seq ? head.hash : null;
    },
    set(sessionId: string, seq: number, hash: string | null): void {
      heads.delete(sessionId);
      const oldest = heads.size >= limit ? heads.keys().next().value : undefined;
      if (oldest !== undefined) heads.delete(oldest);
      heads.set(sessionId, { seq, hash });
    },
  };
}

export type RowCheck =
  | { ok: true; seq: number; event: JournalEvent; hash: string | null }
  | { ok: false; seq: number; problem: string; hash: string | null };

/** Where a read of the chain stands: the seq it expects next and the hash before it. */
export interface ChainPosition {
  expectedSeq: number;
  previousHash: string | null;
  /** Whether a checksummed row came before (then every later row must have one). */
  checked: boolean;
}

export function chainStart(): ChainPosition {
  return { expectedSeq: 1, previousHash: null, checked: false };
}

/** How sealed rows are opened: the keyring, and the table for messages. */
export interface RowOpening {
  keyring: Keyring | null;
  table: string;
}

/**
 * Checks one row against the chain and moves `position` past it. A damaged row still moves
 * the position on (its stored hash chains the next row), so every damaged row is named. A
 * sealed row that fails its tag is damage; one sealed with a key `opening` lacks is an
 * EncryptionKeyUnavailableError.
 */
export function checkEventRow(
  sessionId: string,
  row: EventRow,
  position: ChainPosition,
  opening: RowOpening | null = null,
): RowCheck {
  const parsedRow = eventRowSchema.safeParse(row);
  if (!parsedRow.success) {
    return { ok: false, seq: position.expectedSeq, problem: 'malformed row', hash: null };
  }
  const { seq, payload, hash } = parsedRow.data;
  const expectedSeq = position.expectedSeq;
  const previousHash = position.previousHash;
  const checked = position.checked;
  position.expectedSeq = seq + 1;
  position.previousHash = hash;
  position.checked = checked || hash !== null;
  const fail = (problem: string): RowCheck => ({ ok: false, seq, problem, hash });
  if (seq !== expectedSeq) {
    const missing =
      seq - expectedSeq === 1 ? `event ${expectedSeq} is missing` : `events ${expectedSeq}..${seq - 1} are missing`;
    return fail(`${missing}: the journal jumps from seq ${expectedSeq - 1} to ${seq}`);
  }
  if (hash === null && checked) return fail('the row has no checksum, though the rows before it have one');
  if (hash !== null && hash !== chainHash(sessionId, previousHash, seq, payload)) {
    return fail('the row does not match its checksum (its payload or seq was changed, or a row before it removed)');
  }
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return fail('the payload is not JSON');
  }
  const opened = openJson(
    value,
    opening?.keyring ?? null,
    eventPlace(sessionId, seq),
    `PostgreSQL table ${opening?.table ?? 'events'}, seq ${seq}`,
  );
  if (!opened.ok) return fail(opened.problem);
  value = opened.value;
  const event = safeParseJournalEvent(value);
  if (!event.success) return fail(`invalid event (${describeIssues(event.error)})`);
  if (event.data.seq !== seq) return fail(`the event inside says seq ${event.data.seq}`);
  return { ok: true, seq, event: event.data, hash };
}

/** The problem when the chain's last row is not the one the session row remembers, or null. */
export function headProblem(position: ChainPosition, journalHash: string | null): string | null {
  if (journalHash === null || journalHash === position.previousHash) return null;
  return `the last row is not the one the session's head remembers: rows at the journal's end were removed or replaced`;
}

export function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join('.') || 'value'}: ${issue.message}`).join('; ');
}
