// Workers on many machines: three worker processes drain 200 queued items (each a session of a
// registered job whose step runs a shell command that sleeps 100 ms and logs its item and the
// worker's pid); one worker is SIGKILLed at a random moment and another started. Every item's
// session completes with its step completed once; a command ran again only for items that were
// in flight in the killed worker (at most its concurrency), and every journal verifies.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createEngine, createSessionId } from '@resume/core';
import { exited } from '@resume/test-support';
import { describe, expect, it } from 'vitest';
import { announceSkip } from '../testing/postgres-cluster.js';
import { useQueueWorkers } from '../testing/queue-worker-processes.js';
import { postgres, useTestDatabase } from '../testing/test-database.js';
import { createWorkQueue } from './work-queue.js';

const skipped = announceSkip(postgres);
const ITEMS = 200;
const CONCURRENCY = 4;

describe.skipIf(!postgres.available)(`work queues on PostgreSQL ${skipped}`, () => {
  const database = useTestDatabase();
  const workers = useQueueWorkers();

  it('three workers drain 200 queued items; a SIGKILLed worker loses nothing and repeats only what it ran', async () => {
    const schema = database.freshSchema();
    const queueSchema = database.freshSchema();
    const log = path.join(workers.directory(), 'items.log');
    writeFileSync(log, '');
    const store = database.openStore({ schema });
    const engine = createEngine({ store });
    // A kill is noticed when the claims of the killed worker's items expire (10 s here).
    const queue = createWorkQueue({ connectionString: database.url, schema: queueSchema, claimTimeoutSeconds: 10 });
    try {
      const ids: string[] = [];
      for (let item = 0; item < ITEMS; item += 1) {
        ids.push(await queue.enqueue('item', { item }, { queue: 'items', id: createSessionId() }));
      }
      expect((await queue.counts()).find((counts) => counts.queue === 'items')).toMatchObject({ queued: ITEMS });

      const config = { url: database.url, schema, queueSchema, log, concurrency: CONCURRENCY };
      const start = () => workers.start(config);
      const running = [start(), start(), start()];
      await Promise.all(running.map((each) => each.ready));
      // Kill one worker once a random share of the items has run.
      const killAt = 30 + Math.floor(Math.random() * 60);
      while (readFileSync(log, 'utf8').split('\n').length - 1 < killAt) await pause(20);
      const victim = running[0];
      victim?.child.kill('SIGKILL');
      await exited(victim?.child as NonNullable<typeof victim>['child']);
      const replacement = start();
      await replacement.ready;

      const deadline = Date.now() + 90_000;
      for (;;) {
        const completed = await engine.listSessions({ status: ['completed'] });
        if (completed.length === ITEMS) break;
        if (Date.now() > deadline) {
          throw new Error(
            `only ${completed.length} of ${ITEMS} items completed (queue: ${JSON.stringify(await queue.counts())}, others: ${JSON.stringify((await engine.listSessions()).filter((summary) => summary.status !== 'completed').map((summary) => [summary.status, summary.lastSeq]))}); worker output: ${[...running, replacement].map((each) => each.stderr()).join('\n')}`,
          );
        }
        await pause(100);
      }

      const killedPid = victim?.child.pid;
      const lines = readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .map((line) => line.split(' ').map(Number) as [number, number]);
      const runs = new Map<number, number[]>();
      for (const [item, pid] of lines) runs.set(item, [...(runs.get(item) ?? []), pid]);
      // Every item ran; an item ran twice only when its first run was in the killed worker.
      expect([...runs.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: ITEMS }, (_, item) => item));
      const repeated = [...runs.entries()].filter(([, pids]) => pids.length > 1);
      for (const [item, pids] of repeated) {
        expect(pids.length, `item ${item} ran ${pids.length} times`).toBe(2);
        expect(pids[0], `item ${item}'s first run`).toBe(killedPid);
      }
      expect(repeated.length).toBeLessThanOrEqual(CONCURRENCY);
      // Each session recorded its step completed exactly once, and every journal verifies.
      for (const id of ids) {
        const state = await engine.readSession(id);
        expect(state.steps.filter((step) => step.key === 'work' && step.status === 'completed')).toHaveLength(1);
        expect((await store.verify(id)).problems).toEqual([]);
      }
      const pids = new Set(lines.map(([, pid]) => pid));
      expect(pids.size).toBeGreaterThanOrEqual(3);
      process.stderr.write(
        `work queue: ${ITEMS} items over ${pids.size} workers, ${repeated.length} run again after the kill\n`,
      );
      for (const each of [...running.slice(1), replacement]) each.child.kill('SIGTERM');
    } finally {
      await queue.close();
    }
  }, 150_000);
});

function pause(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}
