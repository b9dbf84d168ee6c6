// An ordered open from a snapshot that kept the replay log's operations replays exactly as an
// open that reads the whole journal: the kept operations are the journal's, split anywhere.
import { describe, expect, it } from 'vitest';
import { type JournalEvent, ReplayMismatchError, StepFailedError } from '../spec/index.js';
import { createMemoryStore, type MemoryStore } from '../testing/memory-store.js';
import { createEngine } from './engine.js';
import { ReplayLog } from './replay-log.js';
import type { Session } from './types.js';

async function eventsOf(store: MemoryStore, id: string): Promise<JournalEvent[]> {
  const all: JournalEvent[] = [];
  for await (const event of store.read(id)) all.push(event);
  return all;
}

/** A job with every kind of operation: steps (one failing, two together, one writing inside), messages, checkpoints, a record. */
async function job(session: Session, calls: string[]): Promise<string> {
  const answer = await session.step('model', async () => {
    calls.push('model');
    session.record({ type: 'usage-recorded', provider: 'p', model: 'm', inputTokens: 3, outputTokens: 2, costUsd: 0 });
    return 'answer';
  });
  session.addMessage({ role: 'user', content: `the task ${'x'.repeat(3000)}` });
  await session.checkpoint();
  try {
    await session.step('primary', () => {
      calls.push('primary');
      throw new Error('primary is down');
    });
  } catch (error) {
    expect(StepFailedError.isInstance(error)).toBe(true);
  }
  const [left, right] = await Promise.all([
    session.step('left', () => {
      calls.push('left');
      return 'L';
    }),
    session.step('right', () => {
      calls.push('right');
      return 'R';
    }),
  ]);
  session.record({ type: 'data-set', key: 'progress', value: { done: 1 } });
  for (let round = 0; round < 4; round += 1) {
    session.addMessage({ role: 'assistant', content: `${answer} ${left}${right} round ${round}`, speaker: 'judge' });
    await session.checkpoint(round === 3 ? 'last' : undefined);
  }
  return `${answer} ${left}${right}`;
}

describe('replay log kept by snapshots', () => {
  it('keeps, at every snapshot, the operations the journal up to it gives', async () => {
    const store = createMemoryStore();
    const engine = createEngine({ store, snapshotEvery: 1 });
    const session = await engine.createSession({ title: 'kept log' });
    const kept: { seq: number; operations: JournalEvent[] }[] = [];
    const put = store.putSnapshot.bind(store);
    store.putSnapshot = async (id, snapshot) => {
      kept.push({ seq: snapshot.seq, operations: structuredClone(snapshot.operations ?? []) });
      await put(id, snapshot);
    };
    await job(session, []);
    await session.complete();
    const events = await eventsOf(store, session.id);
    expect(kept.length).toBeGreaterThan(5);
    for (const snapshot of kept) {
      const upTo = events.filter((event) => event.seq <= snapshot.seq);
      expect(snapshot.operations).toEqual(ReplayLog.fromEvents(upTo).operations);
    }
  });

  it('gives the same log from kept operations and the events after them, split at any event', async () => {
    const store = createMemoryStore();
    const session = await createEngine({ store }).createSession({ title: 'split' });
    await job(session, []);
    const events = await eventsOf(store, session.id);
    const whole = ReplayLog.fromEvents(events).operations;
    for (let split = 2; split < events.length; split += 1) {
      const before = ReplayLog.fromEvents(events.slice(0, split)).operations;
      expect(ReplayLog.fromOperations(before, events.slice(split)).operations).toEqual(whole);
    }
  });

  it('replays a re-run from a snapshot without running or appending anything, and refuses other code the same way', async () => {
    const store = createMemoryStore();
    let pid = 3000;
    const nextProcess = () => {
      pid += 1;
      return createEngine({ store, snapshotEvery: 4, holder: { pid, host: 'test' } });
    };
    const session = await nextProcess().createSession({ title: 'from a snapshot' });
    const calls: string[] = [];
    await job(session, calls);
    store.killHolder(session.id);
    const snapshot = await store.getSnapshot(session.id);
    expect(snapshot?.operations?.length).toBeGreaterThan(5);
    const written = (await eventsOf(store, session.id)).length;

    const other = await nextProcess()
      .run(session.id, async (again) => {
        await again.step('model', () => 'answer');
        again.addMessage({ role: 'user', content: 'another task' });
      })
      .catch((error: unknown) => error);
    expect(ReplayMismatchError.isInstance(other)).toBe(true);
    expect((other as ReplayMismatchError).position).toBe(2);
    expect((other as Error).message).toContain('the task');

    calls.length = 0;
    expect(await nextProcess().run(session.id, (again) => job(again, calls))).toBe('answer LR');
    expect(calls).toEqual([]);
    const after = await eventsOf(store, session.id);
    // Only lifecycle records were added (resumes, completion): no operation ran or was written again.
    expect(after.slice(written).filter((event) => !['session-resumed', 'status-changed'].includes(event.type))).toEqual(
      [],
    );
  });

  it('replays the same from a snapshot that kept no operations (a keyed writer), reading the journal up to it', async () => {
    const store = createMemoryStore();
    let pid = 4000;
    const nextProcess = () => {
      pid += 1;
      return createEngine({ store, snapshotEvery: 4, holder: { pid, host: 'test' } });
    };
    const session = await nextProcess().createSession({ title: 'keyed writer', replay: 'keyed' });
    await job(session, []);
    store.killHolder(session.id);
    const snapshot = await store.getSnapshot(session.id);
    expect(snapshot?.seq).toBeGreaterThan(4);
    expect(snapshot?.operations).toBeUndefined();
    const written = (await eventsOf(store, session.id)).length;

    const calls: string[] = [];
    expect(await nextProcess().run(session.id, (again) => job(again, calls))).toBe('answer LR');
    expect(calls).toEqual([]);
    const after = await eventsOf(store, session.id);
    expect(after.slice(written).filter((event) => !['session-resumed', 'status-changed'].includes(event.type))).toEqual(
      [],
    );
  });
});
