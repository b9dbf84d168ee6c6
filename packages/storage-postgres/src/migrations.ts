// Versioned schema migrations. Applied on first use of a store, or ahead of time by
// `conclave db migrate`. Each migration runs once, in order, inside one transaction that
// holds an advisory lock, so two processes starting at once never apply one twice.

import { UnsupportedFormatError } from '@resume/core/spec';
import type pg from 'pg';
import {
  describeLocation,
  openPool,
  type PostgresStoreOptions,
  parseStoreOptions,
  quoteIdentifier,
} from './connection.js';
import { databaseErrorCode, translateDatabaseError } from './database-errors.js';

export interface Migration {
  version: number;
  name: string;
  /** SQL statements; `$schema` is replaced by the quoted schema name. */
  statements: string[];
}

// Event payloads, headers, summaries and snapshots are `json`, not `jsonb`: the journal must
// round-trip exactly (jsonb reorders keys and cannot hold a \u0000 escape, which a tool
// output of a binary file can contain). Filtering uses the extracted columns instead.
export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'sessions, events, blobs, snapshots, leases',
    statements: [
      `CREATE TABLE $schema.sessions (
        id text COLLATE "C" PRIMARY KEY,
        header json NOT NULL,
        journal_seq bigint NOT NULL DEFAULT 0,
        summary json,
        title text,
        mode text,
        status text,
        workspace_dir text,
        created_at text COLLATE "C",
        updated_at text COLLATE "C",
        parent_id text COLLATE "C",
        last_seq bigint,
        message_count bigint,
        input_tokens bigint,
        output_tokens bigint,
        cost_usd double precision,
        inserted_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`,
      `CREATE INDEX sessions_listing ON $schema.sessions (updated_at DESC, id DESC) WHERE summary IS NOT NULL`,
      `CREATE INDEX sessions_status ON $schema.sessions (status, updated_at DESC)`,
      `CREATE INDEX sessions_mode ON $schema.sessions (mode, updated_at DESC)`,
      `CREATE INDEX sessions_workspace ON $schema.sessions (workspace_dir, updated_at DESC)`,
      `CREATE INDEX sessions_parent ON $schema.sessions (parent_id)`,
      `CREATE TABLE $schema.events (
        session_id text COLLATE "C" NOT NULL REFERENCES $schema.sessions (id) ON DELETE CASCADE,
        seq bigint NOT NULL CHECK (seq > 0),
        epoch bigint NOT NULL,
        type text NOT NULL,
        payload json NOT NULL,
        PRIMARY KEY (session_id, seq)
      )`,
      `CREATE TABLE $schema.blobs (
        hash text COLLATE "C" PRIMARY KEY CHECK (hash ~ '^[0-9a-f]{64}$'),
        content bytea NOT NULL,
        size bigint NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`,
      `CREATE TABLE $schema.snapshots (
        session_id text COLLATE "C" PRIMARY KEY REFERENCES $schema.sessions (id) ON DELETE CASCADE,
        seq bigint NOT NULL,
        format_version integer NOT NULL,
        state json NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`,
      // The row outlives a release so the epoch keeps increasing (fencing); a released lease has no holder.
      `CREATE TABLE $schema.leases (
        session_id text COLLATE "C" PRIMARY KEY REFERENCES $schema.sessions (id) ON DELETE CASCADE,
        holder_host text,
        holder_pid integer,
        since timestamptz,
        epoch bigint NOT NULL,
        expires_at timestamptz
      )`,
    ],
  },
  {
    version: 2,
    name: 'requests to a running writer',
    statements: [
      `CREATE TABLE $schema.requests (
        session_id text COLLATE "C" NOT NULL REFERENCES $schema.sessions (id) ON DELETE CASCADE,
        position bigserial,
        id text COLLATE "C" NOT NULL,
        payload json NOT NULL,
        PRIMARY KEY (session_id, id)
      )`,
      `CREATE INDEX requests_order ON $schema.requests (session_id, position)`,
    ],
  },
  {
    version: 3,
    name: 'checksum chain over events, rows set aside by repairs',
    // Rows written before this migration keep a null hash: read as unchecked (see event-chain.ts).
    statements: [
      `ALTER TABLE $schema.events ADD COLUMN hash text, ADD COLUMN batch_summary json`,
      `ALTER TABLE $schema.sessions ADD COLUMN journal_hash text`,
      `CREATE TABLE $schema.damaged_rows (
        id bigserial PRIMARY KEY,
        session_id text COLLATE "C" NOT NULL REFERENCES $schema.sessions (id) ON DELETE CASCADE,
        repaired_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        source text NOT NULL,
        seq bigint,
        epoch bigint,
        hash text,
        content text NOT NULL,
        problem text
      )`,
      `CREATE INDEX damaged_rows_session ON $schema.damaged_rows (session_id, id)`,
    ],
  },
  {
    version: 4,
    name: 'replay operations kept with a snapshot',
    // Null for snapshots written before, or by a writer without an ordered replay log.
    statements: [`ALTER TABLE $schema.snapshots ADD COLUMN operations json`],
  },
  {
    version: 5,
    name: 'derived data kept per session',
    // `key` names the data key `content` is sealed with (null: in the clear).
    statements: [
      `CREATE TABLE $schema.derived (
        session_id text COLLATE "C" NOT NULL REFERENCES $schema.sessions (id) ON DELETE CASCADE,
        name text COLLATE "C" NOT NULL,
        key text,
        content bytea NOT NULL,
        written_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (session_id, name)
      )`,
    ],
  },
];

export const latestMigrationVersion = Math.max(...migrations.map((migration) => migration.version));

export interface MigrationReport {
  schema: string;
  /** Versions applied by this call (empty when the schema was already up to date). */
  applied: number[];
  /** The schema's version after the call. */
  version: number;
}

// Key space of the advisory lock; the second key is the schema's hash, so two schemas migrate independently.
const advisoryLockKey = 0x636f6e63; // "conc"

/** Brings the schema up to date on an open pool. */
export async function migratePool(pool: pg.Pool, schema: string, location: string): Promise<MigrationReport> {
  const quoted = quoteIdentifier(schema);
  const client = await pool.connect().catch((error: unknown) => {
    throw translateDatabaseError(error, location, 'connect');
  });
  try {
    // Every migration applied (the common case): one read, no lock.
    const current = await appliedVersions(client, quoted);
    if (current && current.newest > latestMigrationVersion) {
      throw new UnsupportedFormatError(`The PostgreSQL schema "${schema}" at ${location}`, current.newest);
    }
    if (current && current.count === migrations.length && current.newest === latestMigrationVersion) {
      return { schema, applied: [], version: current.newest };
    }
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [advisoryLockKey, schema]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoted}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${quoted}.migrations (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`,
    );
    const result = await client.query<{ version: number }>(`SELECT version FROM ${quoted}.migrations`);
    const done = new Set(result.rows.map((row) => Number(row.version)));
    const newest = Math.max(0, ...done);
    if (newest > latestMigrationVersion) {
      throw new UnsupportedFormatError(`The PostgreSQL schema "${schema}" at ${location}`, newest);
    }
    const applied: number[] = [];
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      for (const statement of migration.statements) await client.query(statement.replaceAll('$schema', quoted));
      await client.query(`INSERT INTO ${quoted}.migrations (version, name) VALUES ($1, $2)`, [
        migration.version,
        migration.name,
      ]);
      applied.push(migration.version);
    }
    await client.query('COMMIT');
    return { schema, applied, version: Math.max(newest, ...applied) };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw translateDatabaseError(error, location, 'migrate');
  } finally {
    client.release();
  }
}

/** How many migrations the schema has applied and the newest; null when it has no migrations table yet. */
async function appliedVersions(
  client: pg.PoolClient,
  quoted: string,
): Promise<{ count: number; newest: number } | null> {
  try {
    const result = await client.query<{ count: number; newest: number | null }>(
      `SELECT count(*)::integer AS count, max(version) AS newest FROM ${quoted}.migrations`,
    );
    const row = result.rows[0];
    return { count: row?.count ?? 0, newest: row?.newest ?? 0 };
  } catch (error) {
    // undefined_table, invalid_schema_name: a schema not made yet.
    if (['42P01', '3F000'].includes(databaseErrorCode(error) ?? '')) return null;
    throw error;
  }
}

export type MigrateOptions = Pick<PostgresStoreOptions, 'connectionString' | 'pool' | 'schema'>;

/**
 * Applies pending migrations (for `conclave db migrate`); stores also do this on first use.
 * Idempotent and safe to run from several processes at once.
 */
export async function migrate(options: MigrateOptions): Promise<MigrationReport> {
  const resolved = parseStoreOptions(options);
  const { pool, owned } = openPool({ ...resolved, maxConnections: 1 });
  try {
    return await migratePool(pool, resolved.schema, describeLocation(resolved));
  } finally {
    if (owned) await pool.end();
  }
}
