// Steps that run concurrently in named branches (a parallel group's members, a map's items):
// journaled with their branch, replayed by key in any interleaving, in order within each branch.
import { describe, expect, it } from 'vitest';
import { type JournalEvent, ReplayMismatchError, UsageError } from '../spec/index.js';
import { createMemoryStore, type MemoryStore } from '../testing/memory-store.js';
import { createEngine } from './engine.js';
import type { Engine, Session } from './types.js';

function processes(store: MemoryStore, snapshotEvery?: number): { first: Engine; second: () => Engine } {
  let pid = 2000;
  const make = () => {
    pid += 1;
    return createEngine({ store, holder: { pid, host: 'test' }, ...(snapshotEvery ? { snapshotEvery } : {}) });
  };
  return { first: make(), second: make };
}

/** A gate the test opens by hand: decides which branch goes first without any timing. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open = () => {};
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

/** Two branches of two steps each; `order` says which branch's steps run (and journal) first. */
async function twoBranches(session: Session, order: 'left-first' | 'right-first', calls: string[]) {
  const leftDone = gate();
  const rightDone = gate();
  const branch = async (name: 'left' | 'right', waitFor: Promise<void> | null, done: () => void) => {
    if (waitFor) await waitFor;
    const first = await session.step(
      `${name}/one`,
      async () => {
        calls.push(`${name}/one`);
        return `${name} 1`;
      },
      { branch: name },
    );
    const second = await session.step(
      `${name}/two`,
      async () => {
        calls.push(`${name}/two`);
        return `${first} then ${name} 2`;
      },
      { branch: name },
    );
    done();
    return second;
  };
  return Promise.all([
    branch('left', order === 'right-first' ? rightDone.wait : null, leftDone.open),
    branch('right', order === 'left-first' ? leftDone.wait : null, rightDone.open),
  ]);
}

describe('concurrent branches', () => {
  it('journals each step with its branch; main-line steps have none', async () => {
    const store = createMemoryStore();
    const { first } = processes(store);
    const session = await first.createSession({ title: 't', mode: 'custom', replay: 'keyed' });
    await session.step('before', async () => 'main');
    await twoBranches(session, 'left-first', []);
    expect(session.state.steps.map((step) => [step.key, step.branch])).toEqual([
      ['before', null],
      ['left/one', 'left'],
      ['left/two', 'left'],
      ['right/one', 'right'],
      ['right/two', 'right'],
    ]);
    const events: JournalEvent[] = [];
    for await (const event of store.read(session.id)) events.push(event);
    const started = events.filter((event) => event.type === 'step-started');
    expect(started.map((event) => ('branch' in event ? event.branch : undefined))).toEqual([
      undefined,
      'left',
      'left',
      'right',
      'right',
    ]);
    await session.close();
  });

  it('replays branches recorded in one interleaving when they run in another, without calling them', async () => {
    const store = createMemoryStore();
    const { first, second } = processes(store);
    const session = await first.createSession({ title: 't', mode: 'custom', replay: 'keyed' });
    const calls: string[] = [];
    const outputs = await twoBranches(session, 'left-first', calls);
    store.killHolder(session.id);

    const reopened = await second().openSession(session.id, { replay: 'keyed' });
    const replayedCalls: string[] = [];
    expect(await twoBranches(reopened, 'right-first', replayedCalls)).toEqual(outputs);
    expect(replayedCalls).toEqual([]);
    expect(await reopened.step('after', async () => 'joined')).toBe('joined');
    await reopened.close();
  });

  it('runs only the unfinished steps of each branch after a crash in the middle of the group', async () => {
    const store = createMemoryStore();
    const { first, second } = processes(store);
    const session = await first.createSession({ title: 't', mode: 'custom', replay: 'keyed' });
    // The left branch finished; the right one finished its first step and then the process died.
    await session.step('left/one', async () => 'left 1', { branch: 'left' });
    await session.step('right/one', async () => 'right 1', { branch: 'right' });
    await session.step('left/two', async () => 'left 1 then left 2', { branch: 'left' });
    store.killHolder(session.id);

    const reopened = await second().openSession(session.id, { replay: 'keyed' });
    const calls: string[] = [];
    expect(await twoBranches(reopened, 'right-first', calls)).toEqual(['left 1 then left 2', 'right 1 then right 2']);
    expect(calls).toEqual(['right/two']);
    await reopened.close();
  });

  it('finds a step new to a branch before the ones it recorded as a divergence of that branch', async () => {
    const store = createMemoryStore();
    const { first, second } = processes(store);
    const session = await first.createSession({ title: 't', mode: 'custom', replay: 'keyed' });
    await twoBranches(session, 'left-first', []);
    store.killHolder(session.id);

    const reopened = await second().openSession(session.id, { replay: 'keyed' });
    // The other branch replays in any order; this one asks for a step it never recorded first.
    expect(await reopened.step('right/one', async () => 'new', { branch: 'right' })).toBe('right 1');
    const error = await reopened
      .step('left/zero', async () => 'new', { branch: 'left' })
      .catch((caught: unknown) => caught);
    expect(ReplayMismatchError.isInstance(error)).toBe(true);
    expect((error as ReplayMismatchError).expectedKey).toBe('left/one');
    expect((error as ReplayMismatchError).requestedKey).toBe('left/zero');
    await reopened.close();
  });

  it('finds a main-line step asked for while recorded branch steps were never reached as a divergence', async () => {
    const store = createMemoryStore();
    const { first, second } = processes(store);
    const session = await first.createSession({ title: 't', mode: 'custom', replay: 'keyed' });
    await session.step('before', async () => 'main');
    await twoBranches(session, 'left-first', []);
    await session.step('after', async () => 'joined');
    store.killHolder(session.id);

    const reopened = await second().openSession(session.id, { replay: 'keyed' });
    expect(await reopened.step('before', async () => 'again')).toBe('main');
    // The code skipped the group: its recorded steps are not another step's to take over.
    const error = await reopened.step('summary', async () => 'new').catch((caught: unknown) => caught);
    expect(ReplayMismatchError.isInstance(error)).toBe(true);
    expect((error as ReplayMismatchError).expectedKey).toBe('left/one');
    await reopened.close();
  });

  it('keeps steps\u2019 branches in the snapshot a reopen starts from', async () => {
    const store = createMemoryStore();
    const { first, second } = processes(store, 2);
    const session = await first.createSession({ title: 't', mode: 'custom', replay: 'keyed' });
    await twoBranches(session, 'right-first', []);
    await session.close();
    expect(await store.getSnapshot(session.id)).not.toBeNull();

    const reopened = await second().openSession(session.id, { replay: 'keyed' });
    expect(reopened.state.steps.map((step) => [step.key, step.branch])).toEqual([
      ['right/one', 'right'],
      ['right/two', 'right'],
      ['left/one', 'left'],
      ['left/two', 'left'],
    ]);
    await reopened.close();
  });

  it('refuses branches where steps replay in code order, and an empty branch name', async () => {
    const engine = createEngine({ store: createMemoryStore() });
    const ordered = await engine.createSession({ title: 't', mode: 'custom' });
    const refused = await ordered.step('a', async () => 1, { branch: 'left' }).catch((caught: unknown) => caught);
    expect(UsageError.isInstance(refused)).toBe(true);
    expect((refused as Error).message).toContain("replay: 'keyed'");
    expect(ordered.state.steps).toEqual([]);

    const keyed = await engine.createSession({ title: 't', mode: 'custom', replay: 'keyed' });
    const empty = await keyed.step('a', async () => 1, { branch: '' }).catch((caught: unknown) => caught);
    expect(UsageError.isInstance(empty)).toBe(true);
    expect((empty as Error).message).toContain('empty branch');
  });
});
