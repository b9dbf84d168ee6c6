import { createKeyring, generateDataKey, type Keyring } from '@resume/core/encryption';
import { describeStoreConformance } from '@resume/core/testing';
import { afterEach, beforeEach, describe, it } from 'vitest';
import { createPostgresStore, type PostgresStore } from './postgres-store.js';
import { announceSkip, dumpData } from './testing/postgres-cluster.js';
import { postgres, useTestDatabase } from './testing/test-database.js';

const skipped = announceSkip(postgres);

describe.skipIf(!postgres.available)(`PostgreSQL store ${skipped}`, () => {
  const database = useTestDatabase();

  for (const encrypted of [false, true]) {
    describeStoreConformance(
      encrypted ? 'postgres, encrypted' : 'postgres',
      async () => {
        const schema = database.freshSchema();
        const key = generateDataKey();
        const keyring: Keyring | undefined = encrypted
          ? createKeyring({ keys: { [key.id]: key.key }, current: key.id })
          : undefined;
        const opened: PostgresStore[] = [];
        const open = (encryption: Keyring | undefined) => {
          const store = createPostgresStore({ connectionString: database.url, schema, encryption });
          opened.push(store);
          return store;
        };
        return {
          store: open(keyring),
          reopen: async () => open(keyring),
          ...(keyring
            ? {
                keyring,
                storedText: () => dumpData(postgres, database.url, schema),
                reopenWithoutKey: async () => open(undefined),
              }
            : {}),
          cleanup: async () => {
            for (const store of opened) await store.close();
            const pool = database.openPool();
            await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
          },
        };
      },
      { describe, it, beforeEach, afterEach },
      { encrypted },
    );
  }
});
