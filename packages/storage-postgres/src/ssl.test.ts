// sslmode as libpq users know it: `require` encrypts without checking the certificate,
// `verify-ca` checks that a trusted CA signed it, `verify-full` also checks the host name;
// and no warning of the driver's own is printed.
import { StoreIoError, UsageError } from '@resume/core/spec';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPostgresStore, type PostgresStore } from './postgres-store.js';
import { announceSkip, type PostgresCluster, startPostgresCluster } from './testing/postgres-cluster.js';
import { postgres } from './testing/test-database.js';

const skipped = announceSkip(postgres);

describe.skipIf(!postgres.available || postgres.externalUrl !== null)(`PostgreSQL over SSL ${skipped}`, () => {
  let cluster: PostgresCluster;
  const warnings: string[] = [];
  const stores: PostgresStore[] = [];
  beforeAll(async () => {
    cluster = await startPostgresCluster(postgres, { ssl: true });
    vi.spyOn(process, 'emitWarning').mockImplementation((warning: string | Error) => {
      warnings.push(String(warning));
    });
  });
  afterAll(async () => {
    for (const store of stores) await store.close();
    vi.restoreAllMocks();
    await cluster?.stop();
  });
  const url = (query: string, host = '127.0.0.1') => `${cluster.url.replace('127.0.0.1', host)}?${query}`;
  const open = (connectionString: string) => {
    const store = createPostgresStore({ connectionString, schema: 'ssl_test' });
    stores.push(store);
    return store;
  };

  it('sslmode=require encrypts without checking the certificate, and prints no warning of the driver', async () => {
    await open(url('sslmode=require')).list();
    const check = new pg.Client({ connectionString: cluster.url });
    await check.connect();
    const encrypted = await check.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM pg_stat_ssl JOIN pg_stat_activity USING (pid)
        WHERE application_name = 'conclave' AND ssl`,
    );
    await check.end();
    expect(encrypted.rows[0]?.count).toBeGreaterThan(0);
    expect(warnings.join('\n')).not.toContain('SECURITY WARNING');
  });

  it('sslmode=verify-ca trusts the CA in sslrootcert whatever the host name, and says when it is missing', async () => {
    await open(url(`sslmode=verify-ca&sslrootcert=${cluster.certificateFile}`)).list();
    const error = (() => {
      try {
        return open(url('sslmode=verify-ca'));
      } catch (caught) {
        return caught;
      }
    })();
    expect(UsageError.isInstance(error)).toBe(true);
    expect(String(error)).toContain('sslrootcert');
    expect(warnings.join('\n')).not.toContain('SECURITY WARNING');
  });

  it('sslmode=verify-full checks the certificate and the host name', async () => {
    await open(url(`sslmode=verify-full&sslrootcert=${cluster.certificateFile}`, 'localhost')).list();
    const wrongHost = await open(url(`sslmode=verify-full&sslrootcert=${cluster.certificateFile}`))
      .list()
      .catch((caught: unknown) => caught);
    expect(StoreIoError.isInstance(wrongHost)).toBe(true);
    const untrusted = await open(url('sslmode=verify-full', 'localhost'))
      .list()
      .catch((caught: unknown) => caught);
    expect(StoreIoError.isInstance(untrusted)).toBe(true);
    expect(String(untrusted)).toMatch(/certificate/);
    expect((untrusted as StoreIoError).hint).toContain('sslrootcert=');
  });

  it('names a certificate file it cannot read, and a mode it does not know', () => {
    const missing = (() => {
      try {
        return open(url('sslmode=verify-full&sslrootcert=/nonexistent/root.crt'));
      } catch (caught) {
        return caught;
      }
    })();
    expect(String(missing)).toContain('/nonexistent/root.crt');
    expect(() => open(url('sslmode=sometimes'))).toThrow(/sslmode/);
  });
});
