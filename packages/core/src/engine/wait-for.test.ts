// Durable human input: `session.waitFor` journals a question and ends the run (status
// `waiting`), `engine.respond` journals the answer with who gave it, and running the job again
// returns it. A process may also keep waiting and be woken by the answer.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSessionId } from '../spec/ids.js';
import { InputRejectedError, type JournalEvent, ReplayMismatchError, WaitingForInputError } from '../spec/index.js';
import { createMemoryStore, type MemoryStore } from '../testing/memory-store.js';
import { createEngine } from './engine.js';
import type { Engine, Session } from './types.js';

/** Each call is another process on the same store. */
function processes(store: MemoryStore): () => Engine {
  let pid = 4000;
  return () => {
    pid += 1;
    return createEngine({ store, holder: { pid, host: 'test' } });
  };
}

const approval = z.object({ approved: z.boolean(), note: z.string().optional() });

function deployJob(calls: string[]) {
  return async (session: Session) => {
    const plan = await session.step('plan', () => {
      calls.push('plan');
      return 'deploy v2';
    });
    const answer = await session.waitFor('approval', { schema: approval, prompt: `Deploy "${plan}"?` });
    if (!answer.approved) return 'not deployed';
    await session.step('deploy', () => {
      calls.push('deploy');
      return 'ok';
    });
    return `deployed (${answer.note ?? 'no note'})`;
  };
}

async function events(store: MemoryStore, id: string): Promise<JournalEvent[]> {
  const all: JournalEvent[] = [];
  for await (const event of store.read(id)) all.push(event);
  return all;
}

/** The store as a process sees it that lets go of each lease it takes `delayMs` late, then calls `released`. */
function slowToRelease(store: MemoryStore, delayMs: number, released: () => void): MemoryStore {
  return new Proxy(store, {
    get(target, property) {
      if (property === 'acquireLease') {
        return async (...args: Parameters<MemoryStore['acquireLease']>) => {
          const lease = await target.acquireLease(...args);
          return {
            sessionId: lease.sessionId,
            epoch: lease.epoch,
            holder: lease.holder,
            release: async () => {
              await new Promise((resolve) => setTimeout(resolve, delayMs));
              await lease.release();
              released();
            },
          };
        };
      }
      const value = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

describe('session.waitFor and engine.respond', () => {
  it('ends the run waiting, records the answer with who gave it, and returns it when the job runs again', async () => {
    const store = createMemoryStore();
    const nextProcess = processes(store);
    const calls: string[] = [];
    const id = createSessionId();

    const first = await nextProcess()
      .run({ id, title: 'deploy' }, deployJob(calls))
      .catch((error: unknown) => error);
    expect(WaitingForInputError.isInstance(first)).toBe(true);
    expect((first as WaitingForInputError).prompt).toBe('Deploy "deploy v2"?');

    const engine = nextProcess();
    const state = await engine.readSession(id);
    expect(state.status).toBe('waiting');
    const [summary] = await engine.listSessions({ status: ['waiting'] });
    expect(summary?.id).toBe(id);
    expect(summary?.waitingFor).toEqual({ key: 'approval', prompt: 'Deploy "deploy v2"?' });
    expect(state.inputs[0]?.schema).toMatchObject({ type: 'object', required: ['approved'] });

    // Run again before anyone answered: still waiting, nothing re-run, the question asked once.
    await expect(nextProcess().run(id, deployJob(calls))).rejects.toThrow(WaitingForInputError);
    expect(calls).toEqual(['plan']);
    expect((await events(store, id)).filter((event) => event.type === 'input-requested')).toHaveLength(1);

    await expect(engine.respond(id, 'approval', { approved: 'yes' })).rejects.toThrow(InputRejectedError);
    await expect(engine.respond(id, 'budget', 10)).rejects.toThrow(/waits for "approval", not "budget"/);
    await engine.respond(id, 'approval', { approved: true, note: 'go' }, { answeredBy: 'ana@example.com' });
    const answered = await engine.readSession(id);
    expect(answered.status).toBe('interrupted');
    expect(answered.inputs[0]?.answer).toMatchObject({
      value: { approved: true, note: 'go' },
      answeredBy: 'ana@example.com',
    });
    await expect(engine.respond(id, 'approval', { approved: false })).rejects.toThrow(/answered already/);

    expect(await nextProcess().run(id, deployJob(calls))).toBe('deployed (go)');
    expect(calls).toEqual(['plan', 'deploy']);
    expect((await engine.readSession(id)).status).toBe('completed');
    // A finished job run again replays the answer too.
    expect(await nextProcess().run(id, deployJob(calls))).toBe('deployed (go)');
    expect(calls).toEqual(['plan', 'deploy']);
  });

  it('is an operation of the replay: code that no longer asks is a mismatch', async () => {
    const store = createMemoryStore();
    const nextProcess = processes(store);
    const calls: string[] = [];
    const id = createSessionId();
    await expect(
      nextProcess().run({ id, title: 'x' }, async (session) => {
        await session.step('plan', () => 'p');
        return session.waitFor('approval', { schema: z.boolean(), prompt: 'ok?' });
      }),
    ).rejects.toThrow(WaitingForInputError);
    await nextProcess().respond(id, 'approval', true);
    const changed = await nextProcess()
      .run(id, async (session) => {
        await session.step('plan', () => 'p');
        return session.step('other', () => calls.push('other'));
      })
      .catch((error: unknown) => error);
    expect(ReplayMismatchError.isInstance(changed)).toBe(true);
    expect((changed as ReplayMismatchError).expected).toBe('waitFor "approval" #1');
    expect(calls).toEqual([]);
  });

  it('keeps a process waiting when asked to, and wakes it with the answer given by another', async () => {
    const store = createMemoryStore();
    const nextProcess = processes(store);
    const id = createSessionId();
    const waiting = nextProcess().run({ id, title: 'waiting runner' }, async (session) => {
      const name = await session.waitFor('name', { schema: z.string(), prompt: 'Your name?', wait: { pollMs: 5 } });
      await session.checkpoint('greeted');
      return `hello ${name}`;
    });
    // The waiting process released the lease, so another one can answer.
    const other = nextProcess();
    for (let tries = 0; (await other.listSessions({ status: ['waiting'] })).length === 0; tries += 1) {
      if (tries > 500) throw new Error('the job never started waiting');
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await other.respond(id, 'name', 'Ana', { answeredBy: 'ana' });
    expect(await waiting).toBe('hello Ana');
    const state = await other.readSession(id);
    expect(state.status).toBe('completed');
    expect(state.checkpoints.map((checkpoint) => checkpoint.label)).toEqual(['greeted']);
  });

  it('wakes on the answer while the answerer still holds the lease, and takes it once released', async () => {
    const store = createMemoryStore();
    const id = createSessionId();
    const waiting = createEngine({ store, holder: { pid: 4101, host: 'runner' } }).run(
      { id, title: 'waiting runner' },
      async (session) => {
        const name = await session.waitFor('name', { schema: z.string(), prompt: 'Your name?', wait: { pollMs: 2 } });
        await session.checkpoint('greeted');
        return `hello ${name}`;
      },
    );
    // The answerer lets go of the lease a moment after its append: the runner sees the answer first.
    let released = false;
    const answererStore = slowToRelease(store, 60, () => {
      released = true;
    });
    const answerer = createEngine({ store: answererStore, holder: { pid: 4202, host: 'laptop' } });
    for (let tries = 0; (await answerer.listSessions({ status: ['waiting'] })).length === 0; tries += 1) {
      if (tries > 500) throw new Error('the job never started waiting');
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await answerer.respond(id, 'name', 'Ana', { answeredBy: 'ana' });
    expect(released).toBe(true);
    expect(await waiting).toBe('hello Ana');
    expect((await answerer.readSession(id)).status).toBe('completed');
  });

  it('takes an answer given while the waiting process is still letting go of its lease', async () => {
    const store = createMemoryStore();
    const id = createSessionId();
    // The runner journals `waiting`, then lets go of its lease a moment later: an answer given in
    // between must wait for the lease rather than fail session-locked.
    let releasedByRunner = false;
    const slowRunnerStore = slowToRelease(store, 80, () => {
      releasedByRunner = true;
    });
    const waiting = createEngine({ store: slowRunnerStore, holder: { pid: 4301, host: 'runner' } }).run(
      { id, title: 'waiting runner' },
      (session) => session.waitFor('name', { schema: z.string(), prompt: 'Your name?', wait: { pollMs: 2 } }),
    );
    const answerer = createEngine({ store, holder: { pid: 4302, host: 'laptop' } });
    for (let tries = 0; (await answerer.listSessions({ status: ['waiting'] })).length === 0; tries += 1) {
      if (tries > 500) throw new Error('the job never started waiting');
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    expect(releasedByRunner).toBe(false);
    await answerer.respond(id, 'name', 'Ana', { answeredBy: 'ana' });
    expect(await waiting).toBe('Ana');
  });

  it('ends a wait that timed out as waiting', async () => {
    const store = createMemoryStore();
    const engine = createEngine({ store });
    const error = await engine
      .run({ title: 'timeout' }, (session) =>
        session.waitFor('go', { schema: z.boolean(), prompt: 'Go?', wait: { timeoutMs: 20, pollMs: 5 } }),
      )
      .catch((thrown: unknown) => thrown);
    expect(WaitingForInputError.isInstance(error)).toBe(true);
    const [summary] = await engine.listSessions();
    expect(summary?.status).toBe('waiting');
  });

  it('refuses waitFor inside a step function', async () => {
    const engine = createEngine({ store: createMemoryStore() });
    await expect(
      engine.run({ title: 'inside' }, (session) =>
        session.step('s', () => session.waitFor('x', { schema: z.string(), prompt: '?' })),
      ),
    ).rejects.toThrow(/inside the function of step "s"/);
  });
});
