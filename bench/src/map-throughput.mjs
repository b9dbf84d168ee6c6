// Map step throughput: a workflow whose `map:` runs one trivial shell step (`true`) per item over
// 1,000 items, at `parallel: 1` and `parallel: 4`, through the built CLI, side by side in one run.
// Each item is a durable unit (its step's start and completion journaled, a checkpoint when it is
// done), so the durability overhead per item is the map's time per item minus what the same
// commands cost started directly at the same concurrency:
//   per item  = (run of the N-item map - run of a 1-item map) / (N - 1)   (CLI start-up, session
//               creation and the end of the run cancel out)
//   raw       = N commands `sh -c true` started by a fresh Node process, `parallel` at a time,
//               spawned as the runner spawns them (async, own process group, piped output) / N
//   overhead  = per item - raw
// Runnable alone: `./bin/pnpm build && ./bin/node bench/src/map-throughput.mjs [--quick]`.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { defaultCliPath } from './cli-startup.mjs';
import { benchSection, median } from './measure.mjs';

const PARALLELS = [1, 4];

function mapFlow(items, parallel) {
  return [
    'name: map-bench',
    'agents: { helper: { prompt: "You help." } }',
    'steps:',
    '  - id: each',
    '    map:',
    `      items: ${JSON.stringify(Array.from({ length: items }, (_, index) => index))}`,
    `      parallel: ${parallel}`,
    '      do:',
    '        - { id: touch, shell: "true" }',
    '',
  ].join('\n');
}

function timeRun(cli, directory, env, file) {
  const start = performance.now();
  const result = spawnSync(process.execPath, [cli, 'run', file, '--quiet'], {
    cwd: directory,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const elapsed = performance.now() - start;
  if (result.status !== 0)
    throw new Error(`conclave run ${file} exited ${result.status}: ${result.stderr.toString('utf8').slice(-800)}`);
  return elapsed;
}

/** `items` commands `sh -c true`, `parallel` at a time, from a fresh Node process: total ms. */
function rawCommands(directory, env, items, parallel) {
  const script = `
    const { spawn } = require('node:child_process');
    const { performance } = require('node:perf_hooks');
    const items = ${items};
    let next = 0;
    const one = () => new Promise((resolve, reject) => {
      const child = spawn('true', { shell: true, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.resume();
      child.stderr.resume();
      child.on('error', reject);
      child.on('close', resolve);
    });
    const worker = async () => { while (next < items) { next += 1; await one(); } };
    const start = performance.now();
    Promise.all(Array.from({ length: ${parallel} }, worker)).then(() => {
      process.stdout.write(String(performance.now() - start));
    });`;
  return Number(execFileSync(process.execPath, ['-e', script], { cwd: directory, env }).toString());
}

async function measureMapThroughput({ quick = false, cli = defaultCliPath } = {}) {
  if (!existsSync(cli)) throw new Error(`${cli} does not exist: build the CLI first (./bin/pnpm build).`);
  const items = quick ? 200 : 1_000;
  const repeats = quick ? 1 : 3;
  const directory = await mkdtemp(path.join(tmpdir(), 'conclave-bench-map-'));
  try {
    const env = { PATH: process.env.PATH ?? '', CONCLAVE_HOME: path.join(directory, 'home'), NO_COLOR: '1' };
    for (const parallel of PARALLELS) {
      writeFileSync(path.join(directory, `one-${parallel}.yaml`), mapFlow(1, parallel));
      writeFileSync(path.join(directory, `many-${parallel}.yaml`), mapFlow(items, parallel));
    }
    // Warms the CLI's compile cache and the file caches.
    timeRun(cli, directory, env, 'one-1.yaml');
    const samples = Object.fromEntries(PARALLELS.map((parallel) => [parallel, { one: [], many: [], raw: [] }]));
    // Interleaved, so load on the machine hits every row alike.
    for (let repeat = 0; repeat < repeats; repeat += 1) {
      for (const parallel of PARALLELS) {
        const row = samples[parallel];
        row.one.push(timeRun(cli, directory, env, `one-${parallel}.yaml`));
        row.many.push(timeRun(cli, directory, env, `many-${parallel}.yaml`));
        row.raw.push(rawCommands(directory, env, items, parallel));
      }
    }
    const rows = PARALLELS.map((parallel) => {
      const row = samples[parallel];
      const runMs = median(row.many);
      const perItemMs = (runMs - median(row.one)) / (items - 1);
      const rawPerItemMs = median(row.raw) / items;
      return {
        parallel,
        items,
        runMs,
        oneItemRunMs: median(row.one),
        itemsPerSecond: 1000 / perItemMs,
        perItemMs,
        rawMs: median(row.raw),
        rawPerItemMs,
        overheadPerItemMs: perItemMs - rawPerItemMs,
      };
    });
    return { items, repeats, rows };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

function formatMapThroughput(result) {
  const lines = [
    `map step throughput: ${result.items.toLocaleString('en')} items of one shell step (true), median of ${result.repeats} (side by side in this run)`,
    '  parallel       run   items/s  ms/item  raw ms/item  overhead ms/item',
  ];
  for (const row of result.rows) {
    lines.push(
      `  ${String(row.parallel).padStart(8)}${`${(row.runMs / 1000).toFixed(2)} s`.padStart(10)}` +
        `${row.itemsPerSecond.toFixed(0).padStart(10)}${row.perItemMs.toFixed(2).padStart(9)}` +
        `${row.rawPerItemMs.toFixed(2).padStart(13)}${row.overheadPerItemMs.toFixed(2).padStart(18)}`,
    );
  }
  lines.push(
    '  (items/s and ms/item: the map beyond a 1-item run; raw: the same commands started directly at the same concurrency)',
  );
  return `${lines.join('\n')}\n`;
}

/** The section `pnpm bench` runs: measures, prints, returns the figures. */
export const runMapThroughputSection = benchSection(import.meta.url, measureMapThroughput, formatMapThroughput);
