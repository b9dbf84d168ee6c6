// Claims of long items: a running item's claim lives as long as its worker does, however long the
// item runs, and expires a bounded time after its worker dies (10 s without a heartbeat here).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createEngine } from '@resume/core';
import { type BundledChild, bundleChild, collect, exited, onLines } from '@resume/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announceSkip } from '../testing/postgres-cluster.js';
import { postgres, useTestDatabase } from '../testing/test-database.js';
import { createWorkQueue } from './work-queue.js';

const skipped = announceSkip(postgres);
const CLAIM_TIMEOUT_SECONDS = 10;

describe.skipIf(!postgres.available)(`claims of long queued items on PostgreSQL ${skipped}`, () => {
  const database = useTestDatabase();
  let worker: BundledChild | null = null;
  let directory = '';
  beforeAll(async () => {
    directory = mkdtempSync(path.join(tmpdir(), 'conclave-claims-'));
    worker = await bundleChild(new URL('../testing/queue-worker-process.ts', import.meta.url), {
      external: ['pg-native'],
    });
  }, 60_000);
  afterAll(async () => {
    await worker?.remove();
    rmSync(directory, { recursive: true, force: true });
  });

  function startWorker(config: Record<string, unknown>) {
    const child = (worker as BundledChild).spawn([], {
      ...process.env,
      CONCLAVE_QUEUE_WORKER: JSON.stringify({ url: database.url, concurrency: 1, ...config }),
    });
    const stderr = collect(child.stderr);
    const starts: { sessionId: string; at: number }[] = [];
    const ready = new Promise<void>((resolve) =>
      onLines(child.stdout, (line) => {
        if (line === 'ready') resolve();
        const started = /^started (\S+)$/.exec(line);
        if (started?.[1]) starts.push({ sessionId: started[1], at: Date.now() });
      }),
    );
    return { child, stderr, starts, ready };
  }

  it('an item running longer than the claim timeout stays with its living worker', async () => {
    const schema = database.freshSchema();
    const queueSchema = database.freshSchema();
    const log = path.join(directory, 'long.log');
    writeFileSync(log, '');
    const engine = createEngine({ store: database.openStore({ schema }) });
    const queue = createWorkQueue({ connectionString: database.url, schema: queueSchema });
    const config = { schema, queueSchema, log, sleepSeconds: CLAIM_TIMEOUT_SECONDS + 6 };
    const workers = [startWorker(config), startWorker(config)];
    try {
      await Promise.all(workers.map((each) => each.ready));
      const id = await queue.enqueue('item', { item: 1 }, { queue: 'items' });
      const deadline = Date.now() + 60_000;
      while ((await engine.listSessions({ status: ['completed'] })).length === 0) {
        if (Date.now() > deadline) throw new Error(`not completed: ${workers.map((each) => each.stderr()).join('\n')}`);
        await pause(200);
      }
      // Handed out once: the second worker never started it.
      const starts = workers.flatMap((each) => each.starts.filter((start) => start.sessionId === id));
      expect(starts).toHaveLength(1);
      expect((await engine.readSession(id)).status).toBe('completed');
    } finally {
      for (const each of workers) each.child.kill('SIGKILL');
      await queue.close();
      await engine.close();
    }
  }, 90_000);

  it("a SIGKILLed worker's item is taken by another once its claim expires", async () => {
    const schema = database.freshSchema();
    const queueSchema = database.freshSchema();
    const log = path.join(directory, 'killed.log');
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
  }, 90_000);
});

function pause(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}
