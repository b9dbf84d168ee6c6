import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { LeaseLostError, SessionLockedError } from '@resume/core/spec';
import { messageEvents, testHeader, testSummary } from '@resume/core/testing';
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { quoteIdentifier } from './connection.js';
import { takeLease } from './leases.js';
import { announceSkip } from './testing/postgres-cluster.js';
import { postgres, useTestDatabase } from './testing/test-database.js';

const skipped = announceSkip(postgres);
const pause = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/** Retries `attempt` while it throws SessionLockedError (the way a waiting machine would). */
async function acquireWhenFree<T>(attempt: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (!SessionLockedError.isInstance(error)) throw error;
      await pause(25);
    }
  }
}

/** Until a statement on the server waits for a row lock (the one this test made wait). */
async function waitForLockWait(pool: pg.Pool): Promise<void> {
  for (let attempt = 0; attempt < 400; attempt++) {
    const waiting = await pool.query(
      "SELECT count(*)::integer AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()",
    );
    if (waiting.rows[0]?.n > 0) return;
    await pause(10);
  }
  throw new Error('no statement came to wait for the session row');
}

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '0']);
  if (child.pid === undefined) throw new Error('could not start a process');
  return child.pid;
}

describe.skipIf(!postgres.available)(`PostgreSQL leases ${skipped}`, () => {
  const database = useTestDatabase();

  /**
   * A session holding two events, written under a lease whose heartbeat never comes: a paused
   * or dead process on another machine (its lease expires after 150 ms).
   */
  async function pausedHolder() {
    const paused = database.openStore({ holderHost: 'machine-a', leaseTtlMs: 150, heartbeatMs: 3_600_000 });
    const header = testHeader();
    await paused.create(header);
    const oldLease = await paused.acquireLease(header.id, { holder: { pid: process.pid, host: 'a' } });
    await paused.append(header.id, {
      expectedSeq: 0,
      epoch: oldLease.epoch,
      events: messageEvents(1, 2),
      summary: testSummary(header, 2),
    });
    return { paused, header, oldLease };
  }

  it('lets exactly one of two machines take a session; the other learns which machine has it', async () => {
    const machineA = database.openStore({ holderHost: 'machine-a' });
    const machineB = database.openStore({ schema: machineA.schema, holderHost: 'machine-b' });
    const header = testHeader();
    await machineA.create(header);

    const results = await Promise.allSettled(
      [machineA, machineB].map((store) => store.acquireLease(header.id, { holder: { pid: 4242, host: 'ignored' } })),
    );
    const won = results.filter((result) => result.status === 'fulfilled');
    const lost = results.filter((result) => result.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    const winner = won[0]?.status === 'fulfilled' ? won[0].value : null;
    const error = lost[0]?.status === 'rejected' ? lost[0].reason : null;
    expect(SessionLockedError.isInstance(error)).toBe(true);
    expect((error as SessionLockedError).holder.host).toBe(winner?.holder.host);
    expect((error as SessionLockedError).message).toContain(`pid 4242 on host ${winner?.holder.host}`);
    expect(await machineB.inspectLease(header.id)).toEqual(winner?.holder);
  });

  it('never takes over a live holder, however long it holds the session', async () => {
    const holder = database.openStore({ holderHost: 'machine-a', leaseTtlMs: 200, heartbeatMs: 40 });
    const other = database.openStore({ schema: holder.schema, holderHost: 'machine-b' });
    const header = testHeader();
    await holder.create(header);
    await holder.acquireLease(header.id, { holder: { pid: process.pid, host: 'machine-a' } });
    await pause(700); // several lease lifetimes: only the heartbeat keeps it
    await expect(other.acquireLease(header.id, { holder: { pid: process.pid, host: 'b' } })).rejects.toSatisfy(
      (error: unknown) => SessionLockedError.isInstance(error),
    );
  });

  it('takes over an expired lease with a new epoch and refuses the old holder’s late append', async () => {
    const { paused, header, oldLease } = await pausedHolder();
    const other = database.openStore({ schema: paused.schema, holderHost: 'machine-b' });

    const newLease = await acquireWhenFree(() =>
      other.acquireLease(header.id, { holder: { pid: process.pid, host: 'b' } }),
    );
    expect(newLease.epoch).toBe(oldLease.epoch + 1);
    expect(newLease.holder.host).toBe('machine-b');

    const late = paused.append(header.id, {
      expectedSeq: 2,
      epoch: oldLease.epoch,
      events: messageEvents(3, 1),
      summary: testSummary(header, 3),
    });
    await expect(late).rejects.toSatisfy((error: unknown) => LeaseLostError.isInstance(error));
    await other.append(header.id, {
      expectedSeq: 2,
      epoch: newLease.epoch,
      events: messageEvents(3, 1),
      summary: testSummary(header, 3),
    });
    expect((await other.getSummary(header.id))?.lastSeq).toBe(3);
    // The old holder releasing late must not free the new holder's lease.
    await oldLease.release();
    expect((await other.inspectLease(header.id))?.host).toBe('machine-b');
  });

  it('refuses the old holder an append or a rewrite it sent while a takeover was committing', async () => {
    for (const write of ['append', 'rewrite'] as const) {
      const { paused, header, oldLease } = await pausedHolder();
      await pause(200);

      // Machine B takes the expired lease over, as the store does, and has not committed yet.
      const pool = database.openPool();
      const takeover = await pool.connect();
      const schema = quoteIdentifier(paused.schema);
      try {
        await takeover.query('BEGIN');
        const context = { schema, localHost: 'machine-b', isProcessAlive: () => true };
        const taken = await takeLease(takeover, context, header.id, { host: 'machine-b', pid: process.pid }, 60_000);
        expect(taken.epoch).toBe(oldLease.epoch + 1);
        // Machine A wakes up and writes: its statement waits for the session row B holds.
        const late = (
          write === 'append'
            ? paused.append(header.id, {
                expectedSeq: 2,
                epoch: oldLease.epoch,
                events: messageEvents(3, 1),
                summary: testSummary(header, 3),
              })
            : (paused.rewrite?.(header.id, {
                expectedSeq: 2,
                epoch: oldLease.epoch,
                batches: [{ events: messageEvents(1, 1), summary: testSummary(header, 1) }],
              }) ?? Promise.reject(new Error('the PostgreSQL store rewrites journals')))
        ).then(
          () => `${write} went through`,
          (error: unknown) => error,
        );
        await waitForLockWait(pool);
        await takeover.query('COMMIT');
        expect(LeaseLostError.isInstance(await late), write).toBe(true);
      } finally {
        takeover.release();
      }
      const seqs = await pool.query(`SELECT seq FROM ${schema}.events WHERE session_id = $1 ORDER BY seq`, [header.id]);
      expect(seqs.rows.map((row) => Number(row.seq))).toEqual([1, 2]);
    }
  });

  it('takes over at once when the holder on this machine has died', async () => {
    const store = database.openStore({ holderHost: 'this-machine', leaseTtlMs: 3_600_000 });
    const header = testHeader();
    await store.create(header);
    const pid = deadPid();
    const dead = await store.acquireLease(header.id, { holder: { pid, host: 'this-machine' } });
    expect(await store.inspectLease(header.id)).toBeNull();
    const lease = await store.acquireLease(header.id, { holder: { pid: process.pid, host: 'this-machine' } });
    expect(lease.epoch).toBe(dead.epoch + 1);

    // The same pid on another machine is not ours to judge: its lease stands until it expires.
    const elsewhere = database.openStore({ schema: store.schema, holderHost: 'machine-z', leaseTtlMs: 3_600_000 });
    const second = testHeader();
    await elsewhere.create(second);
    await elsewhere.acquireLease(second.id, { holder: { pid, host: 'machine-z' } });
    await expect(store.acquireLease(second.id, { holder: { pid: process.pid, host: 'x' } })).rejects.toSatisfy(
      (error: unknown) => SessionLockedError.isInstance(error),
    );
  });

  it.skipIf(process.platform !== 'linux')(
    'takes over at once when the holder on this machine was killed but never reaped (a zombie)',
    async () => {
      // `sleep 60` is killed; its parent has become `sleep 61`, which never reaps it.
      const parent = spawn('sh', ['-c', 'sleep 60 & echo $!; exec sleep 61'], { stdio: ['ignore', 'pipe', 'ignore'] });
      try {
        const pid = await new Promise<number>((resolve) =>
          parent.stdout.once('data', (chunk) => resolve(Number(`${chunk}`))),
        );
        const store = database.openStore({ holderHost: 'this-machine', leaseTtlMs: 3_600_000 });
        const header = testHeader();
        await store.create(header);
        const zombie = await store.acquireLease(header.id, { holder: { pid, host: 'this-machine' } });
        process.kill(pid, 'SIGKILL');
        const state = () => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0];
        while (state() !== 'Z') await pause(10);
        expect(() => process.kill(pid, 0)).not.toThrow();
        expect(await store.inspectLease(header.id)).toBeNull();
        const lease = await store.acquireLease(header.id, { holder: { pid: process.pid, host: 'this-machine' } });
        expect(lease.epoch).toBe(zombie.epoch + 1);
      } finally {
        parent.kill('SIGKILL');
      }
    },
  );

  it('releases idempotently, and every new lease gets a higher epoch', async () => {
    const store = database.openStore();
    const header = testHeader();
    await store.create(header);
    const first = await store.acquireLease(header.id, { holder: { pid: process.pid, host: 'h' } });
    await first.release();
    await first.release();
    expect(await store.inspectLease(header.id)).toBeNull();
    const second = await store.acquireLease(header.id, { holder: { pid: process.pid, host: 'h' } });
    expect(second.epoch).toBe(first.epoch + 1);
    await expect(
      store.append(header.id, {
        expectedSeq: 0,
        epoch: first.epoch,
        events: messageEvents(1, 1),
        summary: testSummary(header, 1),
      }),
    ).rejects.toSatisfy((error: unknown) => LeaseLostError.isInstance(error));
  });

  it('releases its leases when the store closes', async () => {
    const store = database.openStore();
    const observer = database.openStore({ schema: store.schema });
    const header = testHeader();
    await store.create(header);
    await store.acquireLease(header.id, { holder: { pid: process.pid, host: 'h' } });
    await store.close();
    expect(await observer.inspectLease(header.id)).toBeNull();
  });
});
