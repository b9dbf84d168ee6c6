// End-to-end on a real PostgreSQL server: the blobs sessions leave behind (file snapshots) go
// with the last session naming them and at `sessions trash --empty` and `sessions cleanup`, as
// on the file store, and never under a session still running.
import { randomBytes } from 'node:crypto';
import { createEngine } from '@resume/core';
import { createPostgresStore } from '@resume/storage-postgres';
import {
  announceSkip,
  findPostgres,
  type PostgresCluster,
  startPostgresCluster,
} from '@resume/storage-postgres/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from './run-cli.js';
import { sandboxFixture } from './sandbox-fixture.js';

const postgres = findPostgres();
const skipped = announceSkip(postgres);

describe.skipIf(!postgres.available || postgres.externalUrl !== null)(
  `conclave's blobs on PostgreSQL ${skipped}`,
  () => {
    let cluster: PostgresCluster;
    beforeAll(async () => {
      assertBuilt();
      cluster = await startPostgresCluster(postgres);
    });
    afterAll(async () => {
      await cluster?.stop();
    });
    const sandbox = sandboxFixture();

    it('removes a shared file snapshot with its last session, sweeps what stopped writers left, and keeps what a running one put', async () => {
      const env = { CONCLAVE_STORE_URL: cluster.url };
      const store = createPostgresStore({ connectionString: cluster.url });
      const engine = createEngine({ store });
      const content = Buffer.from('the file both sessions read\n');
      const shared = await store.putBlob(content);
      const ids: string[] = [];
      for (const title of ['reads a file', 'reads it again']) {
        const session = await engine.createSession({ title, mode: 'custom' });
        const blob = await store.putBlob(content);
        session.record({ type: 'file-snapshot-taken', path: 'a.txt', hash: blob, size: 28, blob, access: 'read' });
        await session.checkpoint('read');
        await session.complete();
        await session.close();
        ids.push(session.id);
      }
      const [first = '', second = ''] = ids;
      // A writer put this snapshot and stopped before journaling the event naming it.
      const orphan = await store.putBlob(Buffer.from('never named'));

      const now = await sandbox.run(['sessions', 'delete', first, '--now'], { env });
      expect(now.code, now.stderr).toBe(0);
      expect(Buffer.from((await store.getBlob(shared)) ?? []).toString()).toBe('the file both sessions read\n');

      // Still running: its writer holds the lease and names its snapshot at its next checkpoint.
      const running = await engine.createSession({ title: 'still reading', mode: 'custom' });
      const pending = await store.putBlob(Buffer.from('named at the next checkpoint'));

      expect(await sandbox.run(['sessions', 'delete', second], { env })).toMatchObject({ code: 0 });
      expect(await store.getBlob(shared)).not.toBeNull();
      const emptied = await sandbox.run(['sessions', 'trash', '--empty'], { env });
      expect(emptied.code, emptied.stderr).toBe(0);
      expect(emptied.stdout).toContain('Deleted 1 session from the trash for good');
      expect(emptied.stdout).toContain('Removed 1 stored file no session names any more.');
      expect(await store.getBlob(shared)).toBeNull();
      expect(await store.getBlob(orphan)).toBeNull();
      expect(await store.getBlob(pending)).not.toBeNull();

      // It stopped without naming it: the next cleanup sweeps it.
      await running.close();
      const cleanup = await sandbox.json<{ blobsRemoved: number }>(['sessions', 'cleanup', '--older-than', '30d'], {
        env,
      });
      expect(cleanup.blobsRemoved).toBe(1);
      expect(await store.getBlob(pending)).toBeNull();
      await engine.close();
    });

    it('sessions du shows each session with the file snapshots it names, a shared one counted once', async () => {
      const env = { CONCLAVE_STORE_URL: cluster.url };
      const store = createPostgresStore({ connectionString: cluster.url });
      const engine = createEngine({ store });
      const content = Buffer.alloc(200_000, 'a file both sessions read\n');
      const ids: string[] = [];
      for (const title of ['reads a big file', 'reads it again']) {
        const session = await engine.createSession({ title, mode: 'custom' });
        const blob = await store.putBlob(content);
        session.record({
          type: 'file-snapshot-taken',
          path: 'a.txt',
          hash: blob,
          size: content.length,
          blob,
          access: 'read',
        });
        await session.checkpoint('read');
        await session.complete();
        await session.close();
        ids.push(session.id);
      }
      await engine.close();

      interface Counted {
        count: number;
        bytes: number;
      }
      const usage = await sandbox.json<{
        bytes: number;
        blobs: Counted;
        sharedBlobs: Counted;
        top: Array<{ id: string; bytes: number; journal: number; fileSnapshots: Counted; shared: Counted }>;
      }>(['sessions', 'du'], { env });
      expect(usage.blobs).toEqual({ count: 1, bytes: 200_000 });
      expect(usage.sharedBlobs).toEqual({ count: 1, bytes: 200_000 });
      const mine = usage.top.filter((session) => ids.includes(session.id));
      expect(mine).toHaveLength(2);
      for (const session of mine) {
        expect(session.fileSnapshots).toEqual({ count: 1, bytes: 200_000 });
        expect(session.shared).toEqual({ count: 1, bytes: 200_000 });
        expect(session.journal).toBeGreaterThan(0);
        // Deleting it frees its rows, not the blob the other session names too.
        expect(session.bytes).toBeLessThan(200_000);
      }
      expect(usage.bytes).toBeGreaterThan(200_000);
      expect(usage.bytes).toBeLessThan(400_000);

      const human = await sandbox.run(['sessions', 'du'], { env });
      expect(human.code, human.stderr).toBe(0);
      expect(human.stdout).toContain('reads a big file');
      expect(human.stdout).toContain('(1)');
      expect(human.stdout).toMatch(
        /blobs [0-9.]+ KB \(1 blob; [0-9.]+ KB of them shared by several sessions, counted once\)\./,
      );
      expect(human.stdout).toContain('(schema conclave)');
    });

    it("sessions du counts what a session keeps beside its journal (a LangGraph thread's index)", async () => {
      const env = { CONCLAVE_STORE_URL: cluster.url };
      const store = createPostgresStore({ connectionString: cluster.url });
      const engine = createEngine({ store });
      const session = await engine.createSession({ title: 'keeps an index', mode: 'custom' });
      await session.checkpoint('start');
      await session.close();
      await engine.close();
      // Random bytes: the server's compression cannot shrink them.
      const keeper = createPostgresStore({ connectionString: cluster.url });
      await keeper.putDerived?.(session.id, 'langgraph-index', randomBytes(60_000));
      await keeper.close();

      const usage = await sandbox.json<{ top: Array<{ id: string; bytes: number; other: number }> }>(
        ['sessions', 'du'],
        { env },
      );
      const mine = usage.top.find((entry) => entry.id === session.id);
      expect(mine?.other).toBeGreaterThanOrEqual(60_000);
      expect(mine?.bytes).toBeGreaterThanOrEqual(60_000);
    });
  },
);
