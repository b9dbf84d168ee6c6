// Group commit (`completionWithNextAppend`): a step's completion goes in the session's next
// durable append instead of one of its own, and that append is always written before anything
// else runs.
import { describe, expect, it } from 'vitest';
import type { AppendBatch } from '../spec/index.js';
import { UncertainStepError } from '../spec/index.js';
import { createMemoryStore, type MemoryStore } from '../testing/memory-store.js';
import { createEngine } from './engine.js';

/** The event types of every append the store receives, in order. */
function recordAppends(store: MemoryStore): string[][] {
  const appends: string[][] = [];
  const append = store.append.bind(store);
  store.append = (id: string, batch: AppendBatch) => {
    appends.push(batch.events.map((event) => event.type));
    return append(id, batch);
  };
  return appends;
}

describe('a step whose completion goes with the next append', () => {
  it("is written with the next step's start, before that step's function runs", async () => {
    const store = createMemoryStore();
    const engine = createEngine({ store, holder: { pid: 1, host: 'test' } });
    const session = await engine.createSession({ title: 'two steps', mode: 'custom' });
    const appends = recordAppends(store);
    const first = await session.step('first', () => 'one', {
      safety: 'unsafe',
      checkpointOnCompletion: () => 'first passed',
      completionWithNextAppend: true,
    });
    expect(first).toBe('one');
    // Nothing written yet for the completion: only the first step's start.
    expect(appends).toEqual([['step-started']]);
    let durableWhenSecondRan: string[] = [];
    await session.step(
      'second',
      async () => {
        durableWhenSecondRan = (await engine.readSession(session.id)).steps.map((step) => `${step.key}:${step.status}`);
        return 'two';
      },
      { safety: 'unsafe', completionWithNextAppend: true },
    );
    // The second step's start carried the first one's completion and checkpoint, in one append.
    expect(appends[1]).toEqual(['step-completed', 'checkpoint-marked', 'step-started']);
    expect(durableWhenSecondRan).toEqual(['first:completed', 'second:started']);
    await session.complete();
    expect(appends[2]).toEqual(['step-completed', 'status-changed']);
    await session.close();
    expect((await engine.readSession(session.id)).steps.map((step) => step.status)).toEqual(['completed', 'completed']);
  });

  it('is durable once the session is interrupted or closed', async () => {
    const store = createMemoryStore();
    const engine = createEngine({ store, holder: { pid: 1, host: 'test' } });
    const session = await engine.createSession({ title: 'interrupted', mode: 'custom' });
    await session.step('only', () => 'done', { safety: 'unsafe', completionWithNextAppend: true });
    await session.interrupt('stopped between steps');
    await session.close();
    const state = await engine.readSession(session.id);
    expect(state.steps.map((step) => step.status)).toEqual(['completed']);
    expect(state.status).toBe('interrupted');
  });

  it('leaves the step uncertain when the process dies before the next append, as a crash during its own write would', async () => {
    const store = createMemoryStore();
    const engine = createEngine({ store, holder: { pid: 1, host: 'test' } });
    const session = await engine.createSession({ title: 'crashed', mode: 'custom' });
    let runs = 0;
    const step = () =>
      session.step(
        'side-effect',
        () => {
          runs += 1;
          return 'done';
        },
        { safety: 'unsafe', completionWithNextAppend: true },
      );
    await step();
    store.killHolder(session.id); // the process dies before its next append

    const reopened = await createEngine({ store, holder: { pid: 2, host: 'test' } }).openSession(session.id, {
      replay: 'keyed',
    });
    expect(reopened.state.steps.map((recorded) => recorded.status)).toEqual(['started']);
    await expect(
      reopened.step('side-effect', () => 'again', { safety: 'unsafe', completionWithNextAppend: true }),
    ).rejects.toSatisfy((error: unknown) => UncertainStepError.isInstance(error));
    expect(runs).toBe(1);
    await reopened.close();
  });
});
