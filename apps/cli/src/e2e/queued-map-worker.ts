// Test support: a worker process for the queued map test (bundled with esbuild). It runs two
// jobs from the queue `items`: `workflow` (a workflow run whose map items go on the same queue)
// and `conclave.map-item` (one item, a child session of its run). A child that ended wakes its
// run by putting the run's job on the queue again; a run that stopped for its items asks, once
// its lease is released, whether one ended meanwhile and goes on at once if so. It prints
// `ready` once it takes items, then runs until killed.
//
// Configuration (JSON in CONCLAVE_QUEUED_MAP_WORKER): { url, schema, queueSchema, workspace, concurrency }.
import { hostname } from 'node:os';
import path from 'node:path';
import { createEngine } from '@resume/core';
import type { JsonValue } from '@resume/core/spec';
import {
  createRunner,
  MAP_ITEM_JOB,
  queuedMapItem,
  type RunnerOptions,
  runMapItem,
  runUntilItemsPending,
} from '@resume/runner';
import { createPostgresStore, createWorkQueue } from '@resume/storage-postgres';

interface Config {
  url: string;
  schema: string;
  queueSchema: string;
  workspace: string;
  concurrency: number;
}

async function main(): Promise<void> {
  const config = JSON.parse(process.env.CONCLAVE_QUEUED_MAP_WORKER ?? '{}') as Config;
  const store = createPostgresStore({ connectionString: config.url, schema: config.schema });
  const engine = createEngine({ store, holder: { pid: process.pid, host: hostname() } });
  const queue = createWorkQueue({
    connectionString: config.url,
    schema: config.queueSchema,
    claimTimeoutSeconds: 10,
    checkIntervalSeconds: 1,
  });
  const options: Omit<RunnerOptions, 'engine'> = {
    models: () => {
      throw new Error('this workflow calls no model');
    },
    workspaceDir: config.workspace,
    env: { ...process.env, WORKER_PID: String(process.pid) },
    // A command a dead worker may have run is run again: the item's log line says so.
    decisions: { uncertainStep: () => 'rerun' },
    mapItems: {
      async enqueue(item) {
        await queue.enqueue(MAP_ITEM_JOB, queuedMapItem(item), { queue: 'items', id: item.id });
      },
    },
  };
  const runWorkflow = async (id: string, input: JsonValue) => {
    // A wake-up that comes after the run ended has nothing to do.
    const summary = await engine.store.getSummary(id);
    if (summary?.status === 'completed' || summary?.status === 'failed') return summary;
    const text = (input as { text?: string } | null)?.text ?? '';
    const result = await runUntilItemsPending(engine, id, async () => {
      const runner = createRunner({ ...options, engine, readTextFile: async () => text });
      if (await engine.store.getHeader(id)) return runner.resume(id);
      return runner.runWorkflow(path.join(config.workspace, 'flow.yaml'), { id });
    });
    if (result.status === 'failed') throw result.error ?? new Error(`the run of ${id} failed`);
    return result;
  };
  const wake = (runId: string) => queue.enqueue('workflow', null, { queue: 'items', id: runId });
  await queue.worker(
    {
      start: (name, input, { id }) =>
        name === MAP_ITEM_JOB ? runMapItem(engine, options, input, wake) : runWorkflow(id, input),
    },
    {
      queues: ['items'],
      concurrency: config.concurrency,
      // What failed is said, for the test's report when the run does not end.
      onItem: ({ sessionId, outcome, error }) => {
        if (outcome === 'failed') process.stderr.write(`${sessionId} failed: ${(error as Error)?.message}\n`);
      },
    },
  );
  process.stdout.write('ready\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`error ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
