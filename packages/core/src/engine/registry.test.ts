// Registered jobs: `engine.register` names a job with its version, `engine.start` runs a session
// of it, and `engine.recover` (another process, after a crash) resumes every session that can go
// on, leaves those recorded under another version (unless migrated), those not due yet and those
// waiting for a person's decision, and never re-runs an uncertain unsafe step without one.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSessionId } from '../spec/ids.js';
import { UsageError, WaitingForInputError } from '../spec/index.js';
import { createMemoryStore, type MemoryStore } from '../testing/memory-store.js';
import { createEngine } from './engine.js';
import type { Engine, Session } from './types.js';

const T0 = Date.parse('2026-11-26T09:00:00.000Z');

/** Each call is another process on the same store, with its own clock. */
function processes(store: MemoryStore) {
  let pid = 7000;
  return (now: () => Date = () => new Date()): Engine => {
    pid += 1;
    return createEngine({ store, now, holder: { pid, host: 'test' } });
  };
}

async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  for (let tries = 0; tries < 500; tries += 1) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error('the condition never held');
}

/** A job whose step `hangAt` never returns in this process (it dies there). */
function etl(calls: string[], hangAt: string | null = null) {
  return async (session: Session, input: { table: string }) => {
    for (const key of ['extract', 'transform', 'load']) {
      await session.step(key, async () => {
        calls.push(`${input.table}:${key}`);
        if (key === hangAt) await new Promise(() => {});
        return key;
      });
    }
    return `loaded ${input.table}`;
  };
}

describe('engine.register / start / recover', () => {
  it('resumes a crashed session of a registered job in another process, running only what was left', async () => {
    const store = createMemoryStore();
    const next = processes(store);
    const calls: string[] = [];
    const first = next();
    first.register('etl', etl(calls, 'transform'), { version: '1', title: (input) => `etl ${input.table}` });
    const id = createSessionId();
    void first.start('etl', { table: 'orders' }, { id });
    await until(() => calls.includes('orders:transform'));
    store.killHolder(id); // the process dies in the middle of `transform`

    const second = next();
    second.register('etl', etl(calls), { version: '1' });
    const report = await second.recover();
    expect(report).toEqual({
      recovered: [{ id, job: 'etl', version: '1', status: 'completed', error: null }],
      left: [],
      nextWakeAt: null,
    });
    // `extract` ran once; `transform` was in flight at the crash, so it ran again (idempotent).
    expect(calls).toEqual(['orders:extract', 'orders:transform', 'orders:transform', 'orders:load']);
    const [summary] = await second.listSessions();
    expect(summary).toMatchObject({ id, title: 'etl orders', status: 'completed' });
    // Nothing is left to recover.
    expect(await second.recover()).toEqual({ recovered: [], left: [], nextWakeAt: null });
  });

  it('leaves a session recorded under another version, saying which, until the code says it can migrate it', async () => {
    const store = createMemoryStore();
    const next = processes(store);
    const calls: string[] = [];
    const first = next();
    first.register('etl', etl(calls, 'load'), { version: '1' });
    const id = createSessionId();
    void first.start('etl', { table: 'users' }, { id });
    await until(() => calls.includes('users:load'));
    store.killHolder(id);

    const upgraded = next();
    upgraded.register('etl', etl(calls), { version: '2' });
    const report = await upgraded.recover();
    expect(report.recovered).toEqual([]);
    expect(report.left).toEqual([{ id, job: 'etl', version: '1', reason: 'other-version', runningVersion: '2' }]);
    expect((await upgraded.readSession(id)).status).toBe('interrupted');
    // Listings say which version it needs.
    expect((await upgraded.listSessions())[0]).toMatchObject({ id, job: { name: 'etl', version: '1' } });

    const migrated = await upgraded.recover({ versions: { etl: ['1'] } });
    expect(migrated.recovered).toEqual([{ id, job: 'etl', version: '1', status: 'completed', error: null }]);
    expect(calls.filter((call) => call === 'users:extract')).toHaveLength(1);
  });

  it('never re-runs an uncertain unsafe step without the job deciding, and says it waits for a decision', async () => {
    const store = createMemoryStore();
    const next = processes(store);
    let charges = 0;
    const billing = (onUncertain?: () => 'skip') => async (session: Session, input: { amount: number }) => {
      await session.step(
        'charge',
        async () => {
          charges += 1;
          if (charges === 1) await new Promise(() => {});
          return { charged: input.amount };
        },
        onUncertain ? { safety: 'unsafe', onUncertain, skipValue: { charged: 0 } } : { safety: 'unsafe' },
      );
      return 'billed';
    };
    const first = next();
    first.register('billing', billing(), { version: '1' });
    const id = createSessionId();
    void first.start('billing', { amount: 30 }, { id });
    await until(() => charges === 1);
    store.killHolder(id);

    const second = next();
    second.register('billing', billing(), { version: '1' });
    const report = await second.recover();
    expect(report.recovered).toEqual([
      {
        id,
        job: 'billing',
        version: '1',
        status: 'interrupted',
        error: expect.objectContaining({ code: 'step-uncertain' }),
      },
    ]);
    expect(charges).toBe(1);
    expect((await second.recover()).left).toEqual([{ id, job: 'billing', version: '1', reason: 'needs-decision' }]);

    // Code that decides (skip: the charge went through) resumes it when named.
    const third = next();
    third.register(
      'billing',
      billing(() => 'skip'),
      { version: '1' },
    );
    const decided = await third.recover({ ids: [id] });
    expect(decided.recovered).toEqual([{ id, job: 'billing', version: '1', status: 'completed', error: null }]);
    expect(charges).toBe(1);
  });

  it('wakes a sleeping session once its time has come, and says when the next one is due', async () => {
    const store = createMemoryStore();
    const next = processes(store);
    const nap = async (session: Session) => {
      await session.sleep(60_000);
      return 'rested';
    };
    const first = next(() => new Date(T0));
    first.register('nap', nap, { version: '1' });
    const id = createSessionId();
    const started = first.start('nap', null, { id }).catch((error: unknown) => error);
    await until(async () => (await first.readSession(id)).status === 'sleeping');
    store.killHolder(id); // the process ends while the session sleeps
    void started;

    const early = next(() => new Date(T0 + 30_000));
    early.register('nap', nap, { version: '1' });
    expect(await early.recover()).toEqual({
      recovered: [],
      left: [{ id, job: 'nap', version: '1', reason: 'not-due', wakeAt: '2026-11-26T09:01:00.000Z' }],
      nextWakeAt: '2026-11-26T09:01:00.000Z',
    });

    const late = next(() => new Date(T0 + 60_001));
    late.register('nap', nap, { version: '1' });
    expect((await late.recover()).recovered).toEqual([
      { id, job: 'nap', version: '1', status: 'completed', error: null },
    ]);
  });

  it('resumes a session once its question is answered', async () => {
    const store = createMemoryStore();
    const next = processes(store);
    const deploy = async (session: Session, input: { service: string }) => {
      const answer = await session.waitFor('approval', {
        schema: z.object({ approved: z.boolean() }),
        prompt: `Deploy ${input.service}?`,
      });
      return answer.approved ? 'deployed' : 'skipped';
    };
    const first = next();
    first.register('deploy', deploy, { version: '1' });
    const id = createSessionId();
    await expect(first.start('deploy', { service: 'api' }, { id })).rejects.toBeInstanceOf(WaitingForInputError);
    // Waiting and not answered: nothing to recover.
    expect((await first.recover()).recovered).toEqual([]);
    await first.respond(id, 'approval', { approved: true });

    const second = next();
    second.register('deploy', deploy, { version: '1' });
    expect((await second.recover()).recovered).toEqual([
      { id, job: 'deploy', version: '1', status: 'completed', error: null },
    ]);
  });

  it('refuses to start an unknown job or to register one without a version, naming the fix', async () => {
    const engine = createEngine({ store: createMemoryStore() });
    engine.register('etl', etl([]), { version: '1' });
    await expect(engine.start('elt', { table: 'x' })).rejects.toThrow(/No job named "elt" is registered/);
    await expect(engine.start('elt', { table: 'x' })).rejects.toMatchObject({ hint: 'Registered jobs: etl.' });
    expect(() => engine.register('nightly', etl([]), { version: '' })).toThrow(UsageError);
    expect(() => engine.register('etl', etl([]), { version: '2' })).toThrow(/registered already/);
  });
});
