// Blobs a session deleted for good leaves behind, by the file store's rules (docs/storage.md#blobs).
// A blob is stored once per content for the whole schema and shared by every session whose journal
// names it (file snapshots, large outputs, LangGraph values); it goes when the last of them does.
// Kept, rather than guessed away, is every blob a session that cannot be read might name (a key
// that is not held), every blob named by a row a repair set aside, and every blob put or put again
// (`created_at` renewed) after the look for references started or after any live writer took its
// lease: a running session journals the event naming a blob it put only at its next checkpoint.
// The look for references comes first and the removal is one statement, so a process killed
// between them leaves blobs behind (for the next sweep) and never removes a named one.
import type { Keyring, SealedPlace } from '@resume/core/encryption';
import type pg from 'pg';
import { type LeaseContext, type LeaseRow, liveHolder } from './leases.js';
import { eventPlace, openJson } from './row-sealing.js';

/** A blob's name as a JSON string: its sha256, or its HMAC under a key on an encrypted database. */
const BLOB_REFERENCE = /"([0-9a-f]{64})"/g;
const BLOB_REFERENCE_SQL = `'"([0-9a-f]{64})"'`;

type Query = <Row extends pg.QueryResultRow>(
  action: string,
  text: string,
  values: unknown[],
) => Promise<pg.QueryResult<Row>>;

export interface BlobCollectorContext {
  /** The quoted schema. */
  schema: string;
  keyring: Keyring | null;
  lease: LeaseContext;
  query: Query;
}

export interface BlobCollector {
  /** The blobs a session's journal names (read through its key when sealed); empty when it cannot be read. */
  namedBy(sessionId: string): Promise<Set<string>>;
  /** Removes those of `candidates` (every blob when null) no session names, under the rules above; resolves to how many went. */
  collect(candidates: Set<string> | null): Promise<number>;
}

export function createBlobCollector(context: BlobCollectorContext): BlobCollector {
  const { schema, keyring, query } = context;

  /** A sealed row's content as JSON text, or null when its key is not held or it does not open. */
  const openedText = (payload: string, place: SealedPlace): string | null => {
    try {
      const opened = openJson(JSON.parse(payload), keyring, place, `seq ${place.position}`);
      return opened.ok ? JSON.stringify(opened.value) : null;
    } catch {
      return null;
    }
  };

  /** The blob names in sealed event rows (of one session, or all), or null when one cannot be opened. */
  const sealedNames = async (sessionId: string | null): Promise<Set<string> | null> => {
    const sessions =
      sessionId === null
        ? (
            await query<{ session_id: string }>(
              'find the sealed sessions',
              `SELECT DISTINCT session_id FROM ${schema}.events WHERE payload->>'sealed' IS NOT NULL`,
              [],
            )
          ).rows.map((row) => row.session_id)
        : [sessionId];
    const names = new Set<string>();
    for (const id of sessions) {
      const rows = await query<{ seq: string; payload: string }>(
        `read the blobs session ${id} names`,
        `SELECT seq, payload::text AS payload FROM ${schema}.events
          WHERE session_id = $1 AND payload->>'sealed' IS NOT NULL`,
        [id],
      );
      for (const row of rows.rows) {
        const seq = Number(row.seq);
        const text = openedText(row.payload, eventPlace(id, seq));
        if (text === null) return null;
        for (const match of text.matchAll(BLOB_REFERENCE)) names.add(match[1] as string);
      }
    }
    return names;
  };

  /** The names in plain event rows and set-aside rows, among `candidates` (all when null). */
  const plainNames = async (candidates: string[] | null): Promise<Set<string>> => {
    const result = await query<{ name: string }>(
      'find the blobs sessions name',
      `SELECT DISTINCT m[1] AS name
         FROM ${schema}.events e, regexp_matches(e.payload::text, ${BLOB_REFERENCE_SQL}, 'g') m
        WHERE e.payload->>'sealed' IS NULL AND ($1::text[] IS NULL OR m[1] = ANY($1))
       UNION
       SELECT m[1] FROM ${schema}.damaged_rows d, regexp_matches(d.content, ${BLOB_REFERENCE_SQL}, 'g') m
        WHERE $1::text[] IS NULL OR m[1] = ANY($1)`,
      [candidates],
    );
    return new Set(result.rows.map((row) => row.name));
  };

  /** The database's time now, or when a live writer took its lease if earlier: only blobs put before it may go. */
  const removableBefore = async (): Promise<Date> => {
    const result = await query<LeaseRow & { now: Date }>(
      'read the live writers',
      `SELECT clock_timestamp() AS now, l.holder_host, l.holder_pid, l.since, l.epoch,
              (l.expires_at > clock_timestamp()) AS live
         FROM (SELECT 1) AS one LEFT JOIN ${schema}.leases l ON l.holder_pid IS NOT NULL`,
      [],
    );
    let before = result.rows[0]?.now ?? new Date(0);
    for (const row of result.rows) {
      const holder = row.since === null ? null : liveHolder(row, context.lease);
      if (holder && row.since && row.since < before) before = row.since;
    }
    return before;
  };

  return {
    async namedBy(sessionId) {
      const sealed = await sealedNames(sessionId);
      if (sealed === null) return new Set();
      const plain = await query<{ name: string }>(
        `read the blobs session ${sessionId} names`,
        `SELECT DISTINCT m[1] AS name
           FROM ${schema}.events e, regexp_matches(e.payload::text, ${BLOB_REFERENCE_SQL}, 'g') m
          WHERE e.session_id = $1 AND e.payload->>'sealed' IS NULL`,
        [sessionId],
      );
      for (const row of plain.rows) sealed.add(row.name);
      return sealed;
    },

    async collect(candidates) {
      const wanted = candidates === null ? null : [...candidates];
      if (wanted?.length === 0) return 0;
      const stored = await query<{ hash: string }>(
        'find the stored blobs',
        `SELECT hash FROM ${schema}.blobs WHERE $1::text[] IS NULL OR hash = ANY($1)`,
        [wanted],
      );
      const unnamed = new Set(stored.rows.map((row) => row.hash));
      if (unnamed.size === 0) return 0;
      // The leases before the journals: a writer that journals its blob and releases in between is
      // then seen by its journal, never missed by both.
      const before = await removableBefore();
      for (const name of await plainNames(wanted)) unnamed.delete(name);
      if (unnamed.size === 0) return 0;
      const sealed = await sealedNames(null);
      if (sealed === null) return 0;
      for (const name of sealed) unnamed.delete(name);
      if (unnamed.size === 0) return 0;
      // Strictly before: a put in the same microsecond as the lease is kept.
      const removed = await query(
        'remove the blobs no session names',
        `DELETE FROM ${schema}.blobs WHERE hash = ANY($1) AND created_at < $2`,
        [[...unnamed], before],
      );
      return removed.rowCount ?? 0;
    },
  };
}
