// Queued map items on a real PostgreSQL server: three worker processes drain a queued workflow
// run whose map step has 200 items (each a shell command that sleeps 100 ms and logs its item and
// the worker's pid); one worker is SIGKILLed at a random moment and another started. Every item
// is completed exactly once in the run's journal, each by a child session of the run; a command
// ran again only for items in flight in the killed worker (at most its concurrency); the run and
// every child verify, and the items ran on several workers.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createEngine, createSessionId } from '@resume/core';
import { createPostgresStore, createWorkQueue } from '@resume/storage-postgres';
import {
  announceSkip,
  findPostgres,
  type PostgresCluster,
  startPostgresCluster,
} from '@resume/storage-postgres/testing';
import { type BundledChild, bundleChild, collect, exited, onLines } from '@resume/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from './run-cli.js';
import { sandboxFixture } from './sandbox-fixture.js';

const postgres = findPostgres();
const skipped = announceSkip(postgres);
const ITEMS = 200;
const CONCURRENCY = 4;

const flow = `
name: queued map
steps:
  - id: each
    map:
      items: { file: items.json }
      parallel: 16
      do:
        - shell: 'sleep 0.1; echo "$CONCLAVE_ITEM_ID $WORKER_PID" >> items.log; echo "item $CONCLAVE_ITEM_ID"'
`;

describe.skipIf(!postgres.available || postgres.externalUrl !== null)(`queued map items ${skipped}`, () => {
  let cluster: PostgresCluster;
  let worker: BundledChild | null = null;
  let workspace = '';
  beforeAll(async () => {
    assertBuilt();
    cluster = await startPostgresCluster(postgres);
    workspace = mkdtempSync(path.join(tmpdir(), 'conclave-queued-map-'));
    worker = await bundleChild(new URL('./queued-map-worker.ts', import.meta.url), { external: ['pg-native'] });
  }, 120_000);
  afterAll(async () => {
    await worker?.remove();
    await cluster?.stop();
    rmSync(workspace, { recursive: true, force: true });
  });
  const sandbox = sandboxFixture();

  it('three workers run the 200 items of a queued map; a SIGKILLed worker loses nothing and repeats only what it ran', async () => {
    const log = path.join(workspace, 'items.log');
    writeFileSync(log, '');
    writeFileSync(path.join(workspace, 'items.json'), JSON.stringify(Array.from({ length: ITEMS }, (_, item) => item)));
    const store = createPostgresStore({ connectionString: cluster.url });
    const engine = createEngine({ store });
    const queue = createWorkQueue({ connectionString: cluster.url, claimTimeoutSeconds: 10 });
    const config = {
      url: cluster.url,
      schema: 'conclave',
      queueSchema: 'conclave_queue',
      workspace,
      concurrency: CONCURRENCY,
    };
    const start = () => {
      const child = (worker as BundledChild).spawn([], {
        ...process.env,
        CONCLAVE_QUEUED_MAP_WORKER: JSON.stringify(config),
      });
      const stderr = collect(child.stderr);
      const ready = new Promise<void>((resolve) => onLines(child.stdout, (line) => line === 'ready' && resolve()));
      return { child, stderr, ready };
    };
    const workers = [start(), start(), start()];
    try {
      await Promise.all(workers.map((each) => each.ready));
      const runId = await queue.enqueue('workflow', { text: flow }, { queue: 'items', id: createSessionId() });

      // Kill one worker once a random share of the items has run.
      const killAt = 30 + Math.floor(Math.random() * 60);
      const started = Date.now();
      while (readFileSync(log, 'utf8').split('\n').length - 1 < killAt) {
        if (Date.now() - started > 60_000) {
          throw new Error(
            `only ${readFileSync(log, 'utf8').split('\n').length - 1} items ran in a minute (run: ${JSON.stringify(await store.getSummary(runId))}; queue: ${JSON.stringify(await queue.counts())}); worker output: ${workers.map((each) => each.stderr()).join('\n')}`,
          );
        }
        await pause(20);
      }
      const victim = workers[0];
      victim?.child.kill('SIGKILL');
      await exited(victim?.child as NonNullable<typeof victim>['child']);
      const replacement = start();
      workers.push(replacement);
      await replacement.ready;

      const deadline = Date.now() + 150_000;
      for (;;) {
        const run = await store.getSummary(runId);
        if (run?.status === 'completed') break;
        if (Date.now() > deadline) {
          throw new Error(
            `the run is ${run?.status} (${JSON.stringify(run)}; queue: ${JSON.stringify(await queue.counts())}); worker output: ${workers.map((each) => each.stderr()).join('\n')}`,
          );
        }
        await pause(200);
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

      // The run recorded each item's completion exactly once, with its child's output.
      const state = await engine.readSession(runId);
      const results = state.steps.filter(
        (step) => step.key.endsWith('/queued-result-1') && step.status === 'completed',
      );
      expect(results).toHaveLength(ITEMS);
      expect(new Set(results.map((step) => step.key)).size).toBe(ITEMS);
      expect(results.map((step) => (step.output as { output: string }).output.trim()).sort()).toEqual(
        Array.from({ length: ITEMS }, (_, item) => `item ${item}`).sort(),
      );
      // Each item is a child session of the run, completed, its journal verified.
      const children = (await engine.listSessions()).filter((summary) => summary.id !== runId);
      expect(children).toHaveLength(ITEMS);
      for (const child of children) {
        const childState = await engine.readSession(child.id);
        expect(childState.header.parentId).toBe(runId);
        expect(childState.status).toBe('completed');
        expect((await store.verify(child.id)).problems).toEqual([]);
      }
      const verify = await sandbox.run(['sessions', 'verify', runId], { env: { CONCLAVE_STORE_URL: cluster.url } });
      expect(verify.code, verify.stderr).toBe(0);
      const shown = await sandbox.run(['sessions', 'show', children[0]?.id ?? ''], {
        env: { CONCLAVE_STORE_URL: cluster.url },
      });
      expect(shown.stdout).toMatch(
        /lineage: +\S+ "queued map" → this session {2}\(an item of map step "each" of the parent\)/,
      );

      const pids = new Set(lines.map(([, pid]) => pid));
      expect(pids.size).toBeGreaterThanOrEqual(2);
      process.stderr.write(
        `queued map: ${ITEMS} items over ${pids.size} workers, ${repeated.length} run again after the kill\n`,
      );
    } finally {
      for (const each of workers) each.child.kill('SIGTERM');
      await queue.close();
      await engine.close();
    }
  }, 240_000);
});

function pause(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}
