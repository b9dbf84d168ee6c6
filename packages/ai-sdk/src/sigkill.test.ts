// SIGKILL at random moments: a child process runs AI SDK code (generateText and streamText
// through durable(session), a durableTool) over the file store; the parent kills it at a
// seeded random moment and runs the very same code again, until it finishes. Then the
// result equals an uninterrupted run's, and no call was made again once it was durable:
// each kill repeats at most the calls it caught in flight.
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { createEngine, createSessionId } from '@resume/core';
import { createFsStore } from '@resume/storage-fs';
import { bundleForNode } from '@resume/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

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

interface Outcome {
  acked: number[];
  done: string | null;
  killed: boolean;
}

/** Where a kill lands: `delayMs` after the worker started its `afterStarts`-th call (0: after it is ready). */
interface Kill {
  afterStarts: number;
  delayMs: number;
}

async function runWorker(home: string, id: string, callLog: string, kill: Kill | null): Promise<Outcome> {
  const child: ChildProcessByStdio<null, Readable, Readable> = spawn(
    process.execPath,
    [worker, home, id, callLog, String(CALLS)],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '' } },
  );
  const outcome: Outcome = { acked: [], done: null, killed: false };
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  // The clock starts once the worker is ready (its start-up is not what is tested) and has
  // started the chosen number of calls, so kills land in calls, between them and in replays.
  let timer: NodeJS.Timeout | undefined;
  child.stdout.on('data', () => {
    const starts = stdout.split('started\n').length - 1;
    if (kill && timer === undefined && stdout.includes('ready\n') && starts >= kill.afterStarts) {
      timer = setTimeout(() => child.kill('SIGKILL'), kill.delayMs);
    }
  });
  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  clearTimeout(timer);
  for (const line of stdout.split('\n')) {
    if (line.startsWith('ack ')) outcome.acked.push(Number(line.slice(4)));
    if (line.startsWith('done ')) outcome.done = line.slice(5);
  }
  outcome.killed = exit.signal === 'SIGKILL';
  if (!outcome.killed && exit.code !== 0) throw new Error(`the worker failed (exit ${exit.code}): ${stderr}`);
  return outcome;
}

describe('durable AI SDK calls under SIGKILL', () => {
  it('finishes with the uninterrupted result, repeating only the calls a kill caught in flight', {
    timeout: 600_000,
  }, async () => {
    const reference = path.join(directory, 'reference');
    const referenceLog = path.join(directory, 'reference.log');
    await writeFile(referenceLog, '');
    const uninterrupted = await runWorker(reference, createSessionId(), referenceLog, null);
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
      const outcome = await runWorker(home, id, callLog, kill);
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
