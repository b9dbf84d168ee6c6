// Converting a session of the PostgreSQL store to encryption at rest, or to the current key
// (docs/encryption.md#keys-and-rotation): every event row, the summary each append wrote, the
// header, the session's summary columns and the snapshot sealed with the current key, and the
// checksum chain computed again over the sealed rows. One transaction under the session's
// row lock: a crash leaves the session as it was, and running it again finishes the work.
import { type DataKey, type EncryptReport, headerPlace, type Keyring, snapshotPlace } from '@resume/core/encryption';
import type pg from 'pg';
import { chainHash, chainStart, checkEventRow, type EventRow, eventRowColumns, headProblem } from './event-chain.js';
import { eventPlace, sealedJson, sealedKeyOf, summaryPlace } from './row-sealing.js';
import { corrupted, parseHeader, parseSnapshot, parseSummary, readSessionRow } from './rows.js';
import { summaryAssignments, summaryValues } from './summary-columns.js';

/** What `encrypt` did to a session. */
export type { EncryptReport };

export interface EncryptRowsOptions {
  /** The quoted schema, for SQL. */
  schema: string;
  /** The schema's name, for messages. */
  schemaName: string;
  keyring: Keyring | null;
  sessionId: string;
  key: DataKey;
  rekey: boolean;
}

/** Seals what of the session is not sealed (with `rekey`, also what another key sealed) with `key`, on `client` inside a transaction. */
export async function encryptRows(client: pg.PoolClient, options: EncryptRowsOptions): Promise<EncryptReport> {
  const { schema, schemaName, keyring, sessionId: id, key } = options;
  const sessionsTable = `${schemaName}.sessions`;
  const eventsTable = `${schemaName}.events`;
  /** Whether a stored value is to be sealed (again): in the clear, or, rekeying, under another key. */
  const stale = (stored: unknown): boolean => {
    const keyId = sealedKeyOf(stored);
    return keyId === null || (options.rekey && keyId !== key.id);
  };
  const row = await readSessionRow(client, schema, id, true);

  const events = await client.query<EventRow & { batch_summary: string | null }>(
    `SELECT ${eventRowColumns}, batch_summary::text AS batch_summary FROM ${schema}.events
      WHERE session_id = $1 ORDER BY seq`,
    [id],
  );
  // A damaged journal is not sealed over (its damage would then look like the seal's): repair it first.
  const position = chainStart();
  const changed: Array<{ seq: number; payload: string; hash: string | null; batchSummary: string | null }> = [];
  let previous: string | null = null;
  let records = 0;
  for (const eventRow of events.rows) {
    const check = checkEventRow(id, eventRow, position, { keyring, table: eventsTable });
    if (!check.ok) {
      throw corrupted(id, eventsTable, `seq ${check.seq}`, `${check.problem}; repair the session before encrypting it`);
    }
    const seal = stale(eventRow.payload);
    const payload = seal ? sealedJson(key, eventPlace(id, check.seq), check.event) : eventRow.payload;
    // Rows written before the chain keep no hash; every later one is chained over the new payloads.
    const hash: string | null = eventRow.hash === null ? null : chainHash(id, previous, check.seq, payload);
    previous = hash;
    const batchSummary =
      eventRow.batch_summary !== null && stale(eventRow.batch_summary)
        ? sealedJson(key, summaryPlace(id), parseSummary(id, eventsTable, JSON.parse(eventRow.batch_summary), keyring))
        : eventRow.batch_summary;
    if (seal) records += 1;
    if (seal || hash !== eventRow.hash || batchSummary !== eventRow.batch_summary) {
      changed.push({ seq: check.seq, payload, hash, batchSummary });
    }
  }
  const moved = headProblem(position, row.journal_hash);
  if (moved) {
    throw corrupted(id, eventsTable, `seq ${row.journal_seq}`, `${moved}; repair the session before encrypting it`);
  }
  if (changed.length > 0) {
    await client.query(
      `UPDATE ${schema}.events e SET payload = c.payload, hash = c.hash, batch_summary = c.batch_summary, type = 'sealed'
         FROM unnest($2::bigint[], $3::json[], $4::text[], $5::json[]) AS c (seq, payload, hash, batch_summary)
        WHERE e.session_id = $1 AND e.seq = c.seq`,
      [
        id,
        changed.map((change) => change.seq),
        changed.map((change) => change.payload),
        changed.map((change) => change.hash),
        changed.map((change) => change.batchSummary),
      ],
    );
  }

  const header = stale(row.header);
  if (header) {
    const opened = parseHeader(id, sessionsTable, JSON.parse(row.header), keyring);
    await client.query(`UPDATE ${schema}.sessions SET header = $2 WHERE id = $1`, [
      id,
      sealedJson(key, headerPlace(id), opened),
    ]);
  }
  if (changed.length > 0) {
    await client.query(`UPDATE ${schema}.sessions SET journal_hash = $2 WHERE id = $1`, [id, previous]);
  }
  if (row.summary !== null && stale(row.summary)) {
    const summary = parseSummary(id, sessionsTable, JSON.parse(row.summary), keyring);
    await client.query(`UPDATE ${schema}.sessions SET ${summaryAssignments(2)} WHERE id = $1`, [
      id,
      ...summaryValues(summary, key),
    ]);
  }

  const stored = await client.query<{ seq: string; format_version: number; state: string; operations: unknown }>(
    `SELECT seq, format_version, state::text AS state, operations FROM ${schema}.snapshots WHERE session_id = $1`,
    [id],
  );
  const snapshotRow = stored.rows[0];
  const snapshot = snapshotRow !== undefined && stale(snapshotRow.state);
  if (snapshotRow && snapshot) {
    const opened = parseSnapshot(
      id,
      `${schemaName}.snapshots`,
      { ...snapshotRow, state: JSON.parse(snapshotRow.state) },
      keyring,
    );
    await client.query(`UPDATE ${schema}.snapshots SET state = $2, operations = NULL WHERE session_id = $1`, [
      id,
      sealedJson(key, snapshotPlace(id), { state: opened.state, operations: opened.operations ?? null }),
    ]);
  }
  return { sessionId: id, key: key.id, records, header, snapshot };
}
