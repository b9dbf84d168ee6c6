import { describe, expect, it } from 'vitest';
import {
  createSessionId,
  InterruptedError,
  RecoveryLimitError,
  ReplayMismatchError,
  SessionExistsError,
  SessionLockedError,
  SessionNotFoundError,
  StepAbortedError,
  UncertainStepError,
  UsageError,
  uniqueIdPrefixes,
} from '../spec/index.js';
import { createHang } from '../testing/hang.js';
import { createMemoryStore, type MemoryStore } from '../testing/memory-store.js';
import { createEngine } from './engine.js';
import type { Engine, Session } from './types.js';

const noSleep = async () => {};

/** A second process on the same store: a new engine with another pid. */
function processes(store: MemoryStore): { first: Engine; second: () => Engine } {
  let pid = 1000;
  return {
    first: createEngine({ store, holder: { pid, host: 'test' } }),
    second: () => {
      pid += 1;
      return createEngine({ store, holder: { pid, host: 'test' } });
    },
  };
}

describe('engine and sessions', () => {
  it('restores messages and returns recorded step output without calling the function after a crash', async () => {
    const store = createMemoryStore();
    const { first, second } = processes(store);
    let calls = 0;
    const job = async (session: Session) => {
      const data = await session.step('fetch', async () => {
        calls += 1;
        return { rows: [1, 2, 3] };
      });
      session.addMessage({ role: 'user', content: 'Summarize this' });
      return { data, seq: await session.checkpoint('fetched') };
    };
    const session = await first.createSession({ title: 'nightly report', mode: 'custom' });
    const { data, seq } = await job(session);
    expect(data).toEqual({ rows: [1, 2, 3] });
    store.killHolder(session.id); // the process dies here

    // The same code run again replays: the recorded output, no new message, the same checkpoint.
    const again = await second().openSession(session.id);
    expect(await job(again)).toEqual({ data: { rows: [1, 2, 3] }, seq });
    expect(calls).toBe(1);
    expect(again.state.messages.map((message) => message.content)).toEqual(['Summarize this']);
    expect(again.state.checkpoints.map((checkpoint) => [checkpoint.seq, checkpoint.label])).toEqual([[seq, 'fetched']]);
    expect(again.state.recoveries).toBe(1);
    await again.complete();
    await again.close();
    expect((await first.readSession(session.id)).status).toBe('completed');
  });

  it('makes a message and a checkpoint one durable append', async () => {
    const store = createMemoryStore();
    const appends: number[] = [];
    const counting = {
      ...store,
      append: (id: string, batch: Parameters<MemoryStore['append']>[1]) => {
        appends.push(batch.events.length);
        return store.append(id, batch);
      },
    };
    const engine = createEngine({ store: counting });
    const session = await engine.createSession({ title: 't', mode: 'custom' });
    appends.length = 0;
    session.addMessage({ role: 'user', content: 'hello' });
    const seq = await session.checkpoint();
    expect(appends).toEqual([2]);
    expect(await session.checkpoint()).toBe(seq); // nothing pending, no label: same seq, no append
    expect(appends).toEqual([2]);
  });

  it('gives a second writer a clear in-use error and takes over a dead holder', async () => {
    const store = createMemoryStore();
    const { first, second } = processes(store);
    const session = await first.createSession({ title: 't', mode: 'custom' });
    const error = await second()
      .openSession(session.id)
      .catch((caught: unknown) => caught);
    expect(SessionLockedError.isInstance(error)).toBe(true);
    expect((error as SessionLockedError).message).toMatch(/in use by pid 1000 on host test since/);
    store.killHolder(session.id);
    const taken = await second().openSession(session.id);
    expect(taken.epoch).toBeGreaterThan(session.epoch);
    // The old writer is fenced: its next append fails.
    session.addMessage({ role: 'user', content: 'late' });
    await expect(session.checkpoint()).rejects.toThrow(/taken over/);
    await taken.close();
  });

  it('re-runs an uncertain idempotent step but asks before an uncertain unsafe one', async () => {
    const store = createMemoryStore();
    const { first, second } = processes(store);
    const session = await first.createSession({ title: 't', mode: 'custom' });
    const { hang, reached } = createHang();
    void session.step('read', hang);
    await reached();
    store.killHolder(session.id);

    const reopened = await second().openSession(session.id);
    expect(reopened.state.steps[0]?.status).toBe('started');
    let reads = 0;
    expect(await reopened.step('read', async () => ++reads)).toBe(1);

    void reopened.step('write', hang, { safety: 'unsafe' });
    await reached();
    store.killHolder(session.id);

    const third = second();
    const asked = await third.openSession(session.id);
    await asked.step('read', async () => 99);
    const uncertain = await asked
      .step('write', async () => 'again', { safety: 'unsafe' })
      .catch((caught: unknown) => caught);
    expect(UncertainStepError.isInstance(uncertain)).toBe(true);
    expect((uncertain as UncertainStepError).step).toMatchObject({ key: 'write', attempt: 1, safety: 'unsafe' });
    expect((uncertain as UncertainStepError).step.idempotencyKey).toBe(`${session.id}:write:1`);
    await asked.close();

    const skipping = await second().openSession(session.id);
    await skipping.step('read', async () => 0);
    const skipped = await skipping.step('write', async () => 'ran', {
      safety: 'unsafe',
      onUncertain: () => 'skip',
      skipValue: 'skipped',
    });
    expect(skipped).toBe('skipped');
    await skipping.close();

    const aborting = await second().openSession(session.id);
    await aborting.step('read', async () => 0);
    // Once skipped, the step is settled: replay returns the skip value without asking.
    expect(await aborting.step('write', async () => 'ran', { safety: 'unsafe' })).toBe('skipped');
    await aborting.close();
  });

  it('aborts at an uncertain unsafe step when the user chooses abort', async () => {
    const store = createMemoryStore();
    const { first, second } = processes(store);
    const session = await first.createSession({ title: 't', mode: 'custom' });
    const { hang, reached } = createHang();
    void session.step('deploy', hang, { safety: 'unsafe' });
    await reached();
    store.killHolder(session.id);
    const reopened = await second().openSession(session.id);
    const error = await reopened
      .step('deploy', async () => 'x', { safety: 'unsafe', onUncertain: () => 'abort' })
      .catch((caught: unknown) => caught);
    expect(StepAbortedError.isInstance(error)).toBe(true);
  });

  it('journals every attempt and continues the retry count after a reopen', async () => {
    const store = createMemoryStore();
    const { first, second } = processes(store);
    const session = await first.createSession({ title: 't', mode: 'custom' });
    const seen: number[] = [];
    let crash: () => void = () => {};
    const crashed = new Promise<void>((resolve) => {
      crash = resolve;
    });
    void session
      .step(
        'tests',
        async ({ attempt }) => {
          seen.push(attempt);
          if (attempt < 3) throw new Error(`failed attempt ${attempt}`);
          crash();
          return new Promise<never>(() => {}); // attempt 3 never ends: the process dies
        },
        { retry: { attempts: 5 }, sleep: noSleep, safety: 'idempotent' },
      )
      .catch(() => {});
    await crashed;
    store.killHolder(session.id);

    const reopened = await second().openSession(session.id);
    const step = reopened.state.steps[0];
    expect(step?.attempts.map((attempt) => [attempt.attempt, attempt.error?.message ?? null])).toEqual([
      [1, 'failed attempt 1'],
      [2, 'failed attempt 2'],
      [3, null],
    ]);
    const result = await reopened.step(
      'tests',
      async ({ attempt, previousFailures }) => {
        seen.push(attempt);
        if (attempt < 4) throw new Error(`failed attempt ${attempt}`);
        return { passedAt: attempt, failures: previousFailures.length };
      },
      { retry: { attempts: 5 }, sleep: noSleep },
    );
    expect(result).toEqual({ passedAt: 4, failures: 3 });
    expect(seen).toEqual([1, 2, 3, 3, 4]);
  });

  it('runs beforeRetry between attempts, before the next start, and again when a reopened session goes on', async () => {
    const store = createMemoryStore();
    const { first, second } = processes(store);
    const session = await first.createSession({ title: 't', mode: 'custom' });
    const hooks: string[] = [];
    let die: () => void = () => {};
    const died = new Promise<void>((resolve) => {
      die = resolve;
    });
    void session
      .step(
        'tests',
        async ({ attempt }) => {
          throw new Error(`failed attempt ${attempt}`);
        },
        {
          retry: { attempts: 3 },
          sleep: noSleep,
          beforeRetry: async ({ attempt, attemptInBudget, maxAttempts, previousFailures }) => {
            hooks.push(`${attempt} ${attemptInBudget}/${maxAttempts} after ${previousFailures.at(-1)?.message}`);
            await session.checkpoint(`before attempt ${attempt}`);
            if (attempt === 2) {
              die();
              await new Promise<never>(() => {}); // the process dies while fixing
            }
          },
        },
      )
      .catch(() => {});
    await died;
    store.killHolder(session.id);
    expect(hooks).toEqual(['2 2/3 after failed attempt 1']);

    const reopened = await second().openSession(session.id, { replay: 'keyed' });
    // The process died between attempts: attempt 2 never started, nothing is uncertain.
    expect(reopened.state.steps[0]?.status).toBe('failed');
    expect(reopened.state.steps[0]?.attempts.map((attempt) => attempt.attempt)).toEqual([1]);
    const passed = await reopened.step('tests', async ({ attempt }) => ({ passedAt: attempt }), {
      retry: { attempts: 3 },
      sleep: noSleep,
      beforeRetry: ({ attempt, attemptInBudget }) => {
        hooks.push(`${attempt} ${attemptInBudget}/3 on reopen`);
      },
    });
    expect(passed).toEqual({ passedAt: 2 });
    expect(hooks).toEqual(['2 2/3 after failed attempt 1', '2 2/3 on reopen']);
  });

  it('gives up after the last attempt with the failure history recorded', async () => {
    const engine = createEngine({ store: createMemoryStore() });
    const session = await engine.createSession({ title: 't', mode: 'custom' });
    await expect(
      session.step(
        'flaky',
        async ({ attempt }) => {
          throw new Error(`boom ${attempt}`);
        },
        { retry: { attempts: 3 }, sleep: noSleep },
      ),
    ).rejects.toThrow('boom 3');
    expect(session.state.steps[0]?.attempts.map((attempt) => attempt.error?.message)).toEqual([
      'boom 1',
      'boom 2',
      'boom 3',
    ]);
    expect(session.state.steps[0]?.status).toBe('failed');
  });

  it('refuses to reuse a recorded output for a different step', async () => {
    const store = createMemoryStore();
    const { first, second } = processes(store);
    const session = await first.createSession({ title: 't', mode: 'custom' });
    await session.step('analyze', async () => 'analysis');
    await session.step('write', async () => 'report');
    store.killHolder(session.id);
    const reopened = await second().openSession(session.id);
    const error = await reopened.step('summarize', async () => 'x').catch((caught: unknown) => caught);
    expect(ReplayMismatchError.isInstance(error)).toBe(true);
    expect((error as ReplayMismatchError).expectedKey).toBe('analyze');
  });

  it('keyed replay runs a step marked inserted before recorded ones, which keep their outputs', async () => {
    const store = createMemoryStore();
    const { first, second } = processes(store);
    const session = await first.createSession({ title: 't', mode: 'custom', replay: 'keyed' });
    await session.step('analyze', async () => 'analysis');
    store.killHolder(session.id);
    const plain = await second().openSession(session.id, { replay: 'keyed' });
    const refused = await plain.step('lint', async () => 'clean').catch((caught: unknown) => caught);
    expect(ReplayMismatchError.isInstance(refused)).toBe(true);
    store.killHolder(session.id);

    const reopened = await second().openSession(session.id, { replay: 'keyed' });
    expect(await reopened.step('lint', async () => 'clean', { inserted: true })).toBe('clean');
    expect(await reopened.step('analyze', async () => 'again')).toBe('analysis');
    expect(await reopened.step('write', async () => 'report')).toBe('report');
    expect(reopened.state.steps.map((step) => step.key)).toEqual(['analyze', 'lint', 'write']);
  });

  it('aborts the in-flight step on interrupt and journals the interruption', async () => {
    const engine = createEngine({ store: createMemoryStore() });
    const session = await engine.createSession({ title: 't', mode: 'custom' });
    let called = () => {};
    const inFlight = new Promise<void>((resolve) => (called = resolve));
    const running = session.step(
      'llm',
      ({ signal }) =>
        new Promise((_, reject) => {
          signal.addEventListener('abort', () => reject(new Error('aborted by signal')));
          called();
        }),
    );
    await inFlight;
    await session.interrupt();
    const error = await running.catch((caught: unknown) => caught);
    expect(InterruptedError.isInstance(error)).toBe(true);
    await session.close();
    const listed = await engine.listSessions({ status: ['interrupted'] });
    expect(listed.map((summary) => summary.id)).toEqual([session.id]);
    expect((await engine.readSession(session.id)).steps[0]?.status).toBe('started');
  });

  it('shows a running session whose writer died as interrupted', async () => {
    const store = createMemoryStore();
    const engine = createEngine({ store });
    const session = await engine.createSession({ title: 'crashy', mode: 'custom' });
    expect((await engine.listSessions())[0]?.status).toBe('running');
    store.killHolder(session.id);
    expect((await engine.listSessions())[0]?.status).toBe('interrupted');
    expect((await engine.listSessions({ status: ['running'] })).length).toBe(0);
  });

  it('stops a session that keeps crashing after the recovery limit', async () => {
    const store = createMemoryStore();
    const { first, second } = processes(store);
    const session = await first.createSession({ title: 't', mode: 'custom' });
    store.killHolder(session.id);
    for (let index = 0; index < 2; index += 1) {
      await second().openSession(session.id, { maxRecoveries: 2 });
      store.killHolder(session.id);
    }
    const error = await second()
      .openSession(session.id, { maxRecoveries: 2 })
      .catch((caught: unknown) => caught);
    expect(RecoveryLimitError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/3 times in a row without progress/);
  });

  it('branches from a checkpoint without changing the parent', async () => {
    const engine = createEngine({ store: createMemoryStore() });
    const parent = await engine.createSession({ title: 'main', mode: 'discussion' });
    parent.addMessage({ role: 'user', content: 'task' });
    const at = await parent.checkpoint('round 1');
    parent.addMessage({ role: 'assistant', content: 'round 2 answer', speaker: 'critic', round: 2 });
    await parent.checkpoint('round 2');
    const child = await parent.fork({ at, title: 'what if' });
    expect(child.state.header).toMatchObject({ parentId: parent.id, branchPoint: at, mode: 'discussion' });
    expect(child.state.messages.map((message) => message.content)).toEqual(['task']);
    // The child replays the parent's operations up to the branch point, then goes its own way.
    child.addMessage({ role: 'user', content: 'task' });
    expect(await child.checkpoint('round 1')).toBe(at);
    child.addMessage({ role: 'user', content: 'other direction' });
    await child.checkpoint();
    const parentState = await engine.readSession(parent.id);
    expect(parentState.messages.map((message) => message.content)).toEqual(['task', 'round 2 answer']);
    await engine.deleteSession(child.id, { force: true });
    await expect(engine.readSession(child.id)).rejects.toSatisfy((error: unknown) =>
      SessionNotFoundError.isInstance(error),
    );
  });

  it('resolves ids by unique prefix and explains a miss with recent sessions', async () => {
    const engine = createEngine({ store: createMemoryStore() });
    const session = await engine.createSession({ title: 'prefix me', mode: 'custom' });
    expect(await engine.resolveSessionId(session.id.slice(0, 14))).toBe(session.id);
    const error = await engine.resolveSessionId('zzzzzzzz').catch((caught: unknown) => caught);
    expect(SessionNotFoundError.isInstance(error)).toBe(true);
    expect((error as SessionNotFoundError).recent?.map((summary) => summary.title)).toContain('prefix me');
    await expect(engine.resolveSessionId('abc')).rejects.toThrow(/at least 6 characters/);
  });

  it('resolves the printed short ids of sessions created in the same millisecond, and refuses their shared prefix', async () => {
    const sameMoment = new Date('2026-06-01T10:00:00.000Z');
    const engine = createEngine({ store: createMemoryStore(), now: () => sameMoment });
    const sessions = [];
    for (const title of ['one', 'two', 'three']) sessions.push(await engine.createSession({ title, mode: 'custom' }));
    for (const session of sessions) await session.checkpoint('started');
    const ids = sessions.map((session) => session.id);
    expect(new Set(ids.map((id) => id.slice(0, 12))).size).toBe(1);
    const printed = uniqueIdPrefixes(ids);
    for (const id of ids) {
      const short = printed.get(id) ?? '';
      expect(short.length).toBeGreaterThan(12);
      expect(await engine.resolveSessionId(short)).toBe(id);
    }
    const shared = await engine.resolveSessionId(ids[0]!.slice(0, 10)).catch((caught: unknown) => caught);
    expect(UsageError.isInstance(shared)).toBe(true);
    expect((shared as Error).message).toMatch(/matches 3 sessions/);
  });

  it('marks a completion checkpoint in the same durable append as the step, once, and not on replay', async () => {
    const store = createMemoryStore();
    const { first, second } = processes(store);
    const session = await first.createSession({ title: 'one append' });
    const batches: string[][] = [];
    const append = store.append.bind(store);
    store.append = (id, batch) => {
      batches.push(batch.events.map((event) => event.type));
      return append(id, batch);
    };
    const label = (attempt: number) => `build passed at attempt ${attempt}`;
    expect(await session.step('build', async () => 'built', { checkpointOnCompletion: label })).toBe('built');
    expect(batches).toEqual([['step-started'], ['step-completed', 'checkpoint-marked']]);
    expect(session.state.checkpoints.map((marked) => marked.label)).toEqual(['build passed at attempt 1']);
    await session.close();
    batches.length = 0;
    const reopened = await second().openSession(session.id, { replay: 'keyed' });
    expect(await reopened.step('build', async () => 'again', { checkpointOnCompletion: label })).toBe('built');
    expect(reopened.state.checkpoints.map((marked) => marked.label)).toEqual(['build passed at attempt 1']);
    expect(batches.flat()).not.toContain('checkpoint-marked');
    await reopened.close();
  });

  it('reads an unchanged journal once for repeated reads and the open, and again after any append', async () => {
    const store = createMemoryStore();
    const { first, second } = processes(store);
    const session = await first.createSession({ title: 'read once' });
    await session.step('a', async () => 'a');
    await session.checkpoint('after a');
    await session.close();
    let wholeReads = 0;
    const read = store.read.bind(store);
    store.read = (id, range = {}) => {
      if ((range.fromSeq ?? 1) <= 1 && range.toSeq === undefined) wholeReads += 1;
      return read(id, range);
    };
    const reader = second();
    const once = await reader.readSession(session.id);
    const twice = await reader.readSession(session.id);
    expect(twice).toEqual(once);
    // Each caller gets its own copy: changing one read does not change the next.
    once.steps.length = 0;
    expect((await reader.readSession(session.id)).steps).toHaveLength(1);
    // As a resume opens it (keyed replay needs no log of the whole journal).
    const reopened = await reader.openSession(session.id, { replay: 'keyed' });
    expect(wholeReads).toBe(1);
    expect(await reopened.step('a', async () => 'not again')).toBe('a');
    await reopened.step('b', async () => 'b');
    await reopened.close();
    // Written since (here by the same engine; another process alike): the journal is read again.
    const after = await reader.readSession(session.id);
    expect(after.steps.map((step) => step.key)).toEqual(['a', 'b']);
    expect(wholeReads).toBe(2);
    const elsewhere = await first.openSession(session.id, { replay: 'keyed' });
    await elsewhere.checkpoint('marked elsewhere');
    await elsewhere.close();
    expect((await reader.readSession(session.id)).checkpoints.map((marked) => marked.label)).toContain(
      'marked elsewhere',
    );
  });

  it('opens from a snapshot and reaches the same state as a full replay', async () => {
    const store = createMemoryStore();
    const engine = createEngine({ store, snapshotEvery: 50 });
    const session = await engine.createSession({ title: 'long', mode: 'custom' });
    for (let index = 0; index < 120; index += 1) {
      session.addMessage({ role: index % 2 ? 'assistant' : 'user', content: `message ${index}` });
      await session.checkpoint();
    }
    await session.close();
    expect((await store.getSnapshot(session.id))?.seq).toBeGreaterThan(100);
    const fromSnapshot = await engine.readSession(session.id);
    const { fold } = await import('../journal/fold.js');
    const events = [];
    for await (const event of store.read(session.id)) events.push(event);
    // Closed without completing and no live writer: shown as interrupted, otherwise identical.
    expect(fromSnapshot).toEqual({ ...fold(events), status: 'interrupted' });
  });

  it('creates again a session whose creator died before its first write, once no process holds it', async () => {
    const store = createMemoryStore();
    const { first, second } = processes(store);
    const id = createSessionId();
    const input = { id, title: 'each: item 7', mode: 'workflow' as const, options: { item: '7' } };
    // The first process dies at its first write: the store has the header and nothing else.
    const append = store.append;
    store.append = async () => {
      throw new Error('killed');
    };
    await expect(first.createSession(input)).rejects.toThrow('killed');
    store.append = append;
    store.killHolder(id);
    expect([await store.getHeader(id), await store.getSummary(id)]).toEqual([expect.objectContaining({ id }), null]);

    // While a process may still be writing it, the creation waits its turn.
    const other = second();
    const live = await store.acquireLease(id, { holder: { pid: 4242, host: 'test' } });
    await expect(other.createSession(input)).rejects.toSatisfy((error) => SessionLockedError.isInstance(error));
    expect(await store.getHeader(id)).not.toBeNull();
    await live.release();

    // A store that fails to remove it leaves it to the next attempt, its lease free.
    const remove = store.delete;
    store.delete = async () => {
      throw new Error('disk gone');
    };
    await expect(other.createSession(input)).rejects.toThrow('disk gone');
    store.delete = remove;
    expect(await store.inspectLease(id)).toBeNull();

    // The same creation asked for again (its queue item handed out again) runs the session.
    const session = await other.createSession(input);
    await session.step('work', async () => 'done');
    await session.complete();
    await session.close();
    const state = await other.readSession(id);
    expect([state.status, state.steps.map((step) => step.output)]).toEqual(['completed', ['done']]);
    expect(state.header).toEqual(await store.getHeader(id));
    // Once it has been written it is an existing session, whatever asks.
    await expect(second().createSession(input)).rejects.toSatisfy((error) => SessionExistsError.isInstance(error));
  });

  describe('two processes creating the same session at once', () => {
    /** Holds the creator between writing the header and taking the lease, where no lease guards it yet. */
    function pauseCreatorAtItsLease(store: MemoryStore, pid: number) {
      const acquire = store.acquireLease.bind(store);
      let go: () => void = () => undefined;
      let reach: () => void = () => undefined;
      const reached = new Promise<void>((resolve) => {
        reach = resolve;
      });
      const gate = new Promise<void>((resolve) => {
        go = resolve;
      });
      store.acquireLease = async (id, options) => {
        if (options.holder.pid === pid) {
          reach();
          await gate;
        }
        return acquire(id, options);
      };
      return { reached, go };
    }

    it.each([
      { when: 'while the other still writes it', closedFirst: false, refusal: SessionLockedError },
      { when: 'after the other finished writing it', closedFirst: true, refusal: SessionExistsError },
    ])(
      'lets the creation that found the header before its lease win, and refuses the other $when',
      async ({ closedFirst, refusal }) => {
        const store = createMemoryStore();
        const { first, second } = processes(store);
        const id = createSessionId();
        const input = { id, title: 'thread', mode: 'langgraph' as const, replay: 'keyed' as const };
        const creator = pauseCreatorAtItsLease(store, 1000);
        const creating = first.createSession(input);
        await creator.reached;

        const other = await second().createSession(input);
        await other.step('work', async () => 'by the second');
        if (closedFirst) await other.close();
        creator.go();
        await expect(creating).rejects.toSatisfy((error) => refusal.isInstance(error));
        if (!closedFirst) await other.close();
        const state = await first.readSession(id);
        expect(state.steps.map((step) => step.output)).toEqual(['by the second']);
      },
    );
  });
});
