import { randomBytes } from 'node:crypto';
import { createPostgresStore } from '@resume/storage-postgres';
import {
  announceSkip,
  findPostgres,
  type PostgresCluster,
  startPostgresCluster,
} from '@resume/storage-postgres/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { describePruneCases } from '../testing/prune-cases.js';

const postgres = findPostgres();
const skipped = announceSkip(postgres);

if (postgres.available) {
  describe('pruning a thread on the PostgreSQL store', () => {
    let cluster: PostgresCluster | null = null;
    beforeAll(async () => {
      cluster = await startPostgresCluster(postgres);
    }, 120_000);
    afterAll(async () => {
      await cluster?.stop();
    });
    const url = () => {
      if (!cluster) throw new Error('the PostgreSQL cluster did not start');
      return cluster.url;
    };

    describePruneCases(async () => {
      const schema = `langgraph_prune_${randomBytes(6).toString('hex')}`;
      const stores = [createPostgresStore({ connectionString: url(), schema })];
      const pool = new pg.Pool({ connectionString: url(), max: 1 });
      return {
        store: stores[0] as (typeof stores)[number],
        reopen() {
          const store = createPostgresStore({ connectionString: url(), schema });
          stores.push(store);
          return store;
        },
        // The thread's event rows: what a table row takes, as PostgreSQL counts it.
        async size(sessionId) {
          const result = await pool.query<{ bytes: string }>(
            `SELECT coalesce(sum(pg_column_size(e.*)), 0) AS bytes FROM "${schema}".events e WHERE e.session_id = $1`,
            [sessionId],
          );
          return Number(result.rows[0]?.bytes ?? 0);
        },
        async cleanup() {
          for (const store of stores) await store.close();
          try {
            await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
          } finally {
            await pool.end();
          }
        },
      };
    });
  });
} else {
  describe.skip(skipped, () => {
    it('needs a PostgreSQL server', () => {});
  });
}
