import { randomBytes } from 'node:crypto';
import { createPostgresStore } from '@resume/storage-postgres';
import {
  announceSkip,
  findPostgres,
  type PostgresCluster,
  startPostgresCluster,
} from '@resume/storage-postgres/testing';
import pg from 'pg';
import { describe, it } from 'vitest';
import { validateOnStore } from './testing/validation.js';

const postgres = findPostgres();
const skipped = announceSkip(postgres);

if (postgres.available) {
  let cluster: PostgresCluster | null = null;
  const url = () => {
    if (!cluster) throw new Error('the PostgreSQL cluster did not start');
    return cluster.url;
  };
  validateOnStore(
    'PostgreSQL store',
    async () => {
      const schema = `langgraph_${randomBytes(6).toString('hex')}`;
      return {
        store: createPostgresStore({ connectionString: url(), schema }),
        async cleanup() {
          const pool = new pg.Pool({ connectionString: url(), max: 1 });
          try {
            await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
          } finally {
            await pool.end();
          }
        },
      };
    },
    {
      beforeAll: async () => {
        cluster = await startPostgresCluster(postgres);
      },
      afterAll: async () => {
        await cluster?.stop();
      },
    },
  );
} else {
  describe.skip(skipped, () => {
    it('needs a PostgreSQL server', () => {});
  });
}
