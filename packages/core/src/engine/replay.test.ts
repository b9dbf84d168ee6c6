// The ordered replay model (ReplayPolicy 'ordered', the library's default): re-running the
// same code on a reopened session replays every journaled operation from the journal and
// appends nothing until the code passes the recorded end.
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  createSessionId,
  InterruptedError,
  type JournalEvent,
  RecoveryLimitError,
  ReplayMismatchError,
  SessionFinishedError,
  StepFailedError,
  StepOutputError,
  UncertainStepError,
} from '../spec/index.js';
import { createHang } from '../testing/hang.js';
import { createMemoryStore, type MemoryStore } from '../testing/memory-store.js';
import { testHeader } from '../testing/session-fixtures.js';
import { createEngine } from './engine.js';
import type { Engine, Session } from './types.js';

const noSleep = async () => {};

/** Each call is another process on the same store (another lease holder). */
function processes(store: MemoryStore): () => Engine {
  let pid = 2000;
  return () => {
    pid += 1;
    return createEngine({ store, holder: { pid, host: 'test' } });
  };
}

async function events(store: MemoryStore, id: string): Promise<JournalEvent[]> {
  const all: JournalEvent[] = [];
  for await (const event of store.read(id)) all.push(event);
  return all;
}

/** Resolves never: the process "dies" while it waits here. */
const { hang, reached } = createHang();

describe('ordered replay: re-running the same code', () => {
  it('appends every message and checkpoint once when the job is re-run after a crash (the README example)', async () => {
    const store = createMemoryStore();
    const nextProcess = processes(store);
    let fetches = 0;
    let crashAfterCheckpoint = true;
    const job = async (session: Session) => {
      const value = await session.step('fetch', async () => {
        fetches += 1;
        return 41;
      });
      session.addMessage({ role: 'user', content: `v=${value}` });
      await session.checkpoint('after');
      if (crashAfterCheckpoint) await hang();
      return session.step('double', () => value * 2);
    };
    const session = await nextProcess().createSession({ title: 'nightly report' });
    void job(session);
    await reached();
    store.killHolder(session.id);

    crashAfterCheckpoint = false;
    const result = await nextProcess().run(session.id, job);
    expect(result).toBe(82);
    expect(fetches).toBe(1);
    const state = await nextProcess().readSession(session.id);
    expect(state.messages.map((message) => message.content)).toEqual(['v=41']);
    expect(state.checkpoints.map((checkpoint) => checkpoint.label)).toEqual(['after']);
    expect(state.status).toBe('completed');
    const types = (await events(store, session.id)).map((event) => event.type);
    expect(types.filter((type) => type === 'message-added')).toHaveLength(1);
  });

  it('engine.run creates again a session whose creation died before its first event', async () => {
    const store = createMemoryStore();
    const nextProcess = processes(store);
    const { createSessionId } = await import('../spec/ids.js');
    const id = createSessionId();
    // The first process wrote the header and took the lease, then died before the first append.
    await store.create(testHeader({ id, title: 'job' }));
    await store.acquireLease(id, { holder: { pid: 1999, host: 'test' } });
    store.killHolder(id);
    expect(await nextProcess().run({ id, title: 'job' }, (session) => session.step('a', () => 'A'))).toBe('A');
    const state = await nextProcess().readSession(id);
    expect(state.status).toBe('completed');
    expect(state.steps.map((step) => step.key)).toEqual(['a']);
  });

  it('engine.run creates a session under a chosen id, then resumes it with the same call', async () => {
    const store = createMemoryStore();
    const nextProcess = processes(store);
    const { createSessionId } = await import('../spec/ids.js');
    const id = createSessionId();
    const calls: string[] = [];
    let crash = true;
    const job = async (session: Session) => {
      const a = await session.step('a', () => {
        calls.push('a');
        return 'A';
      });
      if (crash) await hang();
      const b = await session.step('b', () => {
        calls.push('b');
        return 'B';
      });
      return a + b;
    };
    void nextProcess().run({ id, title: 'job', mode: 'custom' }, job);
    await reached();
    store.killHolder(id);
    crash = false;
    expect(await nextProcess().run({ id, title: 'job' }, job)).toBe('AB');
    expect(calls).toEqual(['a', 'b']);
    // A completed job run again replays everything and runs nothing.
    expect(await nextProcess().run(id, job)).toBe('AB');
    expect(calls).toEqual(['a', 'b']);
    const state = await nextProcess().readSession(id);
    expect(state.status).toBe('completed');
    expect(state.header.mode).toBe('custom');
  });

  it('is a typed replay error when the code asks for another step, message or checkpoint than recorded', async () => {
    const store = createMemoryStore();
    const nextProcess = processes(store);
    const session = await nextProcess().createSession({ title: 't' });
    await session.step('fetch', () => 1);
    session.addMessage({ role: 'user', content: 'summarize' });
    await session.checkpoint('fetched');
    store.killHolder(session.id);

    const otherStep = await nextProcess()
      .run(session.id, (again) => again.step('download', () => 1))
      .catch((error: unknown) => error);
    expect(ReplayMismatchError.isInstance(otherStep)).toBe(true);
    expect((otherStep as ReplayMismatchError).expectedKey).toBe('fetch');
    expect((otherStep as ReplayMismatchError).requestedKey).toBe('download');

    const otherMessage = await nextProcess()
      .run(session.id, async (again) => {
        await again.step('fetch', () => 1);
        again.addMessage({ role: 'user', content: 'translate' });
      })
      .catch((error: unknown) => error);
    expect(ReplayMismatchError.isInstance(otherMessage)).toBe(true);
    expect((otherMessage as Error).message).toContain('summarize');
    expect((otherMessage as Error).message).toContain('translate');

    const otherLabel = await nextProcess()
      .run(session.id, async (again) => {
        await again.step('fetch', () => 1);
        again.addMessage({ role: 'user', content: 'summarize' });
        await again.checkpoint('downloaded');
      })
      .catch((error: unknown) => error);
    expect(ReplayMismatchError.isInstance(otherLabel)).toBe(true);

    const finishedEarly = await nextProcess()
      .run(session.id, (again) => again.step('fetch', () => 1))
      .catch((error: unknown) => error);
    expect(ReplayMismatchError.isInstance(finishedEarly)).toBe(true);
    expect((finishedEarly as ReplayMismatchError).requested).toContain('nothing more');
    // None of the refused replays wrote an operation.
    const types = (await events(store, session.id)).map((event) => event.type);
    expect(types.filter((type) => type === 'message-added' || type === 'step-started')).toHaveLength(2);
  });

  it('replays writes made inside a step with the step, and steps started together in call order', async () => {
    const store = createMemoryStore();
    const nextProcess = processes(store);
    const calls: string[] = [];
    const job = async (session: Session) => {
      const answer = await session.step('model', async () => {
        calls.push('model');
        session.record({
          type: 'usage-recorded',
          provider: 'p',
          model: 'm',
          inputTokens: 3,
          outputTokens: 2,
          costUsd: 0.01,
        });
        return 'answer';
      });
      // The left step finishes after the right one has started.
      let rightStarted = () => {};
      const rightStart = new Promise<void>((resolve) => (rightStarted = resolve));
      const [left, right] = await Promise.all([
        session.step('left', async () => {
          calls.push('left');
          await rightStart;
          return 'L';
        }),
        session.step('right', () => {
          calls.push('right');
          rightStarted();
          return 'R';
        }),
      ]);
      session.addMessage({ role: 'assistant', content: `${answer} ${left}${right}` });
      await session.checkpoint('done');
    };
    const session = await nextProcess().createSession({ title: 't' });
    await job(session);
    store.killHolder(session.id);
    await nextProcess().run(session.id, job);
    expect(calls).toEqual(['model', 'left', 'right']);
    const recorded = await events(store, session.id);
    const usage = recorded.filter((event) => event.type === 'usage-recorded');
    expect(usage).toHaveLength(1);
    expect(usage[0]?.within).toEqual({ key: 'model', occurrence: 1 });
    const state = await nextProcess().readSession(session.id);
    expect(state.messages.map((message) => message.content)).toEqual(['answer LR']);
    expect(state.usage.calls).toBe(1);
  });

  it('replays a failure the code went on from, so the code takes the same path again', async () => {
    const store = createMemoryStore();
    const nextProcess = processes(store);
    const calls: string[] = [];
    const job = async (session: Session) => {
      try {
        await session.step('primary', () => {
          calls.push('primary');
          throw new Error('primary is down');
        });
      } catch (error) {
        expect(StepFailedError.isInstance(error)).toBe(true);
      }
      return session.step('fallback', () => {
        calls.push('fallback');
        return 'from fallback';
      });
    };
    const session = await nextProcess().createSession({ title: 't' });
    await job(session);
    store.killHolder(session.id);
    expect(await nextProcess().run(session.id, job)).toBe('from fallback');
    expect(calls).toEqual(['primary', 'fallback']);
  });

  it('lets the job be called again on the same session after an uncertain step, under the same key', async () => {
    const store = createMemoryStore();
    const nextProcess = processes(store);
    const charged: string[] = [];
    let decide: ((step: unknown) => 'rerun') | undefined;
    const job = async (session: Session) => {
      const order = await session.step('order', () => ({ id: 'o-1' }));
      return session.step(
        'charge',
        async ({ idempotencyKey }) => {
          charged.push(idempotencyKey);
          if (charged.length === 1) await hang();
          return `charged ${order.id}`;
        },
        decide ? { safety: 'unsafe', onUncertain: decide } : { safety: 'unsafe' },
      );
    };
    const first = await nextProcess().createSession({ title: 't' });
    void job(first);
    await reached();
    store.killHolder(first.id);

    const session = await nextProcess().openSession(first.id);
    const uncertain = await job(session).catch((error: unknown) => error);
    expect(UncertainStepError.isInstance(uncertain)).toBe(true);
    expect(charged).toHaveLength(1);
    decide = () => 'rerun';
    expect(await job(session)).toBe('charged o-1');
    expect(charged).toEqual([`${first.id}:charge:1`, `${first.id}:charge:1`]);
    await session.complete();
    await session.close();
  });

  it('refuses steps and writes after complete() or fail() with a typed error', async () => {
    const engine = createEngine({ store: createMemoryStore() });
    const completed = await engine.createSession({ title: 'done' });
    await completed.complete();
    const late = await completed.step('late', () => 1).catch((error: unknown) => error);
    expect(SessionFinishedError.isInstance(late)).toBe(true);
    expect(() => completed.addMessage({ role: 'user', content: 'late' })).toThrow(SessionFinishedError);
    const failed = await engine.createSession({ title: 'failed' });
    await failed.fail(new Error('broken'));
    await expect(failed.checkpoint('late')).rejects.toSatisfy((error: unknown) =>
      SessionFinishedError.isInstance(error),
    );
    // Opening a failed session again retries it: writes are accepted again.
    await failed.close();
    const reopened = await engine.openSession(failed.id);
    expect(await reopened.step('retry', () => 'ok')).toBe('ok');
  });

  it('forks in the same model: the child re-runs the job and replays the parent part', async () => {
    const store = createMemoryStore();
    const nextProcess = processes(store);
    const calls: string[] = [];
    const job = (topic: string) => async (session: Session) => {
      const research = await session.step('research', () => {
        calls.push(`research ${topic}`);
        return `notes on ${topic}`;
      });
      await session.checkpoint('researched');
      return session.step('write', () => {
        calls.push(`write ${topic}`);
        return `report from ${research} (${topic})`;
      });
    };
    const parent = await nextProcess().createSession({ title: 'parent' });
    await job('cats')(parent);
    const branchPoint = parent.state.checkpoints[0]?.seq ?? 0;
    const child = await parent.fork({ at: branchPoint, title: 'what if dogs' });
    expect(await job('dogs')(child)).toBe('report from notes on cats (dogs)');
    expect(calls).toEqual(['research cats', 'write cats', 'write dogs']);
  });
});

describe.each([
  ['ordered', (engine: Engine, id: string, job: (session: Session) => Promise<unknown>) => engine.run(id, job)],
  [
    'keyed',
    async (engine: Engine, id: string, job: (session: Session) => Promise<unknown>) => {
      const session = await engine.openSession(id, { replay: 'keyed' });
      try {
        return await job(session);
      } finally {
        await session.close();
      }
    },
  ],
] as const)('%s replay of a completed session', (_, rerun) => {
  it('replays a caught failure of its last step: the step does not run again and nothing is appended', async () => {
    const store = createMemoryStore();
    const nextProcess = processes(store);
    let charges = 0;
    const job = async (session: Session) => {
      await session.step('fetch', () => 'cart');
      try {
        await session.step(
          'charge',
          () => {
            charges += 1;
            throw new Error('card declined');
          },
          { safety: 'unsafe' },
        );
        return null;
      } catch (error) {
        return error;
      }
    };
    const id = createSessionId();
    await nextProcess().run({ id, title: 'checkout' }, job);
    const recorded = await events(store, id);
    expect(recorded.at(-1)).toMatchObject({ type: 'status-changed', status: 'completed' });

    for (let run = 1; run <= 3; run += 1) {
      const failure = await rerun(nextProcess(), id, job);
      expect(StepFailedError.isInstance(failure)).toBe(true);
      expect((failure as StepFailedError).replayed).toBe(true);
      expect((failure as StepFailedError).message).toContain('card declined');
    }
    expect(charges).toBe(1);
    expect(await events(store, id)).toEqual(recorded);
    expect((await store.getSummary(id))?.lastSeq).toBe(recorded.length);
  });

  it('still retries the last step of a session that failed because of it (resuming a failed run)', async () => {
    const store = createMemoryStore();
    const nextProcess = processes(store);
    let charges = 0;
    const job = (session: Session) =>
      session.step('charge', () => {
        charges += 1;
        if (charges === 1) throw new Error('card declined');
        return 'charged';
      });
    const id = createSessionId();
    await expect(nextProcess().run({ id, title: 'checkout' }, job)).rejects.toThrow('card declined');
    expect(await rerun(nextProcess(), id, job)).toBe('charged');
    expect(charges).toBe(2);
  });
});

describe('step outputs are what the journal keeps', () => {
  it('returns the same JSON on the first run and on replay, with types that say so', async () => {
    const store = createMemoryStore();
    const nextProcess = processes(store);
    const when = new Date('2026-11-23T10:00:00.000Z');
    const job = async (session: Session) => {
      const stamped = await session.step('stamp', () => ({ when, note: undefined as string | undefined, count: 2 }));
      expectTypeOf(stamped).toEqualTypeOf<{ when: string; count: number; note?: string }>();
      const nothing = await session.step('void', () => {});
      expectTypeOf(nothing).toEqualTypeOf<undefined>();
      const sync = await session.step('sync', () => [1, 2, 3]);
      expectTypeOf(sync).toEqualTypeOf<number[]>();
      return { stamped, nothing, sync };
    };
    const session = await nextProcess().createSession({ title: 't' });
    const first = await job(session);
    store.killHolder(session.id);
    const replayed = await nextProcess().run(session.id, job);
    expect(first).toEqual({
      stamped: { when: '2026-11-23T10:00:00.000Z', count: 2 },
      nothing: undefined,
      sync: [1, 2, 3],
    });
    expect(replayed).toEqual(first);
    expect(typeof first.stamped.when).toBe('string');
  });

  it.each([
    ['a Map', () => new Map([['a', 1]]), 'output'],
    ['NaN', () => ({ ratio: Number.NaN }), 'output.ratio'],
    ['a bigint', () => ({ big: 10n }), 'output.big'],
    ['a Set inside an array', () => ({ rows: [1, new Set([2])] }), 'output.rows[1]'],
    [
      'a class instance',
      () =>
        new (class Point {
          x = 1;
        })(),
      'output',
    ],
  ])('refuses %s as output with a typed error and records the step as failed', async (_, produce, path) => {
    const engine = createEngine({ store: createMemoryStore() });
    const session = await engine.createSession({ title: 't' });
    const error = await session.step('shape', produce as () => unknown).catch((caught: unknown) => caught);
    expect(StepFailedError.isInstance(error)).toBe(true);
    const cause = (error as StepFailedError).cause;
    expect(StepOutputError.isInstance(cause)).toBe(true);
    expect((cause as StepOutputError).path).toBe(path);
    const step = session.state.steps[0];
    expect(step?.status).toBe('failed');
    expect(step?.attempts[0]?.error?.code).toBe('step-output-not-json');
  });

  it('decodes with a codec, and requires a skipValue of the step type when a handler may skip', async () => {
    const engine = createEngine({ store: createMemoryStore() });
    const session = await engine.createSession({ title: 't' });
    const codec = {
      encode: (value: Map<string, number>) => Object.fromEntries(value),
      decode: (value: unknown) => new Map(Object.entries(value as Record<string, number>)),
    };
    const map = await session.step('map', () => new Map([['a', 1]]), { codec });
    expectTypeOf(map).toEqualTypeOf<Map<string, number>>();
    expect(map.get('a')).toBe(1);
    // A handler that may answer 'skip' needs the value a skipped step returns.
    // @ts-expect-error skipValue is required with a handler that may skip
    void session.step('deploy', () => 'ok', { safety: 'unsafe', onUncertain: () => 'skip' as const });
    void session.step('deploy-2', () => 'ok', { safety: 'unsafe', onUncertain: () => 'abort' as const });
    // @ts-expect-error skipValue has the step's own type
    void session.step('deploy-3', () => 'ok', { safety: 'unsafe', onUncertain: () => 'skip' as const, skipValue: 1 });
  });
});

describe('retries and failures', () => {
  it('throws StepFailedError with every attempt when retries run out, journaling what the filter decided', async () => {
    const engine = createEngine({ store: createMemoryStore() });
    const session = await engine.createSession({ title: 't' });
    const error = await session
      .step(
        'flaky',
        ({ attempt }) => {
          throw new Error(`boom ${attempt}`);
        },
        { retry: { attempts: 3 }, sleep: noSleep },
      )
      .catch((caught: unknown) => caught);
    expect(StepFailedError.isInstance(error)).toBe(true);
    const failed = error as StepFailedError;
    expect(failed.attempts.map((attempt) => [attempt.attempt, attempt.error.message])).toEqual([
      [1, 'boom 1'],
      [2, 'boom 2'],
      [3, 'boom 3'],
    ]);
    expect((failed.cause as Error).message).toBe('boom 3');
    // A plain error is retryable by default: the journal says so, and says when no attempt was left.
    const attempts = session.state.steps[0]?.attempts ?? [];
    expect(attempts.map((attempt) => [attempt.error?.retryable, attempt.willRetry])).toEqual([
      [true, true],
      [true, true],
      [true, false],
    ]);
    const refused = await session
      .step(
        'picky',
        () => {
          throw new Error('not worth it');
        },
        { retry: { attempts: 3, retryOn: () => false }, sleep: noSleep },
      )
      .catch((caught: unknown) => caught);
    expect((refused as StepFailedError).attempts).toHaveLength(1);
    expect(session.state.steps[1]?.attempts[0]?.error?.retryable).toBe(false);
  });

  it('after a reopen waits only what is left of the backoff before the next attempt', async () => {
    const store = createMemoryStore();
    let clock = Date.parse('2026-11-23T10:00:00.000Z');
    const now = () => new Date(clock);
    const first = createEngine({ store, now, holder: { pid: 1, host: 't' } });
    const session = await first.createSession({ title: 't' });
    void session
      .step(
        'retrying',
        ({ attempt }) => {
          if (attempt === 1) throw new Error('first attempt fails');
          return hang();
        },
        { retry: { attempts: 3, backoff: { initialMs: 10_000 } }, sleep: hang },
      )
      .catch(() => {});
    await reached();
    store.killHolder(session.id);
    clock += 4_000;
    const waited: number[] = [];
    const second = createEngine({ store, now, holder: { pid: 2, host: 't' } });
    const reopened = await second.openSession(session.id);
    const result = await reopened.step('retrying', ({ attempt }) => `attempt ${attempt}`, {
      retry: { attempts: 3, backoff: { initialMs: 10_000 } },
      sleep: async (ms) => {
        waited.push(ms);
      },
    });
    expect(result).toBe('attempt 2');
    expect(waited).toEqual([6_000]);
  });
});

describe('recoveries', () => {
  it('does not count clean interrupts: 50 interrupted runs still resume and complete', async () => {
    const store = createMemoryStore();
    const nextProcess = processes(store);
    const session = await nextProcess().createSession({ title: 't' });
    await session.interrupt();
    await session.close();
    for (let index = 0; index < 50; index += 1) {
      const again = await nextProcess().openSession(session.id, { maxRecoveries: 2 });
      await again.interrupt();
      await again.close();
    }
    await nextProcess().run(session.id, () => undefined, { maxRecoveries: 2 });
    const state = await nextProcess().readSession(session.id);
    expect(state.status).toBe('completed');
    expect(state.recoveries).toBe(51);
    expect(state.stalledRecoveries).toBe(0);
  });

  it('stops a poison step that crashes the process again and again, unless forced; progress resets the count', async () => {
    const store = createMemoryStore();
    const nextProcess = processes(store);
    const session = await nextProcess().createSession({ title: 't' });
    await session.step('ok', () => 1);
    void session.step('poison', () => hang());
    await reached();
    store.killHolder(session.id);
    for (let crash = 1; crash <= 2; crash += 1) {
      const again = await nextProcess().openSession(session.id, { maxRecoveries: 2 });
      expect(again.state.stalledRecoveries).toBe(crash);
      await again.step('ok', () => 1);
      void again.step('poison', () => hang());
      await reached();
      store.killHolder(session.id);
    }
    const error = await nextProcess()
      .openSession(session.id, { maxRecoveries: 2 })
      .catch((caught: unknown) => caught);
    expect(RecoveryLimitError.isInstance(error)).toBe(true);
    expect(error as RecoveryLimitError).toMatchObject({ recoveries: 3, limit: 2, stepKey: 'poison' });
    const forced = await nextProcess().openSession(session.id, { maxRecoveries: 2, force: true });
    await forced.step('ok', () => 1);
    await forced.step('poison', () => 'fixed');
    await forced.checkpoint('past the poison step');
    store.killHolder(session.id);
    const afterProgress = await nextProcess().openSession(session.id, { maxRecoveries: 2 });
    expect(afterProgress.state.stalledRecoveries).toBe(1);
  });

  it('keeps a run going when an optional snapshot cannot be written', async () => {
    const store = createMemoryStore();
    const failing = {
      ...store,
      putSnapshot: async () => {
        throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
      },
    };
    const engine = createEngine({ store: failing, snapshotEvery: 5 });
    const session = await engine.createSession({ title: 't' });
    for (let index = 0; index < 12; index += 1) {
      session.addMessage({ role: 'user', content: `message ${index}` });
      await session.checkpoint();
    }
    expect(session.state.messages).toHaveLength(12);
    await session.close();
    expect((await engine.readSession(session.id)).messages).toHaveLength(12);
  });

  it('turns an interrupt inside engine.run into an interrupted session, not a failed one', async () => {
    const store = createMemoryStore();
    const engine = createEngine({ store });
    let started: () => void = () => {};
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    let session: Session | null = null;
    const outcome = engine
      .run({ title: 't' }, async (live) => {
        session = live;
        return live.step('long', ({ signal }) => {
          started();
          return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
        });
      })
      .catch((error: unknown) => error);
    await running;
    await (session as unknown as Session).interrupt('test');
    expect(InterruptedError.isInstance(await outcome)).toBe(true);
    expect((await engine.readSession((session as unknown as Session).id)).status).toBe('interrupted');
  });
});
