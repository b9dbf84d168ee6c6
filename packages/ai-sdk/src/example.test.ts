// examples/ai-sdk runs as its README says: killed mid-way, run again with its session id, it
// finishes without repeating the calls that had finished, and a third run calls nothing.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleForNode } from '@resume/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let directory: string;
let example: string;
beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'conclave-ai-sdk-example-'));
  example = path.join(directory, 'main.mjs');
  await bundleForNode(fileURLToPath(new URL('../../../examples/ai-sdk/main.ts', import.meta.url)), example);
}, 60_000);
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

/** Runs the example; with `killAt`, SIGKILLs it as soon as its output contains that text. */
function run(args: string[], killAt?: string): Promise<{ output: string; killed: boolean }> {
  const child = spawn(process.execPath, [example, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '', CONCLAVE_HOME: path.join(directory, 'home'), EXAMPLE_LATENCY_MS: '60' },
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    if (killAt && output.includes(killAt)) child.kill('SIGKILL');
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  return new Promise((resolve, reject) =>
    child.once('exit', (code, signal) => {
      if (signal !== 'SIGKILL' && code !== 0) reject(new Error(`the example failed (exit ${code}):\n${output}`));
      else resolve({ output, killed: signal === 'SIGKILL' });
    }),
  );
}

describe('examples/ai-sdk', () => {
  it('survives kill -9 and continues where it stopped', async () => {
    const first = await run([], '→ weather tool');
    expect(first.killed).toBe(true);
    const id = /session (\w+)/.exec(first.output)?.[1] ?? '';
    expect(id).toMatch(/^[0-9a-z]{22}$/);

    const second = await run([id]);
    expect(second.output).toContain('resuming');
    // The first model call (which asked for the tool) finished before the kill: of the two
    // generate calls only the second is made; the tool caught in flight runs again.
    expect(second.output.match(/\(generate\)/g)).toHaveLength(1);
    expect(second.output).toContain('→ weather tool');
    expect(second.output).toContain('A walking day in Lisbon: old town, market lunch, sunset view.\n');
    expect(second.output).toContain('done: 2 provider call(s) in this run; 3 model calls journaled');

    const third = await run([id]);
    expect(third.output).toContain('done: 0 provider call(s) in this run; 3 model calls journaled');
    expect(third.output).not.toContain('→');
    expect(third.output).toContain('A walking day in Lisbon: old town, market lunch, sunset view.\n');
  });
});
