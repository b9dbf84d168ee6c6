// Several server workers on one thread, as real processes on the same store: whichever worker
// runs the graph now may write the thread, and two runs at the same moment never interleave.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CheckpointTuple } from '@langchain/langgraph-checkpoint';
import type { SessionStore } from '@resume/core/spec';
import { createFsStore } from '@resume/storage-fs';
import { createPostgresStore } from '@resume/storage-postgres';
import {
  announceSkip,
  findPostgres,
  type PostgresCluster,
  startPostgresCluster,
} from '@resume/storage-postgres/testing';
import { type BundledChild, bundleChild, exited, onLines } from '@resume/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GraphWorkerConfig } from '../testing/writer-graph-worker.js';
import { ResumeCheckpointSaver } from './resume-checkpoint-saver.js';

interface Worker {
  child: ReturnType<BundledChild['spawn']>;
  reports: Array<Record<string, unknown>>;
  next(event: string): Promise<Record<string, unknown>>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

let bundle: BundledChild;
const running = new Set<Worker>();

beforeAll(async () => {
  bundle = await bundleChild(new URL('../testing/writer-graph-worker.ts', import.meta.url), {
    external: ['pg-native'],
  });
}, 120_000);

afterAll(async () => {
  for (const worker of running) {
    worker.child.kill('SIGKILL');
    await worker.exit;
  }
  await bundle?.remove();
});

function start(config: GraphWorkerConfig): Worker {
  const child = bundle.spawn([], { ...process.env, CONCLAVE_GRAPH_WORKER: JSON.stringify(config) });
  const reports: Array<Record<string, unknown>> = [];
  const waiting = new Map<string, (report: Record<string, unknown>) => void>();
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  onLines(child.stdout, (line) => {
    const report = JSON.parse(line) as Record<string, unknown>;
    reports.push(report);
    waiting.get(String(report.event))?.(report);
  });
  const exit = exited(child);
  const worker: Worker = {
    child,
    reports,
    exit,
    next: (event) =>
      new Promise((resolve, reject) => {
        const seen = reports.find((report) => report.event === event);
        if (seen) return resolve(seen);
        waiting.set(event, resolve);
        void exit.then(() => {
          const late = reports.find((report) => report.event === event);
          if (late) resolve(late);
          else
            reject(new Error(`worker ${config.label} exited before "${event}": ${JSON.stringify(reports)} ${stderr}`));
        });
      }),
  };
  running.add(worker);
  void exit.then(() => running.delete(worker));
  return worker;
}

/** The thread's checkpoints, newest first, checked to be one chain from the newest to the first. */
async function history(store: SessionStore, threadId: string): Promise<CheckpointTuple[]> {
  const saver = new ResumeCheckpointSaver({ store });
  const tuples: CheckpointTuple[] = [];
  for await (const tuple of saver.list({ configurable: { thread_id: threadId } })) tuples.push(tuple);
  await saver.close();
  return tuples;
}

function expectOneChain(tuples: CheckpointTuple[]): void {
  expect(tuples.length).toBeGreaterThan(0);
  for (const [position, tuple] of tuples.entries()) {
    const older = tuples[position + 1];
    expect(tuple.parentConfig?.configurable?.checkpoint_id).toBe(older?.config.configurable?.checkpoint_id);
  }
}

interface StoreUnderTest {
  name: string;
  available: boolean;
  setup(): Promise<void>;
  teardown(): Promise<void>;
  /** A fresh, empty place for one test: the worker's store config and a store to inspect it. */
  fresh(): Promise<{ config: GraphWorkerConfig['store']; store: SessionStore; cleanup(): Promise<void> }>;
}

const postgres = findPostgres();
let cluster: PostgresCluster | null = null;
const stores: StoreUnderTest[] = [
  {
    name: 'file store',
    available: true,
    setup: async () => {},
    teardown: async () => {},
    async fresh() {
      const dir = await mkdtemp(path.join(tmpdir(), 'conclave-langgraph-workers-'));
      const store = createFsStore({ dir });
      return {
        config: { kind: 'fs', dir },
        store,
        async cleanup() {
          await store.close();
          await rm(dir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: 'PostgreSQL store',
    available: postgres.available,
    setup: async () => {
      cluster = await startPostgresCluster(postgres);
    },
    teardown: async () => {
      await cluster?.stop();
    },
    async fresh() {
      if (!cluster) throw new Error('the PostgreSQL cluster did not start');
      const url = cluster.url;
      const schema = `langgraph_workers_${randomBytes(6).toString('hex')}`;
      const store = createPostgresStore({ connectionString: url, schema });
      return { config: { kind: 'postgres', url, schema }, store, cleanup: () => store.close() };
    },
  },
];

for (const under of stores) {
  describe.skipIf(!under.available)(`several workers on one thread (${under.name})`, () => {
    if (!under.available) announceSkip(postgres);
    beforeAll(() => under.setup(), 120_000);
    afterAll(() => under.teardown());

    it('lets another worker resume a thread that a live worker ran to interrupt()', { timeout: 60_000 }, async () => {
      const place = await under.fresh();
      try {
        // A keeps the thread for a minute after a write unless the interrupt gives it up.
        const first = start({
          store: place.config,
          threadId: 'ticket-1',
          action: 'interrupt',
          label: 'A',
          leaseIdleMs: 60_000,
        });
        expect((await first.next('interrupted')).interrupts).toBe(1);
        // B waits for the thread no longer than a second.
        const second = start({
          store: place.config,
          threadId: 'ticket-1',
          action: 'resume',
          label: 'B',
          leaseWaitMs: 1_000,
        });
        const done = await second.next('done');
        expect(done.log).toEqual(['A', 'draft', 'review: approved', 'publish']);
        expect((await second.exit).code).toBe(0);
        expect(first.child.exitCode).toBeNull();
        expectOneChain(await history(place.store, 'ticket-1'));
        first.child.kill('SIGKILL');
        await first.exit;
      } finally {
        await place.cleanup();
      }
    });

    it('lets one of two workers running the same thread at once win, and keeps one chain', {
      timeout: 60_000,
    }, async () => {
      const place = await under.fresh();
      try {
        const workers = ['A', 'B'].map((label) =>
          start({ store: place.config, threadId: 'ticket-2', action: 'run', label, leaseIdleMs: 200 }),
        );
        for (const worker of workers) await worker.next('ready');
        for (const worker of workers) worker.child.kill('SIGUSR1');
        const exits = await Promise.all(workers.map((worker) => worker.exit));
        const winners = workers.filter((_, index) => exits[index]?.code === 0);
        const losers = workers.filter((_, index) => exits[index]?.code !== 0);
        const outcome = JSON.stringify(workers.map((worker) => worker.reports));
        expect(winners, outcome).toHaveLength(1);
        expect(losers, outcome).toHaveLength(1);
        expect(exits.map((exit) => exit.code).sort()).toEqual([0, 1]);
        const failure = losers[0]?.reports.find((report) => report.event === 'error');
        expect(failure?.code).toBe('langgraph-thread-busy');
        expect(String(failure?.message)).toContain('"ticket-2"');

        const winner = winners[0]?.reports.find((report) => report.event === 'done');
        const label = String((winner?.log as string[] | undefined)?.[0]).split(' ')[0];
        const tuples = await history(place.store, 'ticket-2');
        expectOneChain(tuples);
        // Every checkpoint is the winner's: the input, one after each of the five steps, and the empty start.
        expect(tuples).toHaveLength(7);
        expect(tuples[0]?.checkpoint.channel_values.log).toEqual([
          `${label} start`,
          `${label} one`,
          `${label} two`,
          `${label} three`,
          `${label} four`,
          `${label} five`,
        ]);
      } finally {
        await place.cleanup();
      }
    });
  });
}
