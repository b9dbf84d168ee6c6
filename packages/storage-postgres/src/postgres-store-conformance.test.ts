import { describeStoreConformance } from '@resume/core/testing';
import { afterEach, beforeEach, describe, it } from 'vitest';
import { createPostgresStore } from './postgres-store.js';
import { announceSkip } from './testing/postgres-cluster.js';
import { postgres, useTestDatabase } from './testing/test-database.js';

const skipped = announceSkip(postgres);

describe.skipIf(!postgres.available)(`PostgreSQL store ${skipped}`, () => {
  const database = useTestDatabase();

  describeStoreConformance(
    'postgres',
    async () => {
      const schema = database.freshSchema();
      const opened = [createPostgresStore({ connectionString: database.url, schema })];
      return {
        store: opened[0]!,
        reopen: async () => {
          const again = createPostgresStore({ connectionString: database.url, schema });
          opened.push(again);
          return again;
        },
        cleanup: async () => {
          for (const store of opened) await store.close();
          const pool = database.openPool();
          await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        },
      };
    },
    { describe, it, beforeEach, afterEach },
  );
});
