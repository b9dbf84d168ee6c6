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
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

describe('a prune killed at any point, on the file store', () => {
  it('leaves the thread as before or as after, never in between, and it goes on', async () => {
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

    const seen: string[] = [];
    for (let killAt = 1; killAt < 200; killAt += 1) {
      const dir = await temporary();
      await cp(template, dir, { recursive: true });
      const { ended } = await runWorker({ store: { kind: 'fs', dir, killAt }, threadId: THREAD, keepLast: 2 });
      const exit = await ended;
      const store = createFsStore({ dir });
      try {
        const state = await stateOf(store, before, after);
        seen.push(state);
        expect({ killAt, state, exit: exit.signal ?? exit.code }).not.toMatchObject({ state: 'broken' });
      } finally {
        await store.close();
      }
      await rm(dir, { recursive: true, force: true });
      if (exit.reports.some((report) => report.event === 'done')) break;
      expect({ killAt, signal: exit.signal, stderr: exit.stderr }).toMatchObject({ signal: 'SIGKILL' });
    }
    // Killed before the new journal was in place, and after it (before the lease was given up); the last run finished.
    expect(seen).toContain('before');
    expect(seen.filter((state) => state === 'after').length).toBeGreaterThan(1);
    expect(seen.at(-1)).toBe('after');
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
