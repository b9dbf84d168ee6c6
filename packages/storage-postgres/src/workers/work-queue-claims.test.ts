// Claims of long items: a running item's claim lives as long as its worker does, however long the
// item runs, and expires a bounded time after its worker dies (10 s without a heartbeat here).
// Each test bounds its own waits; the test timeouts leave room for a machine busy with other tests.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { createEngine, type Engine, type Session } from '@resume/core';
import { SessionLockedError } from '@resume/core/spec';
import { exited } from '@resume/test-support';
import { describe, expect, it } from 'vitest';
import { announceSkip } from '../testing/postgres-cluster.js';
import { useQueueWorkers } from '../testing/queue-worker-processes.js';
import { postgres, useTestDatabase } from '../testing/test-database.js';
import { createWorkQueue } from './work-queue.js';

const skipped = announceSkip(postgres);
const CLAIM_TIMEOUT_SECONDS = 10;

describe.skipIf(!postgres.available)(`claims of long queued items on PostgreSQL ${skipped}`, () => {
  const database = useTestDatabase();
  const workers = useQueueWorkers();
  const startWorker = (config: Record<string, unknown>) =>
    workers.start({ url: database.url, concurrency: 1, ...config });

  it('an item whose session another process holds runs once the hold ends, without using up its retries', async () => {
    const schema = database.freshSchema();
    const queueSchema = database.freshSchema();
    const engine = createEngine({ store: database.openStore({ schema }) });
    engine.register(
      'item',
      async (session: Session, input: { item: number }) => session.step('work', async () => input.item),
      {
        version: '1',
      },
    );
    // One retry: a hold that used up retries would drop the item after two refusals.
    const queue = createWorkQueue({ connectionString: database.url, schema: queueSchema, retryLimit: 1 });
    // Another process holds the session for the first 8 s, as a holder that died does until its lease runs out.
    const heldUntil = Date.now() + 8_000;
    let refusals = 0;
    const held = new Proxy(engine, {
      get(target, property) {
        if (property === 'start') {
          return async (...args: Parameters<Engine['start']>) => {
            if (Date.now() < heldUntil) {
              refusals += 1;
              throw new SessionLockedError(args[2]?.id ?? '', {
                pid: 999_999,
                host: 'gone',
                since: new Date().toISOString(),
              });
            }
            return target.start(...args);
          };
        }
        const value = Reflect.get(target, property);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const worker = await queue.worker(held, { queues: ['items'], concurrency: 1 });
    try {
      const id = await queue.enqueue('item', { item: 3 }, { queue: 'items' });
      const deadline = Date.now() + 60_000;
      while ((await engine.listSessions({ status: ['completed'] })).length === 0) {
        if (Date.now() > deadline)
          throw new Error(
            `not run after the hold ended (${refusals} refusals): ${JSON.stringify(await queue.counts())}`,
          );
        await pause(200);
      }
      expect(refusals).toBeGreaterThanOrEqual(1);
      expect((await engine.readSession(id)).status).toBe('completed');
    } finally {
      await worker.stop();
      await queue.close();
      await engine.close();
    }
  }, 150_000);

  it('four workers started at the same moment on a new queue schema all take items', async () => {
    const schema = database.freshSchema();
    const queueSchema = database.freshSchema();
    const log = path.join(workers.directory(), 'together.log');
    writeFileSync(log, '');
    const engine = createEngine({ store: database.openStore({ schema }) });
    const queue = createWorkQueue({ connectionString: database.url, schema: queueSchema });
    const four = Array.from({ length: 4 }, () => startWorker({ schema, queueSchema, log }));
    try {
      await Promise.all(four.map((each) => each.ready));
      const ids = await Promise.all(
        Array.from({ length: 8 }, (_, item) => queue.enqueue('item', { item }, { queue: 'items' })),
      );
      const deadline = Date.now() + 60_000;
      while ((await engine.listSessions({ status: ['completed'] })).length < ids.length) {
        if (Date.now() > deadline) throw new Error(`not completed: ${four.map((each) => each.stderr()).join('\n')}`);
        await pause(200);
      }
      expect(four.every((each) => each.child.exitCode === null)).toBe(true);
    } finally {
      for (const each of four) each.child.kill('SIGKILL');
      await queue.close();
      await engine.close();
    }
  }, 150_000);

  it('an item running longer than the claim timeout stays with its living worker', async () => {
    const schema = database.freshSchema();
    const queueSchema = database.freshSchema();
    const log = path.join(workers.directory(), 'long.log');
    writeFileSync(log, '');
    const engine = createEngine({ store: database.openStore({ schema }) });
    const queue = createWorkQueue({ connectionString: database.url, schema: queueSchema });
    const config = { schema, queueSchema, log, sleepSeconds: CLAIM_TIMEOUT_SECONDS + 6 };
    const both = [startWorker(config), startWorker(config)];
    try {
      await Promise.all(both.map((each) => each.ready));
      const id = await queue.enqueue('item', { item: 1 }, { queue: 'items' });
      const deadline = Date.now() + 60_000;
      while ((await engine.listSessions({ status: ['completed'] })).length === 0) {
        if (Date.now() > deadline) throw new Error(`not completed: ${both.map((each) => each.stderr()).join('\n')}`);
        await pause(200);
      }
      // Handed out once: the second worker never started it.
      const starts = both.flatMap((each) => each.starts.filter((start) => start.sessionId === id));
      expect(starts).toHaveLength(1);
      expect((await engine.readSession(id)).status).toBe('completed');
    } finally {
      for (const each of both) each.child.kill('SIGKILL');
      await queue.close();
      await engine.close();
    }
  }, 150_000);

  it("a SIGKILLed worker's item is taken by another once its claim expires", async () => {
    const schema = database.freshSchema();
    const queueSchema = database.freshSchema();
    const log = path.join(workers.directory(), 'killed.log');
    writeFileSync(log, '');
    const engine = createEngine({ store: database.openStore({ schema }) });
    const queue = createWorkQueue({ connectionString: database.url, schema: queueSchema });
    const config = { schema, queueSchema, log, sleepSeconds: 2 };
    const first = startWorker({ ...config, sleepSeconds: 300 });
    let second: ReturnType<typeof startWorker> | null = null;
    try {
      await first.ready;
      const id = await queue.enqueue('item', { item: 2 }, { queue: 'items' });
      while (first.starts.length === 0) await pause(100);
      first.child.kill('SIGKILL');
      await exited(first.child);
      const killedAt = Date.now();
      second = startWorker(config);
      await second.ready;
      const deadline = Date.now() + 60_000;
      while ((await engine.listSessions({ status: ['completed'] })).length === 0) {
        if (Date.now() > deadline) throw new Error(`not taken over: ${second.stderr()}`);
        await pause(200);
      }
      const takenAt = second.starts.find((start) => start.sessionId === id)?.at ?? Number.NaN;
      // The claim expires 10 s after the last heartbeat, found within the 1 s check interval (plus a margin for a busy machine).
      expect(takenAt - killedAt).toBeLessThan((CLAIM_TIMEOUT_SECONDS + 10) * 1000);
      expect((await engine.readSession(id)).status).toBe('completed');
    } finally {
      second?.child.kill('SIGKILL');
      await queue.close();
      await engine.close();
    }
  }, 150_000);
});

function pause(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}
