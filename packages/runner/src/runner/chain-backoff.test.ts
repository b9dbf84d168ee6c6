// A resume during a shell step's backoff waits only what is left of it.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createEngine } from '@resume/core';
import { createMemoryStore } from '@resume/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRunner, type Runner } from './runner.js';
import { createFakeModels } from './test-kit.js';

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'conclave-backoff-'));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

const MINUTE = 60_000;
const flow = `
name: backoff
steps:
  - shell: 'echo "$CONCLAVE_ATTEMPT" >> attempts.log; [ "$CONCLAVE_ATTEMPT" -ge 2 ]'
    retry: { attempts: 2, backoff: 10m }
`;

describe('backoff across a resume', () => {
  it('an interrupt 4 minutes into a 10 minute backoff leaves 6 minutes to wait on resume', async () => {
    await writeFile(path.join(workspace, 'flow.yaml'), flow);
    const store = createMemoryStore();
    let clock = Date.parse('2026-01-01T00:00:00Z');
    const engine = () => createEngine({ store, now: () => new Date(clock) });
    const waits: number[] = [];
    let first: Runner | null = null;
    first = createRunner({
      engine: engine(),
      models: createFakeModels().resolve,
      workspaceDir: workspace,
      // Four minutes pass in the wait, then the run is interrupted.
      sleep: (ms, signal) => {
        waits.push(ms);
        clock += 4 * MINUTE;
        void first?.interrupt();
        return new Promise((_, reject) => {
          if (signal.aborted) reject(new Error('interrupted'));
          signal.addEventListener('abort', () => reject(new Error('interrupted')));
        });
      },
    });
    const stopped = await first.runWorkflow('flow.yaml');
    expect(stopped.status).toBe('interrupted');
    expect(waits).toEqual([10 * MINUTE]);

    const resumer = createRunner({
      engine: engine(),
      models: createFakeModels().resolve,
      workspaceDir: workspace,
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    const resumed = await resumer.resume(stopped.sessionId);
    expect(resumed.status).toBe('completed');
    expect(waits).toEqual([10 * MINUTE, 6 * MINUTE]);
    expect((await readFile(path.join(workspace, 'attempts.log'), 'utf8')).trim().split('\n')).toEqual(['1', '2']);
  });
});
