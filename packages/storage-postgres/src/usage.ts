// What a schema holds, as the file store's `measureHome` tells it of a home (`conclave sessions
// du`): each session's rows by kind (its events, its snapshot, the rest: header, summary,
// requests, rows a repair set aside, derived data), the blobs its journal names and which of them other
// sessions name too, and the blobs' total, each content once. Sizes are what the server stores
// for each value (`pg_column_size`, after its compression), the table's own overhead left out.
// A session sealed with a key names its blobs sealed: its blob counts are null, as on files.
import type pg from 'pg';

export interface BlobCount {
  count: number;
  bytes: number;
}

export interface SessionRowsUsage {
  id: string;
  /** Every row of the session. */
  bytes: number;
  /** Its events (with the summary each append kept). */
  journal: number;
  /** Its fold snapshot and the replay operations kept with it. */
  snapshots: number;
  /** The header and summary, requests to its writer, rows a repair set aside, derived data (a LangGraph thread's index). */
  other: number;
  /** The blobs its journal names: file snapshots, and other blobs (large step outputs); null when sealed. */
  fileSnapshots: BlobCount | null;
  blobs: BlobCount | null;
  /** Of those, the ones other sessions name too. */
  shared: BlobCount | null;
}

export interface SchemaUsage {
  /** The store's location (its password masked) and schema. */
  home: string;
  bytes: number;
  sessions: number;
  sessionCount: number;
  blobs: BlobCount;
  sharedBlobs: BlobCount;
  /** Nothing else is kept beside sessions and blobs: 0, as the file store's index and other. */
  index: number;
  other: number;
  /** Biggest first. */
  bySession: SessionRowsUsage[];
}

type Query = <Row extends pg.QueryResultRow>(
  action: string,
  text: string,
  values: unknown[],
) => Promise<pg.QueryResult<Row>>;

const sum = (column: string, table: string) =>
  `coalesce((SELECT sum(pg_column_size(${column})) FROM ${table} t WHERE t.session_id = s.id), 0)`;

function countOf(hashes: Iterable<string>, sizes: Map<string, number>): BlobCount {
  let count = 0;
  let bytes = 0;
  for (const hash of hashes) {
    count += 1;
    bytes += sizes.get(hash) ?? 0;
  }
  return { count, bytes };
}

export async function measureSchema(query: Query, schema: string, home: string): Promise<SchemaUsage> {
  const action = 'measure the space sessions take';
  const sessions = await query<{ id: string; journal: string; snapshots: string; other: string; sealed: boolean }>(
    action,
    `SELECT s.id,
            ${sum('t.payload', `${schema}.events`)} + ${sum('t.batch_summary', `${schema}.events`)} AS journal,
            ${sum('t.state', `${schema}.snapshots`)} + ${sum('t.operations', `${schema}.snapshots`)} AS snapshots,
            pg_column_size(s.header) + coalesce(pg_column_size(s.summary), 0)
              + ${sum('t.payload', `${schema}.requests`)} + ${sum('t.content', `${schema}.damaged_rows`)}
              + ${sum('t.content', `${schema}.derived`)} AS other,
            EXISTS (SELECT 1 FROM ${schema}.events t WHERE t.session_id = s.id AND t.payload->>'sealed' IS NOT NULL) AS sealed
       FROM ${schema}.sessions s`,
    [],
  );
  const blobRows = await query<{ hash: string; bytes: string }>(
    action,
    `SELECT hash, octet_length(content) AS bytes FROM ${schema}.blobs`,
    [],
  );
  const sizes = new Map(blobRows.rows.map((row) => [row.hash, Number(row.bytes)]));
  // File snapshots under "blob", other blobs under "…Blob" (as measureHome reads a journal).
  const references = await query<{ session_id: string; key: string; hash: string }>(
    action,
    `SELECT DISTINCT e.session_id, m[1] AS key, m[2] AS hash
       FROM ${schema}.events e, regexp_matches(e.payload::text, '"(blob|[A-Za-z]+Blob)":"([0-9a-f]{64})"', 'g') m
      WHERE e.payload->>'sealed' IS NULL`,
    [],
  );
  const named = new Map<string, { fileSnapshots: Set<string>; others: Set<string> }>();
  const namers = new Map<string, number>();
  for (const row of references.rows) {
    if (!sizes.has(row.hash)) continue;
    const entry = named.get(row.session_id) ?? { fileSnapshots: new Set<string>(), others: new Set<string>() };
    named.set(row.session_id, entry);
    const counted = entry.fileSnapshots.has(row.hash) || entry.others.has(row.hash);
    (row.key === 'blob' ? entry.fileSnapshots : entry.others).add(row.hash);
    if (!counted) namers.set(row.hash, (namers.get(row.hash) ?? 0) + 1);
  }
  const isShared = (hash: string) => (namers.get(hash) ?? 0) > 1;
  const bySession = sessions.rows.map((row): SessionRowsUsage => {
    const journal = Number(row.journal);
    const snapshots = Number(row.snapshots);
    const other = Number(row.other);
    const entry = row.sealed ? null : (named.get(row.id) ?? { fileSnapshots: new Set(), others: new Set() });
    const all = entry ? new Set([...entry.fileSnapshots, ...entry.others]) : null;
    return {
      id: row.id,
      bytes: journal + snapshots + other,
      journal,
      snapshots,
      other,
      fileSnapshots: entry ? countOf(entry.fileSnapshots, sizes) : null,
      blobs: entry ? countOf(entry.others, sizes) : null,
      shared: all ? countOf([...all].filter(isShared), sizes) : null,
    };
  });
  bySession.sort((left, right) => right.bytes - left.bytes || left.id.localeCompare(right.id));
  const sessionBytes = bySession.reduce((total, session) => total + session.bytes, 0);
  const blobs = countOf(sizes.keys(), sizes);
  return {
    home,
    bytes: sessionBytes + blobs.bytes,
    sessions: sessionBytes,
    sessionCount: bySession.length,
    blobs,
    sharedBlobs: countOf([...namers.keys()].filter(isShared), sizes),
    index: 0,
    other: 0,
    bySession,
  };
}
