// Work queues (docs/workers.md): items per second of 120 queued items, each a session whose one
// step waits 100 ms, drained by 1, 2 and 4 workers of 4 items at once each, and the queue's
// claim latency (an item enqueued to an idle worker until its job starts). Workers here are
// separate queue clients and engines in one process: the items wait rather than compute, so what
// does not scale is the coordination (claims, leases, appends). Runs on the built packages
// against a throw-away cluster, or CONCLAVE_BENCH_POSTGRES_URL. Prints a table.
// Then the same for the items of one queued workflow run's map step (docs/workers.md#queued-map-items):
// each item a child session whose shell step sleeps 100 ms, the run woken as its items end.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createEngine, createSessionId } from '@resume/core';
import { createRunner, MAP_ITEM_JOB, queuedMapItem, runMapItem, runUntilItemsPending } from '@resume/runner';
import { createPostgresStore, createWorkQueue } from '@resume/storage-postgres';
import { findPostgres, startPostgresCluster } from '@resume/storage-postgres/testing';

const ITEMS = Number(process.env.CONCLAVE_BENCH_QUEUE_ITEMS ?? 120);
const CONCURRENCY = 4;
const STEP_MS = 100;
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function itemJob(onStart) {
  return async (session, input) => {
    onStart?.(input);
    await session.step('work', async () => {
      await pause(STEP_MS);
      return input.item;
    });
    return input.item;
  };
}

/** A worker: its own store, engine and queue client, as a process of its own would have. */
async function startWorker(url, schema, queueSchema, onStart) {
  const store = createPostgresStore({ connectionString: url, schema });
  const engine = createEngine({ store });
  engine.register('item', itemJob(onStart), { version: '1' });
  const queue = createWorkQueue({ connectionString: url, schema: queueSchema });
  const worker = await queue.worker(engine, { queues: ['bench'], concurrency: CONCURRENCY });
  return {
    async stop() {
      await worker.stop();
      await queue.close();
      await engine.close();
    },
  };
}

async function drain(url, workers, round) {
  const schema = `bench_queue_${process.pid}_${round}`;
  const queueSchema = `bench_boss_${process.pid}_${round}`;
  const store = createPostgresStore({ connectionString: url, schema });
  const engine = createEngine({ store });
  const queue = createWorkQueue({ connectionString: url, schema: queueSchema });
  try {
    for (let item = 0; item < ITEMS; item += 1) await queue.enqueue('item', { item }, { queue: 'bench' });
    // Started one after the other: workers creating the queue's tables at the same moment collide.
    const started = performance.now();
    const running = [];
    for (let worker = 0; worker < workers; worker += 1) running.push(await startWorker(url, schema, queueSchema));
    for (;;) {
      const completed = await engine.listSessions({ status: ['completed'] });
      if (completed.length >= ITEMS) break;
      await pause(25);
    }
    const seconds = (performance.now() - started) / 1000;
    await Promise.all(running.map((worker) => worker.stop()));
    return ITEMS / seconds;
  } finally {
    await queue.close();
    await engine.close();
  }
}

/** A worker of queued workflow runs and their map items: its own store, engine and queue client. */
async function startMapWorker(url, schema, queueSchema, workspace) {
  const store = createPostgresStore({ connectionString: url, schema });
  const engine = createEngine({ store });
  const queue = createWorkQueue({ connectionString: url, schema: queueSchema });
  const options = {
    models: () => {
      throw new Error('this workflow calls no model');
    },
    workspaceDir: workspace,
    mapItems: {
      async enqueue(item) {
        await queue.enqueue(MAP_ITEM_JOB, queuedMapItem(item), { queue: 'bench', id: item.id });
      },
    },
  };
  const runWorkflow = async (id, input) => {
    const summary = await store.getSummary(id);
    if (summary?.status === 'completed' || summary?.status === 'failed') return summary;
    const result = await runUntilItemsPending(engine, id, async () => {
      const runner = createRunner({ ...options, engine, readTextFile: async () => input?.text ?? '' });
      if (await store.getHeader(id)) return runner.resume(id);
      return runner.runWorkflow(path.join(workspace, 'flow.yaml'), { id });
    });
    if (result.status === 'failed') throw result.error;
    return result;
  };
  const wake = (runId) => queue.enqueue('workflow', null, { queue: 'bench', id: runId });
  const worker = await queue.worker(
    {
      start: (name, input, { id }) =>
        name === MAP_ITEM_JOB ? runMapItem(engine, options, input, wake) : runWorkflow(id, input),
    },
    { queues: ['bench'], concurrency: CONCURRENCY },
  );
  return {
    async stop() {
      await worker.stop();
      await queue.close();
      await engine.close();
    },
  };
}

async function drainMap(url, workers, round) {
  const schema = `bench_map_${process.pid}_${round}`;
  const queueSchema = `bench_map_boss_${process.pid}_${round}`;
  const workspace = mkdtempSync(path.join(tmpdir(), 'conclave-bench-map-'));
  const store = createPostgresStore({ connectionString: url, schema });
  const queue = createWorkQueue({ connectionString: url, schema: queueSchema });
  try {
    writeFileSync(path.join(workspace, 'items.json'), JSON.stringify(Array.from({ length: ITEMS }, (_, item) => item)));
    // As many items out at once as the workers run (the run itself takes a slot now and then).
    const text = `name: bench map\nsteps:\n  - id: each\n    map:\n      items: { file: items.json }\n      parallel: ${workers * CONCURRENCY}\n      do:\n        - shell: 'sleep ${STEP_MS / 1000}'\n`;
    // One after the other (as in drain): workers creating the queue's tables at once collide.
    const running = [];
    for (let worker = 0; worker < workers; worker += 1) {
      running.push(await startMapWorker(url, schema, queueSchema, workspace));
    }
    const started = performance.now();
    const id = await queue.enqueue('workflow', { text }, { queue: 'bench', id: createSessionId() });
    while ((await store.getSummary(id))?.status !== 'completed') await pause(25);
    const seconds = (performance.now() - started) / 1000;
    await Promise.all(running.map((worker) => worker.stop()));
    return ITEMS / seconds;
  } finally {
    await queue.close();
    await store.close();
    rmSync(workspace, { recursive: true, force: true });
  }
}

async function claimLatency(url) {
  const schema = `bench_claim_${process.pid}`;
  const queueSchema = `bench_claim_boss_${process.pid}`;
  const started = new Map();
  const latencies = [];
  const worker = await startWorker(url, schema, queueSchema, (input) => {
    const at = started.get(input.item);
    if (at !== undefined) latencies.push(performance.now() - at);
  });
  const queue = createWorkQueue({ connectionString: url, schema: queueSchema });
  try {
    for (let item = 0; item < 10; item += 1) {
      started.set(item, performance.now());
      await queue.enqueue('item', { item }, { queue: 'bench' });
      while (latencies.length <= item) await pause(5);
    }
  } finally {
    await queue.close();
    await worker.stop();
  }
  latencies.sort((a, b) => a - b);
  return latencies[Math.floor(latencies.length / 2)];
}

async function main() {
  const availability = process.env.CONCLAVE_BENCH_POSTGRES_URL
    ? { available: true, binDirectory: null, externalUrl: process.env.CONCLAVE_BENCH_POSTGRES_URL }
    : findPostgres();
  if (!availability.available) {
    console.warn(`Work queue benchmark skipped: ${availability.reason}`);
    return;
  }
  const cluster = await startPostgresCluster(availability, { fsync: true });
  try {
    const perSecond = {};
    for (const [round, workers] of [1, 2, 4].entries()) perSecond[workers] = await drain(cluster.url, workers, round);
    const latency = await claimLatency(cluster.url);
    const mapPerSecond = {};
    for (const [round, workers] of [1, 2, 4].entries())
      mapPerSecond[workers] = await drainMap(cluster.url, workers, round);
    const ideal = (workers) => (workers * CONCURRENCY * 1000) / STEP_MS;
    console.log(
      `workers   items/s   vs 1 worker   vs sleep-bound ideal (${CONCURRENCY} at once each, ${STEP_MS} ms items)`,
    );
    for (const workers of [1, 2, 4]) {
      console.log(
        `${String(workers).padStart(7)}   ${perSecond[workers].toFixed(1).padStart(7)}   ${(perSecond[workers] / perSecond[1]).toFixed(2).padStart(10)}x   ${(perSecond[workers] / ideal(workers)).toFixed(2).padStart(8)}x`,
      );
    }
    console.log(
      `claim latency (enqueue to the job starting on an idle worker, median of 10): ${latency.toFixed(0)} ms`,
    );
    console.log(
      `queued map of ${ITEMS} items (each a child session; ${CONCURRENCY} at once per worker, ${STEP_MS} ms items)`,
    );
    console.log('workers   items/s   vs 1 worker   vs sleep-bound ideal');
    for (const workers of [1, 2, 4]) {
      console.log(
        `${String(workers).padStart(7)}   ${mapPerSecond[workers].toFixed(1).padStart(7)}   ${(mapPerSecond[workers] / mapPerSecond[1]).toFixed(2).padStart(10)}x   ${(mapPerSecond[workers] / ideal(workers)).toFixed(2).padStart(8)}x`,
      );
    }
  } finally {
    await cluster.stop();
  }
}

await main();
