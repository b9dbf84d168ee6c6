// A queue's cap over all workers: three worker processes that could each run two items at once
// never run more than the cap together, as the items' own start and end times show; a worker's
// own limit over its queues holds the same way.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createEngine } from '@resume/core';
import { describe, expect, it } from 'vitest';
import { announceSkip } from '../testing/postgres-cluster.js';
import { useQueueWorkers } from '../testing/queue-worker-processes.js';
import { postgres, useTestDatabase } from '../testing/test-database.js';
import { createWorkQueue } from './work-queue.js';

const skipped = announceSkip(postgres);
const ITEMS = 12;

describe.skipIf(!postgres.available)(`caps of queues on PostgreSQL ${skipped}`, () => {
  const database = useTestDatabase();
  const workers = useQueueWorkers();

  async function drain(config: { workers: number; concurrency: number; maxRunning?: number; cap?: number }) {
    const schema = database.freshSchema();
    const queueSchema = database.freshSchema();
    const log = path.join(workers.directory(), `${queueSchema}.log`);
    writeFileSync(log, '');
    const engine = createEngine({ store: database.openStore({ schema }) });
    const queue = createWorkQueue({ connectionString: database.url, schema: queueSchema });
    if (config.cap !== undefined) await queue.setCap('items', config.cap);
    const children = Array.from({ length: config.workers }, () =>
      workers.start({
        url: database.url,
        schema,
        queueSchema,
        log,
        concurrency: config.concurrency,
        sleepSeconds: 0.4,
        ...(config.maxRunning === undefined ? {} : { maxRunning: config.maxRunning }),
      }),
    );
    try {
      await Promise.all(children.map((each) => each.ready));
      for (let item = 0; item < ITEMS; item += 1) await queue.enqueue('item', { item }, { queue: 'items' });
      const deadline = Date.now() + 60_000;
      while ((await engine.listSessions({ status: ['completed'] })).length < ITEMS) {
        if (Date.now() > deadline) throw new Error(`not drained: ${children.map((each) => each.stderr()).join('\n')}`);
        await pause(100);
      }
      const runs = readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .map((line) => line.split(' ').map(Number) as [number, number, number, number]);
      expect(runs).toHaveLength(ITEMS);
      return { runs, caps: await queue.caps() };
    } finally {
      for (const each of children) each.child.kill('SIGKILL');
      await queue.close();
      await engine.close();
    }
  }

  it('three workers with room for six run at most the queue cap of 2 at once', async () => {
    const { runs, caps } = await drain({ workers: 3, concurrency: 2, cap: 2 });
    expect(caps).toEqual({ items: 2 });
    expect(mostAtOnce(runs.map(([, , start, end]) => [start, end]))).toBe(2);
    // More than one worker ran them: the cap is over all of them, not each.
    expect(new Set(runs.map(([, pid]) => pid)).size).toBeGreaterThan(1);
  }, 90_000);

  it("a worker's maxRunning limits it over its queues", async () => {
    const { runs } = await drain({ workers: 1, concurrency: 4, maxRunning: 1 });
    expect(mostAtOnce(runs.map(([, , start, end]) => [start, end]))).toBe(1);
  }, 90_000);
});

/** The most intervals that overlap at any moment. */
function mostAtOnce(intervals: [number, number][]): number {
  const events = intervals.flatMap(([start, end]) => [
    [start, 1],
    [end, -1],
  ]);
  // At the same moment an end comes before a start: one item ending as another starts is not two at once.
  events.sort((a, b) => (a[0] ?? 0) - (b[0] ?? 0) || (a[1] ?? 0) - (b[1] ?? 0));
  let now = 0;
  let most = 0;
  for (const [, change] of events) {
    now += change ?? 0;
    most = Math.max(most, now);
  }
  return most;
}

function pause(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}
