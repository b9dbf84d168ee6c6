// Content search over many sessions: `conclave sessions search` over 10,000 sessions made by
// real (scripted) discussions on varied tasks, the content index's size against the sessions'
// bytes, and its first build. The sessions come from the runner, so their journals have the
// shape of a user's (steps, usage, checkpoints beside the messages).
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEngine } from '@resume/core';
import { createSessionId } from '@resume/core/spec';
import { createScriptedProvider } from '@resume/providers-scripted';
import { createRunner } from '@resume/runner';
import { createFsStore } from '@resume/storage-fs';

const subjects = [
  'billing',
  'search',
  'onboarding',
  'caching',
  'pricing',
  'logging',
  'payments',
  'checkout',
  'storage',
  'routing',
];
const actions = ['migrate', 'rewrite', 'shard', 'retire', 'outsource', 'simplify', 'measure', 'automate'];
const targets = [
  'event sourcing',
  'a queue',
  'postgres',
  'a monolith',
  'microservices',
  'webassembly',
  'a cdn',
  'kubernetes',
];

/** A varied task per index, with one rare word so a query can name a few sessions. */
export function taskFor(index) {
  const subject = subjects[index % subjects.length];
  const action = actions[Math.floor(index / subjects.length) % actions.length];
  const target = targets[Math.floor(index / (subjects.length * actions.length)) % targets.length];
  return `Should we ${action} ${subject} with ${target}? Ticket ${index.toString(36)}x${(index * 7919).toString(36)}`;
}

/**
 * Makes `count` sessions in `home`: `templates` scripted discussions (a real run each, varied
 * tasks), then copies of their journals under new ids and titles until there are `count`
 * (written through the store's own create and append, so every file is as a run leaves it),
 * `parallel` at a time.
 */
export async function createDiscussions(home, count, { templates = 100, parallel = 8 } = {}) {
  const store = createFsStore({ dir: home });
  const engine = createEngine({ store });
  const model = createScriptedProvider({ env: {} }).chatModel('scripted');
  const runner = createRunner({ engine, models: () => model, workspaceDir: home });
  const inParallel = async (total, work) => {
    let next = 0;
    const worker = async () => {
      while (next < total) {
        const index = next;
        next += 1;
        await work(index);
      }
    };
    await Promise.all(Array.from({ length: parallel }, worker));
  };
  const made = [];
  await inParallel(Math.min(templates, count), async (index) => {
    made[index] = (
      await runner.start({ mode: 'discussion', task: taskFor(index), options: { maxRounds: 2 } })
    ).sessionId;
  });
  const journals = await Promise.all(
    made.map(async (id) => {
      const events = [];
      for await (const event of store.read(id)) events.push(event);
      return { events, summary: await store.getSummary(id) };
    }),
  );
  const start = Date.now();
  await inParallel(count - made.length, async (index) => {
    const { events, summary } = journals[index % journals.length];
    const id = createSessionId(new Date(start + index));
    const title = `${summary.title} (take ${index + 1})`;
    const [created, ...rest] = events;
    const header = { ...created.header, id, title };
    await store.create(header);
    const lease = await store.acquireLease(id, { holder: { pid: process.pid, host: 'bench' } });
    await store.append(id, {
      expectedSeq: 0,
      epoch: lease.epoch,
      events: [{ ...created, header }, ...rest],
      summary: { ...summary, id, title },
    });
    await lease.release();
  });
  await engine.close();
}

function directoryBytes(directory) {
  let total = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const full = path.join(directory, entry.name);
    total += entry.isDirectory() ? directoryBytes(full) : statSync(full).size;
  }
  return total;
}

function median(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function timed(cli, home, args) {
  const start = performance.now();
  const result = spawnSync(process.execPath, [cli, ...args, '--home', home], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '', NO_COLOR: '1' },
    maxBuffer: 64 * 1024 * 1024,
  });
  const elapsedMs = performance.now() - start;
  if (result.status !== 0) throw new Error(`conclave ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return { elapsedMs, stdout: result.stdout.toString('utf8') };
}

/**
 * Returns the medians of the searches (a rare word, a common one, a phrase; JSON, and a common
 * word for a person) and of `conclave usage`, `node -e 0`'s, the index's first build, and the
 * index's and the sessions' bytes.
 */
export async function measureContentSearch({ cli, home, sessions, runs = 7 }) {
  await createDiscussions(home, sessions);
  // A first listing stamps the listing index, as between a user's runs.
  timed(cli, home, ['sessions', 'list', '--json']);
  const build = timed(cli, home, ['sessions', 'search', 'kubernetes', '--json']);
  const sessionBytes = directoryBytes(path.join(home, 'sessions'));
  const indexBytes = statSync(path.join(home, 'index', 'content.sqlite')).size;
  const queries = {
    rare: [
      'sessions',
      'search',
      // The ticket of one of the discussions the copies were made from: in its copies only.
      taskFor(42).split(' ').at(-1),
      '--json',
    ],
    common: ['sessions', 'search', 'decision', '--limit', '20', '--json'],
    phrase: ['sessions', 'search', '"event sourcing"', '--limit', '20', '--json'],
    human: ['sessions', 'search', 'decision'],
  };
  // The cost ledger over the same sessions (its usage table was read with the index's first build).
  queries.usage = ['usage', '--by', 'model,day', '--json'];
  const samples = { bare: [], rare: [], common: [], phrase: [], human: [], usage: [] };
  let rareHits = 0;
  for (let run = 0; run < runs; run += 1) {
    const start = performance.now();
    execFileSync(process.execPath, ['-e', '0']);
    samples.bare.push(performance.now() - start);
    for (const [name, args] of Object.entries(queries)) {
      const result = timed(cli, home, args);
      samples[name].push(result.elapsedMs);
      if (name === 'rare') rareHits = JSON.parse(result.stdout).length;
    }
  }
  return {
    sessions,
    firstBuildMs: build.elapsedMs,
    nodeBareMs: median(samples.bare),
    rareMs: median(samples.rare),
    commonMs: median(samples.common),
    phraseMs: median(samples.phrase),
    humanMs: median(samples.human),
    usageMs: median(samples.usage),
    rareHits,
    sessionBytes,
    indexBytes,
    indexRatio: indexBytes / sessionBytes,
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  // Alone: ./bin/node bench/src/content-search.mjs [sessions], as JSON.
  const directory = await mkdtemp(path.join(tmpdir(), 'conclave-bench-search-'));
  try {
    const cli = fileURLToPath(new URL('../../apps/cli/dist/conclave.mjs', import.meta.url));
    const sessions = Number(process.argv[2] ?? 10_000);
    process.stdout.write(
      `${JSON.stringify(await measureContentSearch({ cli, home: path.join(directory, 'home'), sessions }), null, 2)}\n`,
    );
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
