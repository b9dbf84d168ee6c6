// Timing helpers for the benchmarks: every figure is a per-operation time in
// microseconds, summarised by median (the budget figure) and mean (which shows
// amortised work such as periodic snapshots).
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

export async function timeEach(iterations, operation) {
  const samples = [];
  for (let index = 0; index < iterations; index += 1) {
    const start = performance.now();
    await operation(index);
    samples.push((performance.now() - start) * 1000);
  }
  samples.sort((a, b) => a - b);
  const median = samples[Math.floor(samples.length / 2)];
  const mean = samples.reduce((sum, sample) => sum + sample, 0) / samples.length;
  return { median, mean, iterations };
}

/** About 2 KB of text, different for every i so nothing compresses or dedupes by accident. */
export function payload(index, bytes = 2048) {
  const seed = `message ${index}: the agents discussed the proposal and reached a partial agreement. `;
  return seed.repeat(Math.ceil(bytes / seed.length)).slice(0, bytes);
}

export function median(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Everything under `directory`, in bytes. */
export function bytesUnder(directory) {
  let total = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const full = path.join(directory, entry.name);
    total += entry.isDirectory() ? bytesUnder(full) : statSync(full).size;
  }
  return total;
}

/**
 * A section `pnpm bench` runs (measure, print, return the figures), also runnable alone as
 * `node bench/src/<section>.mjs [--quick]` when `moduleUrl` is the script node was started with.
 */
export function benchSection(moduleUrl, measure, format) {
  const run = async ({ quick = false, write = (text) => process.stdout.write(text) } = {}) => {
    const result = await measure({ quick });
    write(`\n${format(result)}`);
    return result;
  };
  if (process.argv[1] && fileURLToPath(moduleUrl) === path.resolve(process.argv[1])) {
    run({ quick: process.argv.includes('--quick') });
  }
  return run;
}
