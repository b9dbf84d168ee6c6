// A resume during a shell step's backoff waits only what is left of it.
import { readFile, writeFile } from 'node:fs/promises';
import { createEngine } from '@resume/core';
import { createMemoryStore } from '@resume/core/testing';
import { describe, expect, it } from 'vitest';
import { runnerFixture } from '../testing/runner-fixture.js';
import type { Runner } from './runner.js';
import { createFakeModels } from './test-kit.js';

const fixture = runnerFixture({ name: 'backoff' });

const MINUTE = 60_000;
const flow = `
name: backoff
steps:
  - shell: 'echo "$CONCLAVE_ATTEMPT" >> attempts.log; [ "$CONCLAVE_ATTEMPT" -ge 2 ]'
    retry: { attempts: 2, backoff: 10m }
`;

describe('backoff across a resume', () => {
  it('an interrupt 4 minutes into a 10 minute backoff leaves 6 minutes to wait on resume', async () => {
    await writeFile(fixture.path('flow.yaml'), flow);
    const store = createMemoryStore();
    let clock = Date.parse('2026-01-01T00:00:00Z');
    const engine = () => createEngine({ store, now: () => new Date(clock) });
    const waits: number[] = [];
    let first: Runner | null = null;
    first = fixture.runner({
      engine: engine(),
      models: createFakeModels().resolve,
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

    const resumer = fixture.runner({
      engine: engine(),
      models: createFakeModels().resolve,
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    const resumed = await resumer.resume(stopped.sessionId);
    expect(resumed.status).toBe('completed');
    expect(waits).toEqual([10 * MINUTE, 6 * MINUTE]);
    expect((await readFile(fixture.path('attempts.log'), 'utf8')).trim().split('\n')).toEqual(['1', '2']);
  });
});
