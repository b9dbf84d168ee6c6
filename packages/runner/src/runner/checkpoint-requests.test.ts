import { hostname } from 'node:os';
import { UsageError } from '@resume/core/spec';
import { describe, expect, it } from 'vitest';
import { HANDLED_REQUESTS_KEY, requestCheckpoint } from './checkpoint-requests.js';
import type { RunEvent } from './run-event.js';
import { createRunner } from './runner.js';
import { createFakeModels, createTestStore } from './test-kit.js';

const holder = { pid: process.pid, host: hostname() };

describe('checkpoints on demand', () => {
  it('writes a requested checkpoint at the next safe point, once, with its label', async () => {
    const { store, engine } = createTestStore();
    const models = createFakeModels({ consensusAt: 99 });
    const events: RunEvent[] = [];
    let requestId = '';
    const runner = createRunner({
      engine: engine(),
      models: models.resolve,
      workspaceDir: process.cwd(),
      requestPollMs: 1,
      onEvent: (event) => {
        events.push(event);
        // Another terminal asks while the session runs: the request goes through the store.
        if (event.type === 'run-started' && !event.resumed)
          void store
            .postRequest?.(event.sessionId, { kind: 'checkpoint', label: 'before lunch', requestedBy: holder })
            .then((request) => {
              requestId = request.id;
            });
      },
    });
    const result = await runner.start({
      mode: 'discussion',
      task: 'Name a cat',
      agents: [{ name: 'a' }, { name: 'b' }],
      options: { maxRounds: 2 },
    });
    expect(result.status).toBe('completed');
    const state = await engine().readSession(result.sessionId);
    const labels = state.checkpoints.map((checkpoint) => checkpoint.label);
    expect(labels.filter((label) => label === 'before lunch')).toHaveLength(1);
    // Written at a safe point: right after a checkpoint the mode wrote itself.
    const index = labels.indexOf('before lunch');
    expect(index).toBeGreaterThan(0);
    expect(labels[index - 1]).toMatch(/^round \d+, /);
    expect(state.data[HANDLED_REQUESTS_KEY]).toEqual([requestId]);
    expect(events.some((event) => event.type === 'notice' && event.text.includes('"before lunch" written'))).toBe(true);
    // The request stays in the store, but a later run of the session does not honour it again.
    expect((await store.listRequests?.(result.sessionId))?.map((request) => request.id)).toEqual([requestId]);
  });

  it('asks a running session through requestCheckpoint, and refuses one that is not running', async () => {
    const { engine } = createTestStore();
    const models = createFakeModels();
    const runner = createRunner({ engine: engine(), models: models.resolve, workspaceDir: process.cwd() });
    const done = await runner.start({ mode: 'discussion', task: 'Name a dog', options: { maxRounds: 1 } });
    // A live writer (here: this process holding the lease) is asked; the request is stored for it.
    const live = await engine().openSession(done.sessionId, { countRecovery: false });
    const posted = await requestCheckpoint(engine(), done.sessionId.slice(0, 10), 'now', holder);
    expect(posted.holder.pid).toBe(process.pid);
    expect(posted.request).toMatchObject({ kind: 'checkpoint', label: 'now' });
    await live.close();
    const error = await requestCheckpoint(engine(), done.sessionId, 'late', holder).catch((caught: unknown) => caught);
    expect(UsageError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('is not running');
  });

  it('labels a checkpoint every N rounds with checkpointInterval; every turn stays durable', async () => {
    const { engine } = createTestStore();
    const models = createFakeModels({ consensusAt: 99 });
    const runner = createRunner({
      engine: engine(),
      models: models.resolve,
      workspaceDir: process.cwd(),
      checkpointInterval: 2,
    });
    const result = await runner.start({
      mode: 'discussion',
      task: 'Name a fish',
      agents: [{ name: 'a' }],
      options: { maxRounds: 3 },
    });
    const state = await engine().readSession(result.sessionId);
    const labels = state.checkpoints.map((checkpoint) => checkpoint.label);
    // Round 1 has none; the last round's conclusion is always labelled.
    expect(labels).toEqual(['round 2, agent a', 'round 2, judge', 'round 3, consensus']);
    // Round 1's turns were committed all the same.
    expect(state.messages.filter((message) => message.round === 1)).toHaveLength(2);
    expect(state.steps.filter((step) => step.status === 'completed')).toHaveLength(6);
  });
});
