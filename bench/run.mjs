// `pnpm bench`: the benchmarks of docs/benchmarks.md, as ratios measured in one run so
// machine noise cancels. Uses the built packages (`./bin/pnpm build` first). Prints a
// table and writes bench/results/latest.json.
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const benchDirectory = path.dirname(fileURLToPath(import.meta.url));
for (const built of ['../packages/core/dist/index.js', '../packages/storage-fs/dist/index.js']) {
  if (!existsSync(path.join(benchDirectory, built))) {
    process.stderr.write('The packages are not built yet: run ./bin/pnpm build, then pnpm bench.\n');
    process.exit(1);
  }
}
const { measureCheckpointCost } = await import('./src/checkpoint-cost.mjs');
const { measureOpenAndSize } = await import('./src/open-and-size.mjs');

const quick = process.argv.includes('--quick');
const iterations = quick ? 50 : 200;
const format = (value, digits = 0) => value.toFixed(digits).padStart(10);

process.stdout.write(`Conclave storage benchmarks (node ${process.version}, ${os.cpus().length} cpus)\n\n`);
const checkpoints = await measureCheckpointCost({ sizes: [10, 1_000, 10_000], iterations });
process.stdout.write('checkpoint cost, median us per durable checkpoint (~2 KB message)\n');
process.stdout.write(
  '  raw: write + fdatasync of the same bytes, synchronous (writeSync) and asynchronous (FileHandle)\n',
);
process.stdout.write(
  '    events    engine  raw sync raw async   rewrite  engine/async  engine/sync  rewrite/engine  engine mean  limits/engine\n',
);
for (const row of checkpoints) {
  process.stdout.write(
    `${format(row.events)}${format(row.engine.median)}${format(row.raw.median)}${format(row.rawAsync.median)}` +
      `${format(row.rewrite.median)}${format(row.engine.median / row.rawAsync.median, 2).padStart(14)}` +
      `${format(row.engine.median / row.raw.median, 2).padStart(13)}` +
      `${format(row.rewrite.median / row.engine.median, 1).padStart(16)}${format(row.engine.mean).padStart(13)}` +
      `${format(row.limited.median / row.engine.median, 2).padStart(15)}\n`,
  );
}

const open = await measureOpenAndSize({ messages: 10_000, repeats: quick ? 3 : 7 });
process.stdout.write(`\nopen + fold of ${open.messages} messages: ${open.openMedianMs.toFixed(1)} ms (median), `);
process.stdout.write(
  `heap growth ${(open.heapDeltaBytes / 1e6).toFixed(1)} MB, ${(open.retainedDeltaBytes / 1e6).toFixed(1)} MB with buffers (keyed: snapshot + journal tail)\n`,
);
process.stdout.write(
  `  then reading every message's text once: ${open.touchMedianMs.toFixed(1)} ms more (texts from a snapshot are decoded on first read)\n`,
);
process.stdout.write(
  `  checkpoints that also wrote the snapshot (5,000-10,000 messages): ${open.snapshotCheckpointMedianMs.toFixed(1)} ms median, others ${open.plainCheckpointMedianMs.toFixed(2)} ms\n`,
);
process.stdout.write(
  `open for ordered replay (the whole journal is read as the replay log): ${open.orderedOpenMedianMs.toFixed(1)} ms, ` +
    `heap growth ${(open.orderedHeapDeltaBytes / 1e6).toFixed(1)} MB\n`,
);
process.stdout.write(
  `bytes on disk: ${(open.diskBytes / 1e6).toFixed(2)} MB (journal ${(open.journalBytes / 1e6).toFixed(2)} MB) ` +
    `for ${(open.eventJsonBytes / 1e6).toFixed(2)} MB of event JSON: ${(open.diskBytes / open.eventJsonBytes).toFixed(2)}x\n`,
);

const flatness =
  Math.max(...checkpoints.map((row) => row.engine.median)) / Math.min(...checkpoints.map((row) => row.engine.median));
const at1000 = checkpoints.find((row) => row.events === 1_000);
const budgets = {
  checkpointVsRaw: {
    limit: 1.5,
    worst: Math.max(...checkpoints.map((row) => row.engine.median / row.rawAsync.median)),
  },
  checkpointVsRawSync: {
    limit: 1.5,
    worst: Math.max(...checkpoints.map((row) => row.engine.median / row.raw.median)),
  },
  checkpointFlatness: { limit: 1.5, value: flatness },
  checkpointWithSpaceLimits: {
    limit: 1.1,
    worst: Math.max(...checkpoints.map((row) => row.limited.median / row.engine.median)),
  },
  rewriteVsCheckpointAt1000: { limit: 20, value: at1000 ? at1000.rewrite.median / at1000.engine.median : null },
  open10000Ms: { limit: 100, value: open.openMedianMs },
  bytesVsEventJson: { limit: 2.5, value: open.diskBytes / open.eventJsonBytes },
};
process.stdout.write('\nstorage budgets\n');
for (const [name, budget] of Object.entries(budgets)) {
  const value = budget.value ?? budget.worst;
  const ok = name === 'rewriteVsCheckpointAt1000' ? value >= budget.limit : value <= budget.limit;
  process.stdout.write(
    `  ${name.padEnd(28)} ${value.toFixed(2).padStart(8)}  ${ok ? 'ok' : 'MISSED'} (budget ${budget.limit})\n`,
  );
}

const { measurePerformanceBudgetsApart, performanceRows, formatPerformanceRows } = await import(
  './src/performance-budgets.mjs'
);
// Measured from a fresh process: this one now holds hundreds of megabytes, which every spawn would pay.
const performanceBudgets = performanceRows(measurePerformanceBudgetsApart({ quick }), { checkpoints, open });
process.stdout.write(`\n${formatPerformanceRows(performanceBudgets)}`);

// What a run and its resume build and load at start-up (zod schemas, compiled functions, modules), counted.
const { measureStartUpWork, formatStartUpWork } = await import('./src/start-up-work.mjs');
process.stdout.write(`\n${formatStartUpWork(await measureStartUpWork())}`);

// Map steps: 1,000 items of a trivial shell step at parallel 1 and 4, and the durability overhead per item.
const { runMapThroughputSection } = await import('./src/map-throughput.mjs');
const map = await runMapThroughputSection({ quick });

const results = path.join(benchDirectory, 'results');
await mkdir(results, { recursive: true });
await writeFile(
  path.join(results, 'latest.json'),
  `${JSON.stringify({ at: new Date().toISOString(), node: process.version, checkpoints, open, budgets, performance: performanceBudgets, map }, null, 2)}\n`,
);
process.stdout.write(`\nwritten to ${path.relative(process.cwd(), path.join(results, 'latest.json'))}\n`);

// Encryption at rest against the same work in the clear: checkpoint, open + fold, listing.
const encryption = await (await import('./src/encryption.mjs')).runEncryptionSection({ quick });
await writeFile(
  path.join(results, 'encryption.json'),
  `${JSON.stringify({ at: new Date().toISOString(), node: process.version, ...encryption }, null, 2)}\n`,
);

// Against peers (LangGraph SqliteSaver, atomic JSON rewrite), chain overhead, listing start-up: bench/src/peers.mjs.
await (await import('./src/peers.mjs')).runPeersSection({ quick });

// LangGraph checkpointers: ResumeCheckpointSaver vs SqliteSaver vs MemorySaver on a 1,000-step graph.
await (await import('./src/langgraph.mjs')).runLangGraphSection({ quick });

// LangGraph reads against the thread length: cold getTuple, list(10) and list() at 1,000 and 10,000 checkpoints.
await (await import('./src/langgraph-reads.mjs')).runLangGraphReadsSection({ quick });

// The PostgreSQL store beside the file store (a throw-away local cluster; skipped with a note when none can start).
process.stdout.write('\nPostgreSQL store vs file store\n');
const { spawnSync } = await import('node:child_process');
const postgres = spawnSync(process.execPath, [path.join(benchDirectory, 'postgres.mjs')], {
  stdio: 'inherit',
  env: quick ? { ...process.env, CONCLAVE_BENCH_CHECKPOINTS: '100', CONCLAVE_BENCH_QUICK: '1' } : process.env,
});
if (postgres.status !== 0) process.stdout.write('  (the PostgreSQL benchmark did not run to the end; see above)\n');

// Work queues on PostgreSQL: items per second with 1, 2 and 4 workers, and the claim latency.
process.stdout.write('\nWork queues (pg-boss) on PostgreSQL\n');
const workers = spawnSync(process.execPath, [path.join(benchDirectory, 'workers.mjs')], {
  stdio: 'inherit',
  env: quick ? { ...process.env, CONCLAVE_BENCH_QUEUE_ITEMS: '60' } : process.env,
});
if (workers.status !== 0) process.stdout.write('  (the work queue benchmark did not run to the end; see above)\n');
