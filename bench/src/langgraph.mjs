// LangGraph checkpointers side by side in one run: a real 1,000-step StateGraph whose state
// is a growing message list (one ~1 KB message per step, LangGraph's messages reducer), run
// with `durability: 'sync'` (each step's checkpoint is saved before the next step starts) on
//   - ResumeCheckpointSaver over the file store (@resume/langgraph; fsync per put),
//   - LangGraph's SqliteSaver as shipped (WAL, synchronous=NORMAL: no fsync per put) and with
//     synchronous=FULL (an fsync per put), over node:sqlite (see sqlite-saver.mjs),
//   - LangGraph's MemorySaver (nothing durable: the graph's own cost).
// Reported: time per step over the first and the last 10% of the run, bytes on disk, and the
// latency of getTuple for the latest checkpoint (warm, and cold from a new saver instance), and
// of list() of the newest 10 and of the whole thread (cold).
// Runs from `pnpm bench` or alone: `node bench/src/langgraph.mjs [--quick]`.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { MemorySaver } from '@langchain/langgraph-checkpoint';
import { ResumeCheckpointSaver } from '@resume/langgraph';
import { createFsStore } from '@resume/storage-fs';
import { benchSection, bytesUnder, median } from './measure.mjs';
import { sqliteSaverOnNodeSqlite } from './sqlite-saver.mjs';

const messageText = (index) =>
  `turn ${index}: ${'the reviewer weighed the proposal, listed two risks and asked for numbers. '.repeat(15)}`.slice(
    0,
    1024,
  );

/** Runs the graph for `steps` steps on `saver`; returns the time between consecutive steps (us). */
export async function runGraph(saver, steps) {
  const stamps = [];
  const graph = new StateGraph(MessagesAnnotation)
    .addNode('speak', (state) => {
      stamps.push(performance.now());
      return { messages: [new AIMessage(messageText(state.messages.length))] };
    })
    .addEdge(START, 'speak')
    .addConditionalEdges('speak', (state) => (state.messages.length >= steps ? END : 'speak'))
    .compile({ checkpointer: saver });
  await graph.invoke(
    { messages: [new HumanMessage(messageText(0))] },
    { configurable: { thread_id: 'bench' }, recursionLimit: steps + 10, durability: 'sync' },
  );
  const samples = [];
  for (let index = 1; index < stamps.length; index += 1) samples.push((stamps[index] - stamps[index - 1]) * 1000);
  const tenth = Math.max(1, Math.floor(samples.length / 10));
  return { firstUs: median(samples.slice(0, tenth)), lastUs: median(samples.slice(-tenth)) };
}

export async function getTupleUs(saver, repeats) {
  const samples = [];
  for (let repeat = 0; repeat < repeats; repeat += 1) {
    const start = performance.now();
    const tuple = await saver.getTuple({ configurable: { thread_id: 'bench' } });
    samples.push((performance.now() - start) * 1000);
    if (!tuple) throw new Error('getTuple found no checkpoint');
  }
  return median(samples);
}

/** list() from a saver that has not read the thread yet: the newest 10, then the whole thread (us). */
export async function listUs(saver) {
  const config = { configurable: { thread_id: 'bench' } };
  const timed = async (options) => {
    const start = performance.now();
    let count = 0;
    for await (const _tuple of saver.list(config, options)) count += 1;
    if (count === 0) throw new Error('list found no checkpoint');
    return (performance.now() - start) * 1000;
  };
  const newestUs = await timed({ limit: 10 });
  return { newestUs, wholeUs: await timed({}) };
}

async function measureResume(root, steps, repeats) {
  const directory = path.join(root, 'resume');
  const store = createFsStore({ dir: directory });
  const saver = new ResumeCheckpointSaver({ store });
  const phases = await runGraph(saver, steps);
  const warmUs = await getTupleUs(saver, repeats);
  await saver.close();
  await store.close();
  const coldStore = createFsStore({ dir: directory });
  const cold = new ResumeCheckpointSaver({ store: coldStore });
  const coldUs = await getTupleUs(cold, 1);
  await cold.close();
  await coldStore.close();
  const listStore = createFsStore({ dir: directory });
  const lister = new ResumeCheckpointSaver({ store: listStore });
  const list = await listUs(lister);
  await lister.close();
  await listStore.close();
  return { ...phases, bytes: bytesUnder(directory), warmUs, coldUs, list };
}

async function measureSqlite(root, steps, repeats, synchronous) {
  const directory = path.join(root, `sqlite-${synchronous}`);
  (await import('node:fs')).mkdirSync(directory, { recursive: true });
  const file = path.join(directory, 'checkpoints.sqlite');
  const { saver, database } = sqliteSaverOnNodeSqlite(file, { synchronous });
  const phases = await runGraph(saver, steps);
  const warmUs = await getTupleUs(saver, repeats);
  const bytesWithWal = bytesUnder(directory);
  database.prepare('PRAGMA wal_checkpoint(TRUNCATE)').all();
  database.close();
  const reopened = sqliteSaverOnNodeSqlite(file, { synchronous });
  const coldUs = await getTupleUs(reopened.saver, 1);
  reopened.database.close();
  const listed = sqliteSaverOnNodeSqlite(file, { synchronous });
  const list = await listUs(listed.saver);
  listed.database.close();
  return { ...phases, bytes: bytesUnder(directory), bytesWithWal, warmUs, coldUs, list };
}

async function measureMemory(steps, repeats) {
  const saver = new MemorySaver();
  const phases = await runGraph(saver, steps);
  return { ...phases, bytes: null, warmUs: await getTupleUs(saver, repeats), coldUs: null };
}

export async function measureLangGraph({ quick = false } = {}) {
  const steps = quick ? 300 : 1_000;
  const repeats = 21;
  const root = await mkdtemp(path.join(tmpdir(), 'conclave-langgraph-bench-'));
  try {
    // Warm-up: module loading and JIT, outside the figures.
    await runGraph(new MemorySaver(), 50);
    const memory = await measureMemory(steps, repeats);
    const resume = await measureResume(root, steps, repeats);
    const sqliteNormal = await measureSqlite(root, steps, repeats, 'NORMAL');
    const sqliteFull = await measureSqlite(root, steps, repeats, 'FULL');
    return { steps, messageBytes: 1024, payloadBytes: steps * 1024, resume, sqliteNormal, sqliteFull, memory };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

const pad = (value, width = 12) => String(value).padStart(width);
const megabytes = (bytes) => (bytes === null ? '-' : `${(bytes / 1e6).toFixed(2)} MB`);
const micro = (value) => (value === null ? '-' : value.toFixed(0));

export function formatLangGraph(result) {
  const rows = [
    ['ResumeCheckpointSaver (fs)', result.resume, 'fsync per put'],
    ['SqliteSaver (as shipped)', result.sqliteNormal, 'WAL, synchronous=NORMAL'],
    ['SqliteSaver (FULL)', result.sqliteFull, 'WAL, synchronous=FULL'],
    ['MemorySaver', result.memory, 'nothing durable'],
  ];
  const lines = [
    `LangGraph checkpointers: a ${result.steps}-step StateGraph, state = a growing list of ~1 KB messages, durability 'sync'`,
    `${'checkpointer'.padEnd(28)}${pad('first 10% us')}${pad('last 10% us')}${pad('on disk', 12)}${pad('getTuple us')}${pad('cold us', 10)}  commit`,
  ];
  for (const [name, row, commit] of rows) {
    lines.push(
      `${name.padEnd(28)}${pad(micro(row.firstUs))}${pad(micro(row.lastUs))}${pad(megabytes(row.bytes), 12)}` +
        `${pad(micro(row.warmUs))}${pad(micro(row.coldUs), 10)}  ${commit}`,
    );
  }
  const { resume, sqliteNormal, sqliteFull } = result;
  lines.push(
    `  payload ${megabytes(result.payloadBytes)}; SqliteSaver bytes with its WAL before truncation: ` +
      `${megabytes(sqliteNormal.bytesWithWal)} (NORMAL), ${megabytes(sqliteFull.bytesWithWal)} (FULL)`,
    `  growth first->last 10%: Resume ${(resume.lastUs / resume.firstUs).toFixed(2)}x, ` +
      `SqliteSaver ${(sqliteNormal.lastUs / sqliteNormal.firstUs).toFixed(2)}x (NORMAL), ` +
      `${(sqliteFull.lastUs / sqliteFull.firstUs).toFixed(2)}x (FULL); ` +
      `bytes SqliteSaver / Resume ${(sqliteNormal.bytes / resume.bytes).toFixed(1)}x`,
  );
  lines.push(...readGoals(result));
  return `${lines.join('\n')}\n`;
}

/**
 * The goal line of what the saver adds per step above MemorySaver (the graph with nothing durable),
 * and how that grows from the first to the last 10%: flat when it grows at most 1.5x. A step of
 * ours that costs no more than MemorySaver's adds nothing that could grow (MemorySaver copies the
 * whole state at every step; the share is then said as such, not as a ratio of a negative figure).
 */
export function shareAboveMemoryLine(row, memory) {
  const share = (rowUs, memoryUs) => (rowUs > memoryUs ? `${micro(rowUs - memoryUs)} us` : 'none');
  const first = row.firstUs - memory.firstUs;
  const last = row.lastUs - memory.lastUs;
  const figures =
    `  Resume's share above MemorySaver per step: ${share(row.firstUs, memory.firstUs)} first 10%, ` +
    `${share(row.lastUs, memory.lastUs)} last 10% (Resume ${micro(row.firstUs)} then ${micro(row.lastUs)} us, ` +
    `MemorySaver ${micro(memory.firstUs)} then ${micro(memory.lastUs)} us)`;
  if (last <= 0) return `${figures}: no growth  ok (goal: flat, <= 1.5x)`;
  if (first <= 0) return `${figures}: grows from none  MISSED (goal: flat, <= 1.5x)`;
  const growth = last / first;
  return `${figures}: ${growth.toFixed(2)}x  ${growth <= 1.5 ? 'ok' : 'MISSED'} (goal: flat, <= 1.5x)`;
}

function readGoals(result) {
  const { resume, sqliteNormal, memory } = result;
  const verdict = (ok) => (ok ? 'ok' : 'MISSED');
  return [
    shareAboveMemoryLine(resume, memory),
    `  cold getTuple of the latest: Resume ${(resume.coldUs / 1000).toFixed(1)} ms, SqliteSaver ${(sqliteNormal.coldUs / 1000).toFixed(1)} ms ` +
      `at ${result.steps} checkpoints  ${verdict(resume.coldUs < 10_000)} (goal < 10 ms, even at 10,000)`,
    `  cold list({ limit: 10 }): Resume ${(resume.list.newestUs / 1000).toFixed(1)} ms, SqliteSaver ${(sqliteNormal.list.newestUs / 1000).toFixed(1)} ms  ` +
      `${verdict(resume.list.newestUs < 10_000)} (goal < 10 ms: reads the newest 10, not the thread)`,
    `  list() of the whole thread: Resume ${(resume.list.wholeUs / 1000).toFixed(0)} ms, SqliteSaver ${(sqliteNormal.list.wholeUs / 1000).toFixed(0)} ms  ` +
      `${verdict(resume.list.wholeUs <= sqliteNormal.list.wholeUs)} (goal: no slower than SqliteSaver)`,
  ];
}

/** The section `pnpm bench` runs: measures, prints, returns the figures. */
export const runLangGraphSection = benchSection(import.meta.url, measureLangGraph, formatLangGraph);
