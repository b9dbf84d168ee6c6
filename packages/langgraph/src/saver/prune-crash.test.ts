// A prune killed at any point (SIGKILL, a real process) leaves the thread as it was before or
// as the prune leaves it, never in between, and the thread goes on from there.
import { randomBytes } from 'node:crypto';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { HumanMessage } from '@langchain/core/messages';
import { Command } from '@langchain/langgraph';
import type { CheckpointTuple } from '@langchain/langgraph-checkpoint';
import { createProcessProbe, type SessionStore } from '@resume/core/spec';
import { createFsStore } from '@resume/storage-fs';
import { createPostgresStore } from '@resume/storage-postgres';
import {
  announceSkip,
  findPostgres,
  type PostgresCluster,
  startPostgresCluster,
} from '@resume/storage-postgres/testing';
import { type BundledChild, bundleChild, exited, onLines } from '@resume/test-support';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeWatchingFileSystem } from '../testing/change-watching-file-system.js';
import { allTuples, reviewGraph } from '../testing/prune-cases.js';
import type { PruneWorkerConfig } from '../testing/prune-worker.js';
import { ResumeCheckpointSaver } from './resume-checkpoint-saver.js';

let bundle: BundledChild;
const directories: string[] = [];

beforeAll(async () => {
  bundle = await bundleChild(new URL('../testing/prune-worker.ts', import.meta.url), { external: ['pg-native'] });
}, 120_000);

afterAll(async () => {
  await bundle?.remove();
  for (const directory of directories.splice(0)) await rm(directory, { recursive: true, force: true });
});

const THREAD = 'review';
const config = { configurable: { thread_id: THREAD }, durability: 'sync' as const };

async function temporary(): Promise<string> {
  const directory = await mkdtemp(path.join(tmpdir(), 'conclave-prune-crash-'));
  directories.push(directory);
  return directory;
}

/** Runs a thread of four rounds (each waiting at an interrupt) on `store`. */
async function writeThread(store: SessionStore): Promise<void> {
  const saver = new ResumeCheckpointSaver({ store });
  const graph = reviewGraph().compile({ checkpointer: saver });
  await graph.invoke({ messages: [new HumanMessage('review this')] }, config);
  for (let round = 1; round < 4; round += 1) await graph.invoke(new Command({ resume: `yes ${round}` }), config);
  await saver.close();
}

/** Runs the prune worker; its printed reports and how it ended. */
async function runWorker(worker: PruneWorkerConfig) {
  const child = bundle.spawn([], { ...process.env, CONCLAVE_PRUNE_WORKER: JSON.stringify(worker) });
  const reports: Array<Record<string, unknown>> = [];
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  onLines(child.stdout, (line) => reports.push(JSON.parse(line) as Record<string, unknown>));
  return { child, ended: exited(child).then((exit) => ({ ...exit, reports, stderr })) };
}

/** Which of the two states the thread on `store` is in, checked to be sound and to go on. */
async function stateOf(
  store: SessionStore,
  before: Map<string, CheckpointTuple>,
  after: Map<string, CheckpointTuple>,
): Promise<'before' | 'after' | 'broken'> {
  const saver = new ResumeCheckpointSaver({ store });
  try {
    const tuples = await allTuples(saver, THREAD);
    const state = isDeepStrictEqual(tuples, before) ? 'before' : isDeepStrictEqual(tuples, after) ? 'after' : 'broken';
    expect((await store.verify?.(saver.sessionIdOf(THREAD)))?.problems ?? []).toEqual([]);
    const result = await reviewGraph()
      .compile({ checkpointer: saver })
      .invoke(new Command({ resume: 'after the crash' }), config);
    expect(result.messages.map((message) => message.content)).toContain('after the crash');
    return state;
  } finally {
    await saver.close();
  }
}

/** A thread on the file store (the template home), as it answers before and after a clean prune. */
async function fsThread() {
  const template = await temporary();
  const templateStore = createFsStore({ dir: template });
  await writeThread(templateStore);
  const before = await allTuples(new ResumeCheckpointSaver({ store: templateStore }), THREAD);
  await templateStore.close();

  const clean = await temporary();
  await cp(template, clean, { recursive: true });
  const cleanStore = createFsStore({ dir: clean });
  const pruner = new ResumeCheckpointSaver({ store: cleanStore });
  await pruner.pruneThread(THREAD, { keepLast: 2 });
  const after = await allTuples(pruner, THREAD);
  await cleanStore.close();
  expect(after.size).toBeLessThan(before.size);
  return { template, before, after };
}

/** A copy of the template home, its thread's state after `prune` ran on it, and whether the prune finished. */
async function afterPrune(
  thread: Awaited<ReturnType<typeof fsThread>>,
  prune: (dir: string) => Promise<boolean>,
): Promise<{ state: string; finished: boolean }> {
  const dir = await temporary();
  await cp(thread.template, dir, { recursive: true });
  const finished = await prune(dir);
  const store = createFsStore({ dir });
  try {
    return { state: await stateOf(store, thread.before, thread.after), finished };
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Every state seen, one per point the prune stopped at, must be `before` or `after`; the last run finished. */
function expectBeforeOrAfter(seen: string[]) {
  expect(seen.filter((state) => state !== 'before' && state !== 'after')).toEqual([]);
  expect(seen).toContain('before');
  expect(seen.filter((state) => state === 'after').length).toBeGreaterThan(1);
  expect(seen.at(-1)).toBe('after');
}

describe('a prune stopped at any point, on the file store', () => {
  it('killed (SIGKILL) before any of its changes to a file: the thread is as before or as after, never in between, and goes on', async () => {
    const thread = await fsThread();
    const seen: string[] = [];
    for (let killAt = 1; killAt < 200; killAt += 1) {
      const { state, finished } = await afterPrune(thread, async (dir) => {
        const { ended } = await runWorker({ store: { kind: 'fs', dir, killAt }, threadId: THREAD, keepLast: 2 });
        const exit = await ended;
        const done = exit.reports.some((report) => report.event === 'done');
        if (!done) expect({ killAt, signal: exit.signal, stderr: exit.stderr }).toMatchObject({ signal: 'SIGKILL' });
        return done;
      });
      seen.push(state);
      if (finished) break;
    }
    // Killed before the new journal was in place, and after it (before the lease was given up).
    expectBeforeOrAfter(seen);
  }, 300_000);

  it('failing (an I/O error) at any of its changes to a file: the error reaches the caller, the thread is as before or as after', async () => {
    const thread = await fsThread();
    const seen: string[] = [];
    for (let failAt = 1; failAt < 200; failAt += 1) {
      const { state, finished } = await afterPrune(thread, async (dir) => {
        let injected = false;
        const fileSystem = changeWatchingFileSystem((changes) => {
          if (changes !== failAt) return;
          injected = true;
          throw Object.assign(new Error('simulated I/O failure'), { code: 'EIO' });
        });
        // Its lease records another process start: once the prune stopped, the lease (still held
        // where giving it up failed) is taken over as a gone process's, as it is when a process dies.
        const processProbe = { ...createProcessProbe(), startTime: () => 'the pruning process' };
        const store = createFsStore({ dir, fileSystem, processProbe });
        const saver = new ResumeCheckpointSaver({ store });
        const outcome = await saver.pruneThread(THREAD, { keepLast: 2 }).then(
          () => null,
          (error: unknown) => error,
        );
        await saver.close();
        await store.close().catch(() => undefined);
        if (outcome !== null) expect(String(outcome)).toMatch(/simulated I\/O failure|EIO|I\/O error/i);
        // A failure the store could do without (removing a snapshot that is not there) leaves the prune done.
        return !injected;
      });
      seen.push(state);
      if (finished) break;
    }
    expectBeforeOrAfter(seen);
  }, 300_000);
});

const postgres = findPostgres();
const skipped = announceSkip(postgres);

if (postgres.available) {
  describe('a prune killed in the middle of its transaction, on the PostgreSQL store', () => {
    let cluster: PostgresCluster | null = null;
    beforeAll(async () => {
      cluster = await startPostgresCluster(postgres);
    }, 120_000);
    afterAll(async () => {
      await cluster?.stop();
    });

    // The worker's transaction waits at the table the test holds locked: after reading the
    // session (events), or after deleting the old event rows (snapshots).
    for (const table of ['events', 'snapshots']) {
      it(`leaves the thread as before when killed while it waits for ${table}, and it goes on`, async () => {
        const url = cluster?.url ?? '';
        const schema = `prune_crash_${randomBytes(6).toString('hex')}`;
        const store = createPostgresStore({ connectionString: url, schema });
        const pool = new pg.Pool({ connectionString: url, max: 2 });
        try {
          await writeThread(store);
          const before = await allTuples(new ResumeCheckpointSaver({ store }), THREAD);
          const locker = await pool.connect();
          await locker.query('BEGIN');
          await locker.query(`LOCK TABLE "${schema}".${table} IN SHARE MODE`);
          const { child, ended } = await runWorker({
            store: { kind: 'postgres', url, schema },
            threadId: THREAD,
            keepLast: 2,
          });
          for (let waited = 0; ; waited += 1) {
            const waiting = await pool.query(
              `SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ILIKE $1`,
              [`%${schema}%${table}%`],
            );
            if (waiting.rows.length > 0) break;
            if (waited > 600) throw new Error(`the prune never waited for ${table}`);
            await new Promise((resolve) => setTimeout(resolve, 25));
          }
          child.kill('SIGKILL');
          await ended;
          await locker.query('ROLLBACK');
          locker.release();
          expect(await stateOf(store, before, new Map())).toBe('before');
        } finally {
          await store.close();
          await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
          await pool.end();
        }
      }, 120_000);
    }
  });
} else {
  describe.skip(skipped, () => {
    it('needs a PostgreSQL server', () => {});
  });
}
