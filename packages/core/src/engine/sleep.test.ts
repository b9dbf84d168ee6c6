// Durable timers: `session.sleep` / `sleepUntil` journal the wake time, the session is listed as
// `sleeping` with it, and a session stopped during a sleep sleeps only what is left when it runs again.
import { describe, expect, it } from 'vitest';
import { createSessionId } from '../spec/ids.js';
import { InterruptedError, UsageError } from '../spec/index.js';
import { createMemoryStore } from '../testing/memory-store.js';
import { createEngine } from './engine.js';
import type { Session } from './types.js';

const T0 = Date.parse('2026-11-26T09:00:00.000Z');

/** A clock that reads `offsetMs` past T0 plus the real time elapsed since it was made. */
function clockAt(offsetMs: number): () => Date {
  const started = Date.now();
  return () => new Date(T0 + offsetMs + (Date.now() - started));
}

async function until(condition: () => Promise<boolean>): Promise<void> {
  for (let tries = 0; tries < 500; tries += 1) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('the condition never held');
}

describe('session.sleep', () => {
  it('is listed as sleeping with its wake time, and a run stopped during it sleeps only the rest', async () => {
    const store = createMemoryStore();
    const id = createSessionId();
    const calls: string[] = [];
    const job = (handle: { session?: Session }) => async (session: Session) => {
      handle.session = session;
      await session.step('before', () => calls.push('before'));
      await session.sleep(60_000);
      await session.step('after', () => calls.push('after'));
      return 'done';
    };

    const first = createEngine({ store, now: () => new Date(T0), holder: { pid: 5001, host: 'test' } });
    const handle: { session?: Session } = {};
    const running = first.run({ id, title: 'nightly' }, job(handle));
    await until(async () => (await first.listSessions())[0]?.status === 'sleeping');
    const [listed] = await first.listSessions();
    expect(listed).toMatchObject({ id, status: 'sleeping', wakeAt: '2026-11-26T09:01:00.000Z' });
    expect((await first.listSessions({ status: ['sleeping'] })).map((summary) => summary.id)).toEqual([id]);

    // The process stops while the session sleeps: it stays sleeping, with the same wake time.
    await handle.session?.interrupt();
    await expect(running).rejects.toBeInstanceOf(InterruptedError);
    expect((await first.readSession(id)).status).toBe('sleeping');
    expect((await first.listSessions())[0]).toMatchObject({ status: 'sleeping', wakeAt: '2026-11-26T09:01:00.000Z' });

    // 59.9 s later another process runs it: it sleeps the 100 ms left, not another minute.
    const second = createEngine({ store, now: clockAt(59_900), holder: { pid: 5002, host: 'test' } });
    await expect(second.run(id, job({}))).resolves.toBe('done');
    expect(calls).toEqual(['before', 'after']);
    const summary = (await second.listSessions())[0];
    expect(summary?.status).toBe('completed');
    expect(summary?.wakeAt).toBeUndefined();
  });

  it('returns at once when reopened after the wake time, and sleepUntil a past time does not sleep', async () => {
    const store = createMemoryStore();
    const id = createSessionId();
    const first = createEngine({ store, now: clockAt(0), holder: { pid: 5003, host: 'test' } });
    const handle: { session?: Session } = {};
    const running = first.run({ id, title: 'report' }, async (session) => {
      handle.session = session;
      await session.sleepUntil('2026-11-26T10:00:00Z', { key: 'until-ten' });
      await session.sleepUntil(new Date(T0 - 1000), { key: 'past' });
      return 'woke';
    });
    await until(async () => (await first.readSession(id)).status === 'sleeping');
    await handle.session?.interrupt();
    await expect(running).rejects.toBeInstanceOf(InterruptedError);

    const later = createEngine({ store, now: clockAt(3_600_001), holder: { pid: 5004, host: 'test' } });
    await expect(
      later.run(id, async (session) => {
        await session.sleepUntil('2026-11-26T11:30:00Z', { key: 'until-ten' });
        await session.sleepUntil(new Date(T0 - 1000), { key: 'past' });
        return 'woke';
      }),
    ).resolves.toBe('woke');
  });

  it('refuses a duration or a time that is not one, naming the fix', async () => {
    const engine = createEngine({ store: createMemoryStore() });
    await expect(engine.run({ title: 'bad' }, (session) => session.sleep(Number.NaN))).rejects.toThrow(
      /sleep\(NaN\): give a number of milliseconds/,
    );
    await expect(engine.run({ title: 'bad' }, (session) => session.sleepUntil('tomorrow'))).rejects.toBeInstanceOf(
      UsageError,
    );
  });
});
