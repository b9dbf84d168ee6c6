// Timing helpers for the benchmarks: every figure is a per-operation time in
// microseconds, summarised by median (the budget figure) and mean (which shows
// amortised work such as periodic snapshots).
import { performance } from 'node:perf_hooks';

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
