// LangGraph reads against the length of the thread: a StateGraph whose state is small and
// fixed in size (a counter and a ~1 KB note, both replaced at every step), run for 1,000 and
// 10,000 steps with `durability: 'sync'`, so a checkpoint's channels stay the same size and
// only the number of checkpoints grows. Measured from a new saver instance over the reopened
// store (nothing of the thread read yet; a PostgreSQL store has connected, its cost printed
// apart): getTuple of the latest, list({ limit: 10 }), list() of the whole thread;
// ResumeCheckpointSaver over the file store (and over the PostgreSQL store, on a throw-away
// cluster, where a PostgreSQL server is installed; CONCLAVE_BENCH_POSTGRES_URL for another)
// beside LangGraph's SqliteSaver (as shipped, over node:sqlite, see sqlite-saver.mjs) and, on
// the same PostgreSQL server, LangGraph's PostgresSaver (as shipped).
// A read that does not grow with the thread takes the same time at 10,000 as at 1,000.
// Runs from `pnpm bench` or alone: `node bench/src/langgraph-reads.mjs [--quick]`.
import { mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { ResumeCheckpointSaver } from '@resume/langgraph';
import { createFsStore } from '@resume/storage-fs';
import { createPostgresStore } from '@resume/storage-postgres';
import { findPostgres, startPostgresCluster } from '@resume/storage-postgres/testing';
import pg from 'pg';
import { getTupleUs, listUs } from './langgraph.mjs';
import { benchSection } from './measure.mjs';
import { sqliteSaverOnNodeSqlite } from './sqlite-saver.mjs';

const noteText = (index) =>
  `step ${index}: ${'the planner revised its estimate and noted what changed since the last step. '.repeat(15)}`.slice(
    0,
    1024,
  );

const State = Annotation.Root({
  count: Annotation({ reducer: (_left, right) => right, default: () => 0 }),
  note: Annotation({ reducer: (_left, right) => right, default: () => '' }),
});

async function runSmallStateGraph(saver, steps) {
  const graph = new StateGraph(State)
    .addNode('step', (state) => ({ count: state.count + 1, note: noteText(state.count + 1) }))
    .addEdge(START, 'step')
    .addConditionalEdges('step', (state) => (state.count >= steps ? END : 'step'))
    .compile({ checkpointer: saver });
  await graph.invoke(
    { count: 0, note: '' },
    { configurable: { thread_id: 'bench' }, recursionLimit: steps + 10, durability: 'sync' },
  );
}

/** How long `work` took (us). */
async function elapsedUs(work) {
  const start = performance.now();
  await work();
  return (performance.now() - start) * 1000;
}

/**
 * Cold reads of one thread: each figure from a saver of its own that read nothing yet (us); the
 * lists' figures are the medians of three. A store with a `connect` step (PostgreSQL: connecting,
 * the schema's check) takes it before the clock starts, as `PostgresSaver` is set up first in
 * langgraph-postgres.mjs; its cost is kept apart.
 */
async function coldReads(open) {
  const getter = await open();
  const connectUs = await getter.connect();
  const coldUs = await getTupleUs(getter.saver, 1);
  await getter.close();
  // Lists from three new savers, each figure their median: a whole list allocates a great deal,
  // and one run of it moves with the collector's timing.
  const lists = [];
  for (let round = 0; round < 3; round += 1) {
    const lister = await open();
    await lister.connect();
    lists.push(await listUs(lister.saver));
    await lister.close();
  }
  const middle = (key) => lists.map((list) => list[key]).sort((left, right) => left - right)[1];
  return { coldUs, list: { newestUs: middle('newestUs'), wholeUs: middle('wholeUs') }, connectUs };
}

/** A thread of `steps` checkpoints written through a store of `open`, then read cold from new ones. */
async function measureResumeOn(open, steps) {
  const store = open();
  const writer = new ResumeCheckpointSaver({ store });
  await runSmallStateGraph(writer, steps);
  await writer.close();
  await store.close();
  return coldReads(async () => {
    const reopened = open();
    const saver = new ResumeCheckpointSaver({ store: reopened });
    return {
      saver,
      // A read of another session's header: the store's first statement, nothing of the thread.
      connect: () => elapsedUs(() => reopened.getHeader(saver.sessionIdOf('another thread'))),
      close: async () => {
        await saver.close();
        await reopened.close();
      },
    };
  });
}

const measureResume = (root, steps) =>
  measureResumeOn(() => createFsStore({ dir: path.join(root, `resume-${steps}`) }), steps);

/** Removes a schema a measurement made on the server, with what is in it. */
async function dropSchema(url, schema) {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).finally(() => pool.end());
}

async function measurePostgres(url, steps) {
  const schema = `bench_reads_${process.pid}_${steps}`;
  try {
    return await measureResumeOn(() => createPostgresStore({ connectionString: url, schema }), steps);
  } finally {
    await dropSchema(url, schema);
  }
}

/** A PostgreSQL server to measure on: CONCLAVE_BENCH_POSTGRES_URL, else a throw-away cluster, else none. */
async function postgresServer() {
  if (process.env.CONCLAVE_BENCH_POSTGRES_URL)
    return { url: process.env.CONCLAVE_BENCH_POSTGRES_URL, stop: async () => {} };
  const availability = findPostgres();
  if (!availability.available) return { url: null, reason: availability.reason, stop: async () => {} };
  const cluster = await startPostgresCluster(availability);
  return { url: cluster.url, stop: () => cluster.stop() };
}

/** LangGraph's own PostgresSaver on the same server: the same graph, the same cold reads. */
async function measurePostgresSaver(url, steps) {
  const schema = `bench_reads_lg_${process.pid}_${steps}`;
  try {
    const writer = PostgresSaver.fromConnString(url, { schema });
    await writer.setup();
    await runSmallStateGraph(writer, steps);
    await writer.end();
    return await coldReads(async () => {
      const saver = PostgresSaver.fromConnString(url, { schema });
      return {
        saver,
        // Connected, and its schema checked, before the clock starts, as for ours.
        connect: () => elapsedUs(() => saver.setup()),
        close: () => saver.end(),
      };
    });
  } finally {
    await dropSchema(url, schema);
  }
}

async function measureSqlite(root, steps) {
  const directory = path.join(root, `sqlite-${steps}`);
  mkdirSync(directory, { recursive: true });
  const file = path.join(directory, 'checkpoints.sqlite');
  const { saver, database } = sqliteSaverOnNodeSqlite(file, { synchronous: 'NORMAL' });
  await runSmallStateGraph(saver, steps);
  database.prepare('PRAGMA wal_checkpoint(TRUNCATE)').all();
  database.close();
  return coldReads(async () => {
    const reopened = sqliteSaverOnNodeSqlite(file, { synchronous: 'NORMAL' });
    return { saver: reopened.saver, connect: async () => 0, close: async () => reopened.database.close() };
  });
}

export async function measureLangGraphReads({ quick = false } = {}) {
  const lengths = quick ? [300, 1_000] : [1_000, 10_000];
  const root = await mkdtemp(path.join(tmpdir(), 'conclave-langgraph-reads-'));
  const server = await postgresServer();
  try {
    // Warm-up: module loading and JIT, outside the figures.
    await measureResume(root, 50);
    if (server.url) await measurePostgres(server.url, 50);
    const rows = [];
    for (const steps of lengths) {
      rows.push({
        steps,
        resume: await measureResume(root, steps),
        postgres: server.url ? await measurePostgres(server.url, steps) : null,
        postgresSaver: server.url ? await measurePostgresSaver(server.url, steps) : null,
        sqlite: await measureSqlite(root, steps),
      });
    }
    return { rows, postgresSkipped: server.url ? null : server.reason };
  } finally {
    await server.stop();
    await rm(root, { recursive: true, force: true });
  }
}

const pad = (value, width = 14) => String(value).padStart(width);
const milli = (us) => `${(us / 1000).toFixed(1)} ms`;

export function formatLangGraphReads(result) {
  const lines = [
    'LangGraph reads against the thread length: state = a counter and a ~1 KB note, cold (a new saver on the reopened store; lists: median of 3)',
    `${'checkpoints'.padEnd(13)}${'checkpointer'.padEnd(28)}${pad('getTuple')}${pad('list(10)')}${pad('list()')}`,
  ];
  for (const { steps, resume, postgres, postgresSaver, sqlite } of result.rows) {
    for (const [name, row] of [
      ['ResumeCheckpointSaver (fs)', resume],
      ['ResumeCheckpointSaver (pg)', postgres],
      ['PostgresSaver (as shipped)', postgresSaver],
      ['SqliteSaver (as shipped)', sqlite],
    ]) {
      if (!row) continue;
      lines.push(
        `${String(steps).padEnd(13)}${name.padEnd(28)}${pad(milli(row.coldUs))}${pad(milli(row.list.newestUs))}${pad(milli(row.list.wholeUs))}`,
      );
    }
  }
  const longest = result.rows.at(-1);
  const verdict = (ok) => (ok ? 'ok' : 'MISSED');
  if (result.postgresSkipped) lines.push(`  (PostgreSQL rows skipped: ${result.postgresSkipped})`);
  else
    lines.push(
      `  (pg: each new store, ours and PostgresSaver, connected and checked its schema before the clock started: ` +
        `${milli(longest.postgres.connectUs)} and ${milli(longest.postgresSaver.connectUs)})`,
    );
  for (const [store, row] of [
    ['fs', longest.resume],
    ['pg', longest.postgres],
  ]) {
    if (!row) continue;
    lines.push(
      `  ${store}: cold getTuple at ${longest.steps}: ${milli(row.coldUs)}  ${verdict(row.coldUs < 10_000)} (goal < 10 ms)`,
      `  ${store}: cold list({ limit: 10 }) at ${longest.steps}: ${milli(row.list.newestUs)}  ${verdict(row.list.newestUs < 10_000)} (goal < 10 ms)`,
      `  ${store}: list() at ${longest.steps}: Resume ${milli(row.list.wholeUs)}, SqliteSaver ${milli(longest.sqlite.list.wholeUs)}  ` +
        `${verdict(row.list.wholeUs <= longest.sqlite.list.wholeUs)} (goal: no slower than SqliteSaver)`,
    );
  }
  if (longest.postgresSaver)
    lines.push(
      `  pg: list() at ${longest.steps} beside PostgresSaver on the same server: ` +
        `${(longest.postgres.list.wholeUs / longest.postgresSaver.list.wholeUs).toFixed(2)}x (for comparison; no goal)`,
    );
  return `${lines.join('\n')}\n`;
}

/** The section `pnpm bench` runs: measures, prints, returns the figures. */
export const runLangGraphReadsSection = benchSection(import.meta.url, measureLangGraphReads, formatLangGraphReads);
