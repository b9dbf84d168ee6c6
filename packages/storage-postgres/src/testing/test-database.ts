// Test support: one throw-away cluster per test file, a fresh schema per test, and every
// store and pool opened by a test closed after it.
import { randomBytes } from 'node:crypto';
import type { JournalEvent } from '@resume/core/spec';
import pg from 'pg';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { PostgresStoreOptions } from '../connection.js';
import { createPostgresStore, type PostgresStore } from '../postgres-store.js';
import {
  findPostgres,
  type PostgresAvailability,
  type PostgresCluster,
  startPostgresCluster,
} from './postgres-cluster.js';

export const postgres: PostgresAvailability = findPostgres();

export interface TestDatabase {
  readonly url: string;
  /** A schema name nobody else uses. */
  freshSchema(): string;
  /** A store on `schema` (a fresh one by default), closed after the test. */
  openStore(options?: Partial<PostgresStoreOptions>): PostgresStore;
  /** A raw pool for tampering with rows, ended after the test. */
  openPool(): pg.Pool;
}

/** Call at the top of a describe block that is skipped when `postgres.available` is false. */
export function useTestDatabase(): TestDatabase {
  let cluster: PostgresCluster | null = null;
  const closers: Array<() => Promise<void>> = [];
  beforeAll(async () => {
    cluster = await startPostgresCluster(postgres);
  });
  afterEach(async () => {
    const pending = closers.splice(0).reverse();
    for (const close of pending) await close().catch(() => {});
  });
  afterAll(async () => {
    await cluster?.stop();
  });
  const url = () => {
    if (!cluster) throw new Error('the PostgreSQL cluster did not start');
    return cluster.url;
  };
  const database: TestDatabase = {
    get url() {
      return url();
    },
    freshSchema: () => `test_${randomBytes(6).toString('hex')}`,
    openStore(options = {}) {
      const store = createPostgresStore({ connectionString: url(), schema: database.freshSchema(), ...options });
      closers.push(() => store.close());
      return store;
    },
    openPool() {
      const pool = new pg.Pool({ connectionString: url(), max: 2 });
      closers.push(() => pool.end());
      return pool;
    },
  };
  return database;
}

/** Every event a read yields, in order. */
export async function collect(iterable: AsyncIterable<JournalEvent>): Promise<JournalEvent[]> {
  const events: JournalEvent[] = [];
  for await (const event of iterable) events.push(event);
  return events;
}
