import { createEngine } from '@resume/core';
import { describe, expect, it } from 'vitest';
import { createRunner } from './runner.js';
import {
  createFakeModels,
  createRunnerInterruptedAt,
  createTestStore,
  type FakeModelsOptions,
  transcriptOf,
  until,
} from './test-kit.js';

const task = 'Should we split the monolith?';

async function uninterrupted(modelOptions: FakeModelsOptions = {}) {
  const { engine } = createTestStore();
  const models = createFakeModels(modelOptions);
  const runner = createRunner({ engine: engine(), models: models.resolve, workspaceDir: process.cwd() });
  const result = await runner.start({ mode: 'discussion', task });
  const state = await engine().readSession(result.sessionId);
  const summaries = await engine().listSessions();
  return { result, state, calls: models.calls, summaries };
}

describe('discussion mode', () => {
  it('runs rounds until the judge declares consensus and concludes with its solution', async () => {
    const { result, state, calls, summaries } = await uninterrupted();
    expect(summaries[0]?.progress).toEqual({ label: 'rounds', done: 2, total: 4 });
    expect(result.status).toBe('completed');
    expect(result.conclusion).toMatch(/^Final solution/);
    // 2 rounds x (3 agents + judge)
    expect(calls).toHaveLength(8);
    expect(state.checkpoints.map((checkpoint) => checkpoint.label)).toContain('round 2, agent critic');
    expect(state.messages.filter((message) => message.speaker === 'critic').map((message) => message.round)).toEqual([
      1, 2,
    ]);
    expect(state.usage.calls).toBe(8);
  });

  it('reports the run as it ended when the lease cannot be released afterwards (the store went away)', async () => {
    const { store } = createTestStore();
    // A store whose connection is gone by the time the lease is released.
    const unreachable = new Proxy(store, {
      get(target, property, receiver) {
        if (property !== 'acquireLease') return Reflect.get(target, property, receiver);
        return async (...args: Parameters<typeof store.acquireLease>) => {
          const lease = await target.acquireLease(...args);
          return {
            sessionId: lease.sessionId,
            epoch: lease.epoch,
            holder: lease.holder,
            release: async () => {
              throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
            },
          };
        };
      },
    });
    const models = createFakeModels();
    const notices: string[] = [];
    const runner = createRunner({
      engine: createEngine({ store: unreachable }),
      models: models.resolve,
      workspaceDir: process.cwd(),
      onEvent: (event) => {
        if (event.type === 'notice') notices.push(event.text);
      },
    });
    const result = await runner.start({ mode: 'discussion', task });
    expect(result.status).toBe('completed');
    expect(result.conclusion).toMatch(/^Final solution/);
    expect(notices.join('\n')).toContain("The session's lease could not be released (connect ECONNREFUSED");
  });

  it('refuses participants with the same name (their turns would be confused)', async () => {
    const { engine } = createTestStore();
    const runner = createRunner({ engine: engine(), models: createFakeModels().resolve, workspaceDir: process.cwd() });
    await expect(runner.start({ mode: 'discussion', task, agents: [{ name: 'a' }, { name: 'a' }] })).rejects.toThrow(
      /Two participants are named "a"/,
    );
    await expect(runner.start({ mode: 'discussion', task, agents: [{ name: 'judge' }] })).rejects.toThrow(/judge/);
    expect(await engine().listSessions()).toEqual([]);
  });

  it('forces the judge at the last round and under forceConsensus', async () => {
    const { engine } = createTestStore();
    const models = createFakeModels({ consensusAt: 99 });
    const runner = createRunner({ engine: engine(), models: models.resolve, workspaceDir: process.cwd() });
    const capped = await runner.start({ mode: 'discussion', task, options: { maxRounds: 3 } });
    expect(capped.status).toBe('completed');
    expect(models.calls.filter((call) => call.role === 'judge').map((call) => call.round)).toEqual([1, 2, 3]);
    const forced = await runner.start({ mode: 'discussion', task, options: { forceConsensus: true } });
    expect(forced.conclusion).toMatch(/^Final solution/);
    expect(models.calls.filter((call) => call.role === 'judge')).toHaveLength(4);
  });

  it.each([
    ['mid-call in round 1 (first agent)', 0],
    ['mid-call in round 1 (judge)', 3],
    ['mid-call in round 2', 5],
  ])(
    'after an interrupt %s, resume gives the uninterrupted transcript without repeating calls',
    async (_name, stopAt) => {
      const reference = await uninterrupted();
      const { engine } = createTestStore();
      let runner: ReturnType<typeof createRunner> | null = null;
      const models = createFakeModels({
        intercept: (_call, index) => (index === stopAt ? 'interrupt' : undefined),
        onHang: () => void runner?.interrupt(),
      });
      runner = createRunner({ engine: engine(), models: models.resolve, workspaceDir: process.cwd() });
      const first = await runner.start({ mode: 'discussion', task });
      expect(first.status).toBe('interrupted');
      expect(first.resumeCommand).toBe(`conclave --resume ${first.sessionId}`);
      expect((await engine().readSession(first.sessionId)).status).toBe('interrupted');

      const callsBefore = models.calls.length;
      const second = await createRunner({
        engine: engine(),
        models: models.resolve,
        workspaceDir: process.cwd(),
      }).resume(first.sessionId);
      expect(second.status).toBe('completed');
      const state = await engine().readSession(first.sessionId);
      expect(transcriptOf(state.messages)).toEqual(transcriptOf(reference.state.messages));
      expect(second.conclusion).toBe(reference.result.conclusion);
      // Only the interrupted call ran again: completed turns were replayed from the journal.
      expect(models.calls.length - callsBefore).toBe(reference.calls.length - stopAt);
      expect(models.calls.slice(callsBefore)).toEqual(reference.calls.slice(stopAt));
      expect(state.recoveries).toBe(1);
      // Replayed turns do not mark their checkpoints a second time.
      const labels = state.checkpoints.map((checkpoint) => checkpoint.label);
      expect(new Set(labels).size).toBe(labels.length);
    },
  );

  it('after a crash (process gone, lease dead) resumes with a fresh engine on the same store', async () => {
    const reference = await uninterrupted();
    const { store, engine } = createTestStore();
    let hung = false;
    const models = createFakeModels({
      intercept: (_call, index) => (index === 6 ? 'crash' : undefined),
      onHang: () => {
        hung = true;
      },
    });
    const crashed = createRunner({ engine: engine(), models: models.resolve, workspaceDir: process.cwd() });
    void crashed.start({ mode: 'discussion', task });
    await until(() => hung);
    const [summary] = await engine().listSessions();
    if (!summary) throw new Error('no session');
    store.killHolder(summary.id);
    expect((await engine().listSessions())[0]?.status).toBe('interrupted');

    const resumed = await createRunner({
      engine: engine(),
      models: models.resolve,
      workspaceDir: process.cwd(),
    }).resume(summary.id);
    expect(resumed.status).toBe('completed');
    const state = await engine().readSession(summary.id);
    expect(transcriptOf(state.messages)).toEqual(transcriptOf(reference.state.messages));
    expect(models.calls.slice(7)).toEqual(reference.calls.slice(6));
  });

  it('interrupting between steps stops before the next call', async () => {
    const { engine } = createTestStore();
    const models = createFakeModels();
    const runner = createRunnerInterruptedAt('round 1, agent critic', {
      engine: engine(),
      models: models.resolve,
      workspaceDir: process.cwd(),
    });
    const result = await runner.start({ mode: 'discussion', task });
    expect(result.status).toBe('interrupted');
    expect(models.calls).toHaveLength(2);
    const resumed = await createRunner({
      engine: engine(),
      models: models.resolve,
      workspaceDir: process.cwd(),
    }).resume(result.sessionId);
    expect(resumed.status).toBe('completed');
    expect(models.calls).toHaveLength(8);
  });

  it('declining the resume prompt runs nothing, changes nothing and says it was cancelled', async () => {
    const { engine } = createTestStore();
    const models = createFakeModels();
    const runner = createRunnerInterruptedAt('round 1, agent critic', {
      engine: engine(),
      models: models.resolve,
      workspaceDir: process.cwd(),
    });
    const interrupted = await runner.start({ mode: 'discussion', task });
    const before = await engine().readSession(interrupted.sessionId);
    const asked: string[] = [];
    const declined = await createRunner({
      engine: engine(),
      models: models.resolve,
      workspaceDir: process.cwd(),
      decisions: {
        confirmResume: async (plan) => {
          asked.push(plan.next ?? '');
          return false;
        },
      },
    }).resume(interrupted.sessionId);
    expect(asked).toEqual(['round 1 of 4, agent pragmatist']);
    expect(declined).toMatchObject({ status: 'interrupted', cancelled: true });
    expect(models.calls).toHaveLength(2);
    const after = await engine().readSession(interrupted.sessionId);
    expect(after.lastSeq).toBe(before.lastSeq);
    expect(interrupted.cancelled).toBeUndefined();
  });

  it('a crash after a turn was journaled but before its message was committed adds the message exactly once', async () => {
    const reference = await uninterrupted();
    const { store } = createTestStore();
    let hung = false;
    // The checkpoint batch after the critic's first turn never reaches the disk: the process dies first.
    const dyingStore = {
      ...store,
      append: (sessionId: string, batch: Parameters<typeof store.append>[1]) => {
        const dies = batch.events.some(
          (event) => event.type === 'checkpoint-marked' && event.label === 'round 1, agent critic',
        );
        if (!dies) return store.append(sessionId, batch);
        hung = true;
        return new Promise<void>(() => undefined);
      },
    };
    const models = createFakeModels();
    void createRunner({
      engine: createEngine({ store: dyingStore }),
      models: models.resolve,
      workspaceDir: '/w',
    }).start({
      mode: 'discussion',
      task,
    });
    await until(() => hung);
    const sessionId = (await store.list())[0]?.id ?? '';
    store.killHolder(sessionId);
    const before = await createEngine({ store }).readSession(sessionId);
    expect(before.messages.map((message) => message.speaker)).toEqual(['user', 'architect']);
    expect(before.steps.find((step) => step.key === 'round-1/critic')?.status).toBe('completed');

    const resumed = await createRunner({
      engine: createEngine({ store }),
      models: models.resolve,
      workspaceDir: '/w',
    }).resume(sessionId);
    expect(resumed.status).toBe('completed');
    const state = await createEngine({ store }).readSession(sessionId);
    expect(transcriptOf(state.messages)).toEqual(transcriptOf(reference.state.messages));
    // The critic's completed turn was not asked again.
    expect(models.calls.filter((call) => call.agent === 'critic' && call.round === 1)).toHaveLength(1);
  });
});
