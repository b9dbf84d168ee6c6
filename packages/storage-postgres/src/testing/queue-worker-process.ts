// Test support: a worker process for the work-queue tests (bundled with esbuild). It registers
// the job `item`, whose one step runs a shell command that sleeps 100 ms and appends the item's
// id, this worker's pid and the command's start and end times to a log, and runs the queue's items with `concurrency` at once.
// It prints `ready` once it takes items and `started <session>` as each item starts, then runs
// until killed.
//
// Configuration (JSON in CONCLAVE_QUEUE_WORKER): { url, schema, queueSchema, log, concurrency,
// sleepSeconds? (default 0.1), maxRunning? }.
import { execFile } from 'node:child_process';
import { hostname } from 'node:os';
import { promisify } from 'node:util';
import { createEngine, type Session } from '@resume/core';
import { createPostgresStore } from '../postgres-store.js';
import { createWorkQueue } from '../workers/work-queue.js';

const run = promisify(execFile);

interface Config {
  url: string;
  schema: string;
  queueSchema: string;
  log: string;
  concurrency: number;
  sleepSeconds?: number;
  maxRunning?: number;
}

async function main(): Promise<void> {
  const config = JSON.parse(process.env.CONCLAVE_QUEUE_WORKER ?? '{}') as Config;
  const store = createPostgresStore({ connectionString: config.url, schema: config.schema });
  const engine = createEngine({ store, holder: { pid: process.pid, host: hostname() } });
  engine.register(
    'item',
    async (session: Session, input: { item: number }) => {
      await session.step(
        'work',
        async () => {
          // One line per run: the item, this worker's pid, and when the command started and ended (ms).
          await run('sh', [
            '-c',
            `started=$(date +%s%3N); sleep ${config.sleepSeconds ?? 0.1}; echo "${input.item} ${process.pid} $started $(date +%s%3N)" >> "${config.log}"`,
          ]);
          return input.item;
        },
        // A command a dead worker may have run is run again: the item's log line says so.
        { safety: 'unsafe', onUncertain: () => 'rerun' },
      );
      return input.item;
    },
    { version: '1' },
  );
  const queue = createWorkQueue({
    connectionString: config.url,
    schema: config.queueSchema,
    claimTimeoutSeconds: 10,
    checkIntervalSeconds: 1,
  });
  await queue.worker(engine, {
    queues: ['items'],
    concurrency: config.concurrency,
    ...(config.maxRunning === undefined ? {} : { maxRunning: config.maxRunning }),
    onStart: (item) => process.stdout.write(`started ${item.sessionId}\n`),
  });
  process.stdout.write('ready\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`error ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
