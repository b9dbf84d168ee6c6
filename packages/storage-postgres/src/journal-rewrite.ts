// A session's journal replaced by a shorter history made from it (`rewrite` of the store
// contract; LangGraph's pruning uses it), in one transaction: the session row locked as an
// append locks it, the lease epoch and the journal's end checked, the event rows deleted and
// written again renumbered and chained from the start, the snapshot (keyed by the old seqs)
// deleted, the summary columns set. A crash before the commit leaves the old journal.
import type { DataKey } from '@resume/core/encryption';
import { AppendConflictError, type JournalRewrite, LeaseLostError, type RewriteReport } from '@resume/core/spec';
import type pg from 'pg';
import { chainBatch } from './event-chain.js';
import { type LeaseRow, leaseSelect } from './leases.js';
import { eventPlace, sealedJson } from './row-sealing.js';
import { readSessionRow } from './rows.js';
import { summaryAssignments, summaryValues } from './summary-columns.js';

export interface RewriteParts {
  schema: string;
  sealingKey(sessionId: string): Promise<DataKey | null>;
  inTransaction<T>(action: string, work: (client: pg.PoolClient) => Promise<T>): Promise<T>;
  /** Tells watchers the session changed, inside the transaction. */
  notify(client: pg.PoolClient, sessionId: string, lastSeq: number): Promise<void>;
  /** Where the session's chain now stands, for this store's next append. */
  headMoved(sessionId: string, seq: number, hash: string | null): void;
}

export function createJournalRewrite(
  parts: RewriteParts,
): (sessionId: string, rewrite: JournalRewrite) => Promise<RewriteReport> {
  const { schema } = parts;
  const sizeOf = async (client: pg.PoolClient, sessionId: string): Promise<number> => {
    const result = await client.query<{ bytes: string }>(
      `SELECT coalesce(sum(pg_column_size(e.*)), 0) AS bytes FROM ${schema}.events e WHERE e.session_id = $1`,
      [sessionId],
    );
    return Number(result.rows[0]?.bytes ?? 0);
  };

  return async (sessionId, rewrite) => {
    const key = await parts.sealingKey(sessionId);
    const events = rewrite.batches.flatMap((batch) => batch.events);
    events.forEach((event, index) => {
      if (event.seq !== index + 1) {
        throw new TypeError(
          `a rewritten journal of session ${sessionId} holds event ${event.seq} where ${index + 1} goes`,
        );
      }
    });
    const summary = rewrite.batches.at(-1)?.summary;
    if (!summary) throw new TypeError(`a rewritten journal of session ${sessionId} holds no batch`);
    const rows = events.map((event) => ({
      seq: event.seq,
      payload: sealedJson(key, eventPlace(sessionId, event.seq), event),
    }));
    const hashes = chainBatch(sessionId, null, rows);
    const batchSummaries = new Map<number, unknown>();
    for (const batch of rewrite.batches) {
      const last = batch.events.at(-1);
      if (last) batchSummaries.set(last.seq, summaryValues(batch.summary, key)[0]);
    }
    const lastSeq = events.length;
    const lastHash = hashes.at(-1) ?? null;

    return parts.inTransaction(`rewrite the journal of session ${sessionId}`, async (client) => {
      const row = await readSessionRow(client, schema, sessionId, true);
      // Read once the session row is locked, by a statement of its own: a takeover that committed
      // while the lock was awaited shows its epoch (the locking statement's snapshot predates it).
      const lease = await client.query<LeaseRow>(`${leaseSelect(schema)} FOR SHARE`, [sessionId]);
      const epoch = Number(lease.rows[0]?.epoch ?? 0);
      if (epoch !== rewrite.epoch) {
        throw new LeaseLostError(
          sessionId,
          `Session ${sessionId} is held under lease epoch ${epoch}, not ${rewrite.epoch}: its journal was not rewritten.`,
        );
      }
      const journalSeq = Number(row.journal_seq);
      if (journalSeq !== rewrite.expectedSeq) throw new AppendConflictError(sessionId, rewrite.expectedSeq, journalSeq);
      const bytesBefore = await sizeOf(client, sessionId);
      await client.query(`DELETE FROM ${schema}.events WHERE session_id = $1`, [sessionId]);
      await client.query(`DELETE FROM ${schema}.snapshots WHERE session_id = $1`, [sessionId]);
      // What was derived from the journal names events by the seqs the rewrite renumbers.
      await client.query(`DELETE FROM ${schema}.derived WHERE session_id = $1`, [sessionId]);
      await client.query(
        `INSERT INTO ${schema}.events (session_id, seq, epoch, type, payload, hash, batch_summary)
         SELECT $1, e.seq, $2, e.type, e.payload, e.hash, e.batch_summary
           FROM unnest($3::bigint[], $4::text[], $5::json[], $6::text[], $7::json[])
                AS e (seq, type, payload, hash, batch_summary)`,
        [
          sessionId,
          rewrite.epoch,
          events.map((event) => event.seq),
          // A sealed row's type is sealed with it.
          events.map((event) => (key ? 'sealed' : event.type)),
          rows.map((stored) => stored.payload),
          hashes,
          events.map((event) => batchSummaries.get(event.seq) ?? null),
        ],
      );
      await client.query(
        `UPDATE ${schema}.sessions SET journal_seq = $2, journal_hash = $3, ${summaryAssignments(4)} WHERE id = $1`,
        [sessionId, lastSeq, lastHash, ...summaryValues(summary, key)],
      );
      const bytesAfter = await sizeOf(client, sessionId);
      await parts.notify(client, sessionId, lastSeq);
      parts.headMoved(sessionId, lastSeq, lastHash);
      return { sessionId, lastSeqBefore: journalSeq, lastSeqAfter: lastSeq, bytesBefore, bytesAfter };
    });
  };
}
