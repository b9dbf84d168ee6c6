// SIGKILL at random moments: a child process runs AI SDK code (generateText and streamText
// through durable(session), a durableTool) over the file store; the parent kills it at a
// seeded random moment and runs the very same code again, until it finishes. Then the
// result equals an uninterrupted run's, and no call was made again once it was durable:
// each kill repeats at most the calls it caught in flight.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEngine, createSessionId } from '@resume/core';
import { createFsStore } from '@resume/storage-fs';
import { bundleForNode } from '@resume/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runWorker } from './__fixtures__/worker-runs.js';

const CALLS = 12;
const KILLS = Number(process.env.CONCLAVE_STRESS === '1' ? 150 : 30);
const SEED = Number(process.env.CONCLAVE_CRASH_SEED ?? 15_2026);

let directory: string;
let worker: string;
beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'conclave-ai-sdk-'));
  worker = path.join(directory, 'worker.mjs');
  await bundleForNode(fileURLToPath(new URL('./__fixtures__/durable-calls-worker.ts', import.meta.url)), worker);
}, 60_000);
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

/** A small seeded generator (mulberry32): the same seed kills at the same moments. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('durable AI SDK calls under SIGKILL', () => {
  it('finishes with the uninterrupted result, repeating only the calls a kill caught in flight', {
    timeout: 600_000,
  }, async () => {
    const reference = path.join(directory, 'reference');
    const referenceLog = path.join(directory, 'reference.log');
    await writeFile(referenceLog, '');
    const uninterrupted = await runWorker(
      { worker, home: reference, id: createSessionId(), callLog: referenceLog, calls: CALLS },
      null,
    );
    expect(uninterrupted.done).not.toBeNull();
    const referenceCalls = (await readFile(referenceLog, 'utf8')).trim().split('\n');
    expect(referenceCalls).toHaveLength(2 * CALLS);

    const random = seeded(SEED);
    const home = path.join(directory, 'killed');
    const callLog = path.join(directory, 'killed.log');
    await writeFile(callLog, '');
    const id = createSessionId();
    let kills = 0;
    let runs = 0;
    let done: string | null = null;
    const everAcked = new Set<number>();
    while (done === null) {
      runs += 1;
      const before = (await readFile(callLog, 'utf8')).split('\n').filter(Boolean).length;
      const kill = kills < KILLS ? { afterStarts: Math.floor(random() * 3), delayMs: Math.floor(random() * 40) } : null;
      const outcome = await runWorker({ worker, home, id, callLog, calls: CALLS }, kill);
      const made = (await readFile(callLog, 'utf8')).split('\n').filter(Boolean).slice(before);
      // Calls acknowledged in an earlier run are never sent to the provider again.
      for (const call of made) {
        const index = referenceCalls.indexOf(call);
        expect(index, `an unknown call: ${call}`).toBeGreaterThanOrEqual(0);
        expect(everAcked.has(Math.floor(index / 2) + 1), `call made again after it was durable: ${call}`).toBe(false);
      }
      for (const call of outcome.acked) everAcked.add(call);
      if (outcome.killed) kills += 1;
      done = outcome.done;
      expect(runs).toBeLessThan(KILLS + 50);
    }

    expect(done).toBe(uninterrupted.done);
    const allCalls = (await readFile(callLog, 'utf8')).trim().split('\n');
    if (process.env.CONCLAVE_FIGURES) {
      process.stderr.write(
        `${runs} runs, ${kills} kills, ${allCalls.length} calls made for ${referenceCalls.length}\n`,
      );
    }
    // Every call of the uninterrupted run was made, and the extra ones are at most one per kill
    // (the call in flight when it landed: a model call, or the tool call after it).
    expect(new Set(allCalls)).toEqual(new Set(referenceCalls));
    expect(allCalls.length - referenceCalls.length).toBeLessThanOrEqual(kills);

    const engine = createEngine({ store: createFsStore({ dir: home }) });
    const state = await engine.readSession(id);
    await engine.close();
    expect(state.status).toBe('completed');
    // Usage is journaled with each durable call: once per call, whatever the kills.
    expect(state.usageRecords).toHaveLength(CALLS);
    expect(kills).toBeGreaterThanOrEqual(10);
  });
});
