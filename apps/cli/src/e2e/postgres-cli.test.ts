// End-to-end on a real PostgreSQL server: `sessions verify` and `sessions repair` on rows
// damaged with psql as a user would, a server that stops answering, and sslmode as libpq
// users know it.
import { execFile } from 'node:child_process';
import { readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { createKeyring, generateDataKey } from '@resume/core/encryption';
import { messageEvent, testHeader, testSummary } from '@resume/core/testing';
import { createPostgresStore } from '@resume/storage-postgres';
import {
  announceSkip,
  findPostgres,
  freezableProxy,
  type PostgresCluster,
  startPostgresCluster,
} from '@resume/storage-postgres/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from './run-cli.js';
import { sandboxFixture } from './sandbox-fixture.js';

const run = promisify(execFile);
const postgres = findPostgres();
const skipped = announceSkip(postgres);
const psqlDirectory = postgres.available ? (postgres.binDirectory ?? '') : '';

describe.skipIf(!postgres.available || postgres.externalUrl !== null)(`conclave on PostgreSQL ${skipped}`, () => {
  let cluster: PostgresCluster;
  beforeAll(async () => {
    assertBuilt();
    cluster = await startPostgresCluster(postgres, { ssl: true });
  });
  afterAll(async () => {
    await cluster?.stop();
  });
  const sandbox = sandboxFixture();

  const psql = async (sql: string) =>
    (await run(path.join(psqlDirectory, 'psql'), [cluster.url, '-At', '-v', 'ON_ERROR_STOP=1', '-c', sql])).stdout;

  it('verifies and repairs a session whose row was changed, and resumes it', async () => {
    const store = { CONCLAVE_STORE_URL: cluster.url };
    const first = await sandbox.run(['Should we adopt tabs?'], { env: store });
    expect(first.code, first.stderr).toBe(0);
    const [summary] = await sandbox.json<Array<{ id: string }>>(['sessions', 'list'], { env: store });
    const id = summary?.id ?? '';
    expect(await sandbox.run(['sessions', 'verify', id], { env: store })).toMatchObject({ code: 0 });

    // Another valid JSON text in place of the second message: only its checksum can tell.
    const seq = (
      await psql(
        `SELECT seq FROM conclave.events WHERE session_id = '${id}' AND type = 'message-added' ORDER BY seq OFFSET 1 LIMIT 1`,
      )
    ).trim();
    await psql(
      `UPDATE conclave.events SET payload = regexp_replace(payload::text, '"content":"[^"]*"', '"content":"changed"')::json WHERE session_id = '${id}' AND seq = ${seq}`,
    );
    const show = await sandbox.run(['sessions', 'show', id, '--transcript'], { env: store });
    expect(show.code).toBe(65);
    expect(show.stderr).toContain(`PostgreSQL table conclave.events, seq ${seq}`);
    expect(show.stderr).toContain(`conclave sessions repair ${id}`);

    const verify = await sandbox.run(['sessions', 'verify', id], { env: store });
    expect(verify.code).toBe(65);
    expect(verify.stdout).toContain('does not match its checksum');
    const repair = await sandbox.run(['sessions', 'repair', id], { env: store });
    expect(repair.code, repair.stderr).toBe(0);
    expect(repair.stdout).toContain('conclave.damaged_rows');
    expect(await sandbox.run(['sessions', 'verify', id], { env: store })).toMatchObject({ code: 0 });
    expect(Number(await psql(`SELECT count(*) FROM conclave.damaged_rows WHERE session_id = '${id}'`))).toBeGreaterThan(
      0,
    );
    const resumed = await sandbox.run(['--resume', id, '--yes'], { env: store });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await sandbox.run(['sessions', 'verify', id], { env: store })).toMatchObject({ code: 0 });
  });

  it('says it waits for a server that stopped answering, and goes on when it answers', async () => {
    const proxy = await freezableProxy(new URL(cluster.url));
    try {
      const through = new URL(cluster.url);
      through.port = String(proxy.port);
      proxy.freeze();
      const listing = sandbox.start(['sessions', 'list'], { env: { CONCLAVE_STORE_URL: through.toString() } });
      await listing.waitFor(`Waiting for the PostgreSQL server at 127.0.0.1:${proxy.port}`);
      proxy.thaw();
      const result = await listing.done;
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toContain(`The PostgreSQL server at 127.0.0.1:${proxy.port} answered after`);
    } finally {
      proxy.close();
    }
  });

  it('encrypts with sslmode=require without checking the certificate, and prints no warning of the driver', async () => {
    const result = await sandbox.run(['sessions', 'list'], {
      env: { CONCLAVE_STORE_URL: `${cluster.url}?sslmode=require` },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain('SECURITY WARNING');
  });

  it('sessions encrypt seals a session written in the clear; without its key it lists as encrypted; --rekey moves it to a new key', async () => {
    const store = { CONCLAVE_STORE_URL: cluster.url };
    const task = 'Should the Halcyon ferry timetable go public?';
    const plain = await sandbox.run([task], { env: store });
    expect(plain.code, plain.stderr).toBe(0);
    const [session] = await sandbox.json<Array<{ id: string }>>(['sessions', 'list'], { env: store });
    const id = session?.id ?? '';
    const rows = `SELECT header::text || coalesce(summary::text, '') || coalesce(title, '') FROM conclave.sessions WHERE id = '${id}'
                  UNION ALL SELECT payload::text FROM conclave.events WHERE session_id = '${id}'`;
    expect(await psql(rows)).toContain('Halcyon');

    const init = await sandbox.run(['keys', 'init']);
    const keyId = /Created data key ([0-9a-f]{12})/.exec(init.stdout)?.[1] ?? '';
    await writeFile(path.join(sandbox.home, 'config.yaml'), 'encryption: on\n');
    const encrypted = await sandbox.run(['sessions', 'encrypt', '--all'], { env: store });
    expect(encrypted.code, encrypted.stderr).toBe(0);
    expect(encrypted.stdout).toContain(`encrypted  ${id}  with key ${keyId}`);
    expect(await psql(rows)).not.toContain('Halcyon');
    expect(await sandbox.run(['sessions', 'verify', id], { env: store })).toMatchObject({ code: 0 });
    const listed = await sandbox.json<Array<{ title: string }>>(['sessions', 'list'], { env: store });
    expect(listed[0]?.title).toContain('Halcyon');

    expect((await sandbox.run(['keys', 'rotate'])).code).toBe(0);
    const refused = await sandbox.run(['keys', 'retire', keyId], { env: store });
    expect(refused.code).toBe(64);
    expect(refused.stderr).toContain(id);
    expect((await sandbox.run(['sessions', 'encrypt', '--all', '--rekey'], { env: store })).code).toBe(0);
    const retired = await sandbox.run(['keys', 'retire', keyId], { env: store });
    expect(retired.code, retired.stderr).toBe(0);

    await rename(path.join(sandbox.home, 'keys'), path.join(sandbox.root, 'keys-elsewhere'));
    await writeFile(path.join(sandbox.home, 'config.yaml'), 'encryption: off\n');
    const locked = await sandbox.run(['sessions', 'list'], { env: store });
    expect(locked.code, locked.stderr).toBe(0);
    expect(locked.stdout).toMatch(/encrypted \(key [0-9a-f]{12} not available\)/);
    const shown = await sandbox.run(['sessions', 'show', id], { env: store });
    expect(shown.code).toBe(69);
    expect(shown.stderr).toContain('CONCLAVE_ENCRYPTION_KEY');
  });

  it('sessions encrypt --all killed midway leaves every session whole, and a second run finishes; a session whose key is not held is skipped', async () => {
    const library = createPostgresStore({ connectionString: cluster.url });
    const ids: string[] = [];
    try {
      for (let index = 0; index < 30; index += 1) {
        const header = testHeader({ title: `Quillfeather ledger ${index}` });
        await library.create(header);
        const events = Array.from({ length: 40 }, (_, at) => messageEvent(at + 1, `Quillfeather line ${at}`));
        await library.append(header.id, { expectedSeq: 0, epoch: 0, events, summary: testSummary(header, 40) });
        ids.push(header.id);
      }
      const foreign = generateDataKey();
      const lockedStore = createPostgresStore({
        connectionString: cluster.url,
        encryption: { keys: { [foreign.id]: foreign.key }, current: foreign.id },
      });
      const locked = testHeader();
      await lockedStore.create(locked);
      await lockedStore.append(locked.id, {
        expectedSeq: 0,
        epoch: 0,
        events: [messageEvent(1)],
        summary: testSummary(locked, 1),
      });
      await lockedStore.close();

      const init = await sandbox.run(['keys', 'init']);
      const keyId = /Created data key ([0-9a-f]{12})/.exec(init.stdout)?.[1] ?? '';
      await writeFile(path.join(sandbox.home, 'config.yaml'), 'encryption: on\n');
      const env = { CONCLAVE_STORE_URL: cluster.url };

      const first = sandbox.start(['sessions', 'encrypt', '--all'], { env });
      let seen = '';
      first.child.stdout?.on('data', (chunk: string) => {
        seen += chunk;
        if (/encrypted .* with key/.test(seen)) first.child.kill('SIGKILL');
      });
      const killed = await first.done;
      expect(killed.code).toBeNull();
      const sealedRows = async (id: string) =>
        Number(await psql(`SELECT count(*) FROM conclave.events WHERE session_id = '${id}' AND type = 'sealed'`));
      const counts = await Promise.all(ids.map(sealedRows));
      // Each session is converted in one transaction: all of its rows or none.
      for (const count of counts) expect([0, 40]).toContain(count);
      expect(counts.filter((count) => count === 40).length).toBeLessThan(ids.length);

      const second = await sandbox.run(['sessions', 'encrypt', '--all'], { env });
      expect(second.code).toBe(69);
      expect(second.stderr).toContain(`skipped  ${locked.id}  encrypted with key ${foreign.id}`);
      for (const id of ids) expect(second.stderr).not.toContain(id);
      for (const id of ids) expect(await sealedRows(id)).toBe(40);
      expect(await psql(`SELECT count(*) FROM conclave.events WHERE payload::text LIKE '%Quillfeather%'`)).toBe('0\n');

      const keyText = await readFile(path.join(sandbox.home, 'keys', 'data', `${keyId}.key`), 'utf8');
      const reader = createPostgresStore({
        connectionString: cluster.url,
        encryption: createKeyring({ keys: { [keyId]: keyText }, current: keyId }),
      });
      for (const id of ids) expect((await reader.verify(id)).problems).toEqual([]);
      expect((await reader.getHeader(ids[0] ?? ''))?.title).toBe('Quillfeather ledger 0');
      await reader.close();
    } finally {
      await library.close();
    }
  });
});
