import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { generateDataKey } from '@resume/core/encryption';
import { fileSnapshotEvent, testHeader, testSummary } from '@resume/core/testing';
import { describe, expect, it } from 'vitest';
import type { PostgresStore } from './postgres-store.js';
import { announceSkip } from './testing/postgres-cluster.js';
import { postgres, useTestDatabase } from './testing/test-database.js';

const skipped = announceSkip(postgres);

/** A session whose workspace tool snapshotted `content` (as the runner records it). */
async function sessionSnapshotting(store: PostgresStore, content: Uint8Array): Promise<string> {
  const header = testHeader();
  await store.create(header);
  const blob = await store.putBlob(content);
  await store.append(header.id, {
    expectedSeq: 0,
    epoch: 0,
    events: [fileSnapshotEvent(1, blob, content.byteLength)],
    summary: testSummary(header, 1),
  });
  return header.id;
}

describe.skipIf(!postgres.available)(`PostgreSQL blobs no session needs ${skipped}`, () => {
  const database = useTestDatabase();

  /** The rows and bytes of the blobs table. */
  async function blobRows(store: PostgresStore): Promise<{ count: number; bytes: number }> {
    const pool = database.openPool();
    const result = await pool.query<{ count: string; bytes: string | null }>(
      `SELECT count(*) AS count, sum(octet_length(content)) AS bytes FROM "${store.schema}".blobs`,
    );
    return { count: Number(result.rows[0]?.count), bytes: Number(result.rows[0]?.bytes ?? 0) };
  }

  it('keeps one blob for two sessions snapshotting the same 1 MB file, until the last of them is deleted for good', async () => {
    const store = database.openStore();
    const content = randomBytes(1024 * 1024);
    const first = await sessionSnapshotting(store, content);
    const second = await sessionSnapshotting(store, content);
    const hash = await store.putBlob(content);
    expect(await blobRows(store)).toEqual({ count: 1, bytes: 1024 * 1024 });

    await store.delete(first);
    expect(Buffer.from((await store.getBlob(hash)) ?? [])).toEqual(content);
    expect((await blobRows(store)).count).toBe(1);

    await store.delete(second);
    expect(await store.getBlob(hash)).toBeNull();
    expect(await blobRows(store)).toEqual({ count: 0, bytes: 0 });
  });

  it('shares a blob per key on an encrypted database, and keeps it while a session whose key is not held may name it', async () => {
    const key = generateDataKey();
    const other = generateDataKey();
    const content = randomBytes(4096);
    const sealed = database.openStore({ encryption: { keys: { [key.id]: key.key }, current: key.id } });
    const otherStore = database.openStore({
      schema: sealed.schema,
      encryption: { keys: { [other.id]: other.key }, current: other.id },
    });
    const first = await sessionSnapshotting(sealed, content);
    const second = await sessionSnapshotting(sealed, content);
    const hash = await sealed.putBlob(content);
    const third = await sessionSnapshotting(otherStore, content);
    expect((await blobRows(sealed)).count).toBe(2);

    // The store with only the other key cannot read the first two sessions: it keeps their blob.
    await otherStore.delete(first);
    expect(await sealed.getBlob(hash)).not.toBeNull();
    await sealed.delete(third);
    expect((await blobRows(sealed)).count).toBe(2);
    await sealed.delete(second);
    expect(await sealed.getBlob(hash)).toBeNull();
  });

  it('keeps a blob a writer on another machine put while its lease lives, and sweeps one a dead local writer put', async () => {
    const store = database.openStore();
    const remote = database.openStore({ schema: store.schema, holderHost: 'worker-7' });
    const remoteSession = testHeader();
    await remote.create(remoteSession);
    // A pid that is gone here, but the lease names another machine: only its expiry ends it.
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    const remoteLease = await remote.acquireLease(remoteSession.id, { holder: { pid: gone, host: 'worker-7' } });
    const remoteBlob = await remote.putBlob(randomBytes(4096));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await store.sweepBlobs()).toBe(0);
    expect(await store.getBlob(remoteBlob)).not.toBeNull();
    await remoteLease.release();

    const local = testHeader();
    await store.create(local);
    await store.acquireLease(local.id, { holder: { pid: gone, host: hostname() } });
    const localBlob = await store.putBlob(randomBytes(4096));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await store.sweepBlobs()).toBe(2);
    expect(await store.getBlob(localBlob)).toBeNull();
    expect(await store.getBlob(remoteBlob)).toBeNull();
  });

  it('leaves the blobs of a deletion cut short after its commit to the next sweep, and keeps what a repair set aside', async () => {
    const store = database.openStore();
    const content = randomBytes(4096);
    const only = await sessionSnapshotting(store, content);
    const hash = await store.putBlob(content);
    const pool = database.openPool();
    // What a process killed right after the deletion's commit leaves: the session gone, its blob kept.
    await pool.query(`DELETE FROM "${store.schema}".sessions WHERE id = $1`, [only]);
    expect(await store.getBlob(hash)).not.toBeNull();

    const kept = randomBytes(4096);
    const damaged = await sessionSnapshotting(store, kept);
    const keptHash = await store.putBlob(kept);
    await pool.query(
      `INSERT INTO "${store.schema}".damaged_rows (session_id, source, seq, content, problem)
       SELECT session_id, 'events', seq, payload::text, 'set aside' FROM "${store.schema}".events WHERE session_id = $1`,
      [damaged],
    );
    await pool.query(`DELETE FROM "${store.schema}".events WHERE session_id = $1`, [damaged]);
    await new Promise((resolve) => setTimeout(resolve, 20));

    expect(await store.sweepBlobs()).toBe(1);
    expect(await store.getBlob(hash)).toBeNull();
    expect(Buffer.from((await store.getBlob(keptHash)) ?? [])).toEqual(kept);
  });
});
