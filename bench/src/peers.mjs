// Conclave against its peers, side by side in one run (issue 7): a session of N
// messages of ~1 KB with a durable checkpoint after each message, persisted by
//   - Conclave: the engine over the file store (addMessage + checkpoint: one append);
//   - the source documents' design: the whole session JSON rewritten atomically
//     (temp file, fsync, rename, directory fsync);
//   - LangGraph.js `SqliteSaver` (SQLite in WAL mode): a checkpoint holding the
//     growing `messages` list as LangGraph's message state does (real LangChain
//     HumanMessage / AIMessage objects, serialized by LangGraph's own serializer).
// Reported: cost per checkpoint over the first and the last 10% of the run, bytes
// on disk, ratios. Then the checkpoint overhead of a 100-step chain (file store vs
// in-memory store) and `conclave sessions list` over 1,000 sessions vs `node -e 0`.
// Runs from `pnpm bench` (bench/run.mjs) or alone: `node bench/src/peers.mjs [--quick]`.
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { emptyCheckpoint, uuid6 } from '@langchain/langgraph-checkpoint';
import { createEngine } from '@resume/core';
import { createMemoryStore } from '@resume/core/testing';
import { createScriptedProvider } from '@resume/providers-scripted';
import { createFsStore } from '@resume/storage-fs';
import { benchSection, bytesUnder, median } from './measure.mjs';
import { sqliteSaverOnNodeSqlite } from './sqlite-saver.mjs';

const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** ~`bytes` of text, different for every index so nothing dedupes or compresses by accident. */
function messageText(index, bytes) {
  const seed = `turn ${index}: the reviewer weighed the proposal, listed two risks and asked for numbers. `;
  return seed.repeat(Math.ceil(bytes / seed.length)).slice(0, bytes);
}

/** Median per-checkpoint time (microseconds) over the first and the last 10% of the run. */
function phases(samples) {
  const tenth = Math.max(1, Math.floor(samples.length / 10));
  return { firstUs: median(samples.slice(0, tenth)), lastUs: median(samples.slice(-tenth)) };
}

async function timed(operation) {
  const start = performance.now();
  await operation();
  return (performance.now() - start) * 1000;
}

/** Conclave: one append of the new message and a checkpoint mark, one fdatasync. */
async function conclaveWriter(directory) {
  const engine = createEngine({ store: createFsStore({ dir: directory }) });
  const session = await engine.createSession({ title: 'peers', mode: 'custom' });
  return {
    async checkpoint(role, content) {
      session.addMessage({ role, content });
      await session.checkpoint();
    },
    async finish() {
      await session.close();
      await engine.close();
      return { bytes: bytesUnder(directory) };
    },
  };
}

/** The source documents' design: the whole session rewritten atomically at every checkpoint. */
async function rewriteWriter(directory) {
  const target = path.join(directory, 'session.json');
  const session = { id: 'peers', title: 'peers', messages: [] };
  return {
    async checkpoint(role, content) {
      session.messages.push({ role, content });
      const temporary = `${target}.tmp`;
      const file = openSync(temporary, 'w', 0o600);
      writeSync(file, JSON.stringify(session));
      fsyncSync(file);
      closeSync(file);
      renameSync(temporary, target);
      const directoryHandle = openSync(directory, 'r');
      fsyncSync(directoryHandle);
      closeSync(directoryHandle);
    },
    async finish() {
      return { bytes: bytesUnder(directory) };
    },
  };
}

/** LangGraph: a checkpoint holding the whole, growing message list (LangGraph's message state). */
async function langGraphWriter(directory) {
  const { saver, database } = sqliteSaverOnNodeSqlite(path.join(directory, 'checkpoints.sqlite'), {
    synchronous: 'FULL',
  });
  let config = { configurable: { thread_id: 'peers', checkpoint_ns: '' } };
  const history = [];
  return {
    async checkpoint(role, content) {
      history.push(role === 'assistant' ? new AIMessage({ content }) : new HumanMessage({ content }));
      const step = history.length;
      const checkpoint = {
        ...emptyCheckpoint(),
        id: uuid6(step),
        ts: new Date().toISOString(),
        channel_values: { messages: [...history] },
        channel_versions: { messages: step },
        versions_seen: {},
      };
      config = await saver.put(config, checkpoint, { source: 'loop', step, parents: {} }, { messages: step });
    },
    async finish() {
      const bytesWithWal = bytesUnder(directory);
      database.prepare('PRAGMA wal_checkpoint(TRUNCATE)').all();
      database.close();
      return { bytes: bytesUnder(directory), bytesWithWal };
    },
  };
}

/**
 * One persister alone on the disk for the whole run. (Taking turns checkpoint by
 * checkpoint was tried: on ext4 a small fdatasync then pays for the megabytes the
 * others left dirty, which measures the neighbours rather than the store.) Load
 * drift is handled by repeating the whole comparison and taking medians.
 */
async function runAlone(writer, messages, messageBytes) {
  const samples = [];
  for (let index = 0; index < messages; index += 1) {
    const role = index % 2 ? 'assistant' : 'user';
    const content = messageText(index, messageBytes);
    samples.push(await timed(() => writer.checkpoint(role, content)));
  }
  return { ...phases(samples), ...(await writer.finish()) };
}

async function oneRound(root, round, messages, messageBytes) {
  const directory = (name) => {
    const full = path.join(root, `${name}-${round}`);
    mkdirSync(full, { recursive: true });
    return full;
  };
  const conclave = await runAlone(await conclaveWriter(directory('conclave')), messages, messageBytes);
  const rewrite = await runAlone(await rewriteWriter(directory('rewrite')), messages, messageBytes);
  const langGraph = await runAlone(await langGraphWriter(directory('langgraph')), messages, messageBytes);
  // Each round's files are removed before the next, so the disk does not fill up.
  rmSync(directory('langgraph'), { recursive: true, force: true });
  return { conclave, rewrite, langGraph };
}

/** The round with the median of a ratio (so its figures are consistent with each other). */
function medianRound(rounds, ratio) {
  const sorted = [...rounds].sort((a, b) => ratio(a) - ratio(b));
  return sorted[Math.floor(sorted.length / 2)];
}

/** A chain of `steps` durable model calls (scripted, no latency), each followed by a checkpoint. */
async function chain(store, steps) {
  const engine = createEngine({ store });
  const model = createScriptedProvider({ env: {} }).chatModel('scripted');
  const session = await engine.createSession({ title: 'chain', mode: 'chain' });
  session.addMessage({ role: 'user', content: 'Plan the migration of the billing service.' });
  const start = performance.now();
  for (let step = 0; step < steps; step += 1) {
    const messages = session.state.messages.map((message) => ({ role: message.role, content: message.content }));
    const text = await session.step(`step-${step}`, async ({ signal }) => {
      const result = await model.generate({ messages, signal, metadata: { agent: `agent-${step % 3}` } });
      return result.message.content;
    });
    session.addMessage({ role: 'assistant', content: text, speaker: `agent-${step % 3}` });
    await session.checkpoint(`step ${step + 1}`);
  }
  const elapsedMs = performance.now() - start;
  await session.close();
  await engine.close();
  return elapsedMs;
}

async function listOverSessions(directory, sessions, repeats) {
  const cli = path.join(repositoryRoot, 'apps/cli/dist/conclave.mjs');
  if (!existsSync(cli)) return null;
  const engine = createEngine({ store: createFsStore({ dir: directory }) });
  for (let index = 0; index < sessions; index += 1) {
    const session = await engine.createSession({ title: `session ${index}`, mode: 'discussion' });
    session.addMessage({ role: 'user', content: `task ${index}` });
    await session.complete();
    await session.close();
  }
  await engine.close();
  const run = (args) => {
    const start = performance.now();
    execFileSync(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '' } });
    return performance.now() - start;
  };
  const list = [];
  const bare = [];
  let listed = 0;
  for (let repeat = 0; repeat < repeats; repeat += 1) {
    bare.push(run(['-e', '0']));
    list.push(run([cli, 'sessions', 'list', '--json', '--home', directory]));
  }
  const output = execFileSync(process.execPath, [cli, 'sessions', 'list', '--json', '--home', directory], {
    env: { PATH: process.env.PATH ?? '' },
  });
  listed = JSON.parse(output.toString('utf8')).length;
  return { sessions, listed, listMs: median(list), bareNodeMs: median(bare) };
}

export async function measurePeers({ quick = false } = {}) {
  const messages = quick ? 300 : 1_000;
  const messageBytes = 1_024;
  const root = await mkdtemp(path.join(tmpdir(), 'conclave-peers-'));
  try {
    const directories = {};
    for (const name of ['chain-fs', 'list']) {
      directories[name] = path.join(root, name);
      execFileSync('mkdir', ['-p', directories[name]]);
    }
    const rounds = [];
    for (let round = 0; round < (quick ? 1 : 3); round += 1)
      rounds.push(await oneRound(root, round, messages, messageBytes));
    const typical = medianRound(rounds, (round) => round.rewrite.lastUs / round.conclave.lastUs);
    const { conclave, rewrite, langGraph } = typical;

    const steps = 100;
    const chainRepeats = quick ? 3 : 5;
    const fsChain = [];
    const memoryChain = [];
    for (let repeat = 0; repeat < chainRepeats; repeat += 1) {
      memoryChain.push(await chain(createMemoryStore(), steps));
      fsChain.push(await chain(createFsStore({ dir: path.join(directories['chain-fs'], String(repeat)) }), steps));
    }

    const list = await listOverSessions(directories.list, quick ? 300 : 1_000, quick ? 3 : 7);
    return {
      messages,
      messageBytes,
      payloadBytes: messages * messageBytes,
      conclave,
      rewrite,
      langGraph,
      rounds: rounds.map((round) => ({
        rewriteOverConclave: round.rewrite.lastUs / round.conclave.lastUs,
        langGraphOverConclave: round.langGraph.lastUs / round.conclave.lastUs,
      })),
      chain: { steps, fsMs: median(fsChain), memoryMs: median(memoryChain) },
      list,
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

const pad = (value, width = 12) => String(value).padStart(width);
const megabytes = (bytes) => `${(bytes / 1e6).toFixed(2)} MB`;

/** The table `pnpm bench` prints, and the targets of issue 7. */
export function formatPeers(result) {
  const lines = [];
  const { conclave, rewrite, langGraph } = result;
  lines.push(
    `Against peers: ${result.messages} messages of ~${result.messageBytes} B, a durable checkpoint after each`,
    `${'store'.padEnd(22)}${pad('first 10% us')}${pad('last 10% us')}${pad('on disk', 14)}`,
  );
  for (const [name, row] of [
    ['Conclave (fs store)', conclave],
    ['JSON rewrite (atomic)', rewrite],
    ['LangGraph SqliteSaver', langGraph],
  ]) {
    lines.push(
      `${name.padEnd(22)}${pad(row.firstUs.toFixed(0))}${pad(row.lastUs.toFixed(0))}${pad(megabytes(row.bytes), 14)}`,
    );
  }
  const rewriteRatio = rewrite.lastUs / conclave.lastUs;
  const langGraphRatio = langGraph.lastUs / conclave.lastUs;
  const bytesRatio = langGraph.bytes / conclave.bytes;
  const check = (ok) => (ok ? 'ok' : 'MISSED');
  const roundRatios = result.rounds
    .map((round) => `${round.rewriteOverConclave.toFixed(1)}x / ${round.langGraphOverConclave.toFixed(1)}x`)
    .join(', ');
  lines.push(
    `  ${result.rounds.length} round(s), the median one shown; rewrite / LangGraph over Conclave per round: ${roundRatios}`,
    `  payload ${megabytes(result.payloadBytes)}; LangGraph with its WAL before truncation: ${megabytes(langGraph.bytesWithWal)}`,
    `  last 10%: rewrite / Conclave ${rewriteRatio.toFixed(1)}x (target >= 20x: ${check(rewriteRatio >= 20)}), ` +
      `LangGraph / Conclave ${langGraphRatio.toFixed(1)}x (target >= 50x: ${check(langGraphRatio >= 50)})`,
    `  bytes: LangGraph / Conclave ${bytesRatio.toFixed(1)}x (target >= 100x: ${check(bytesRatio >= 100)}); ` +
      `Conclave growth first->last 10%: ${(conclave.lastUs / conclave.firstUs).toFixed(2)}x`,
  );
  const { chain } = result;
  const perStepMs = (chain.fsMs - chain.memoryMs) / chain.steps;
  lines.push(
    `${chain.steps}-step chain (scripted model, no latency): fs store ${chain.fsMs.toFixed(0)} ms, ` +
      `in-memory store ${chain.memoryMs.toFixed(0)} ms: ${perStepMs.toFixed(2)} ms of durability per step ` +
      `(${((perStepMs / 500) * 100).toFixed(2)}% of a 500 ms model call)`,
  );
  if (result.list) {
    const { list } = result;
    const ratio = list.listMs / list.bareNodeMs;
    lines.push(
      `sessions list --json over ${list.sessions} sessions (${list.listed} listed): ${list.listMs.toFixed(0)} ms ` +
        `vs node -e 0 ${list.bareNodeMs.toFixed(0)} ms: ${ratio.toFixed(2)}x (budget < 3x: ${check(ratio < 3)})`,
    );
  } else {
    lines.push('sessions list: skipped (the CLI is not built: ./bin/pnpm build)');
  }
  return `${lines.join('\n')}\n`;
}

/** The section `pnpm bench` runs: measures, prints, returns the figures. */
export const runPeersSection = benchSection(import.meta.url, measurePeers, formatPeers);
