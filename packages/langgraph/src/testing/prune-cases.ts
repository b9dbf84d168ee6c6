// The pruning cases every store that can rewrite a journal passes (prune-fs.test.ts,
// prune-postgres.test.ts): a thread with a message list, a subgraph and an interrupt at every
// round, pruned; what stays answers as before, what went is gone, and the thread goes on.
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import { Command, END, interrupt, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import type { CheckpointTuple } from '@langchain/langgraph-checkpoint';
import type { SessionStore } from '@resume/core/spec';
import { afterEach, expect, it } from 'vitest';
import { ResumeCheckpointSaver } from '../saver/resume-checkpoint-saver.js';

export interface PruneFixture {
  store: SessionStore;
  /** A second store over the same data, as another process opens it. */
  reopen(): SessionStore;
  /** What the thread's session takes where the store keeps it (file bytes, table rows). */
  size(sessionId: string): Promise<number>;
  cleanup(): Promise<void>;
}

const text = (index: number) => `message ${index}: ${'the reviewer asked for numbers. '.repeat(20)}`;

/** Each round: `think` adds a message, the `notes` subgraph adds one, `ask` waits for an answer. */
export function reviewGraph() {
  const notes = new StateGraph(MessagesAnnotation)
    .addNode('note', (state) => ({ messages: [new AIMessage(`note on ${state.messages.length} messages`)] }))
    .addEdge(START, 'note')
    .compile();
  return new StateGraph(MessagesAnnotation)
    .addNode('think', (state) => ({ messages: [new AIMessage(text(state.messages.length))] }))
    .addNode('notes', notes)
    .addNode('ask', () => {
      const answer = interrupt('go on?');
      return { messages: [new HumanMessage(String(answer))] };
    })
    .addEdge(START, 'think')
    .addEdge('think', 'notes')
    .addEdge('notes', 'ask')
    .addEdge('ask', 'think');
}

/** Every checkpoint of the thread, every namespace, by `namespace/id`. */
export async function allTuples(saver: ResumeCheckpointSaver, threadId: string): Promise<Map<string, CheckpointTuple>> {
  const found = new Map<string, CheckpointTuple>();
  for await (const tuple of saver.list({ configurable: { thread_id: threadId } })) {
    const { checkpoint_ns, checkpoint_id } = tuple.config.configurable ?? {};
    const exact = await saver.getTuple({ configurable: { thread_id: threadId, checkpoint_ns, checkpoint_id } });
    found.set(`${checkpoint_ns}/${checkpoint_id}`, exact as CheckpointTuple);
  }
  return found;
}

export function describePruneCases(factory: () => Promise<PruneFixture>): void {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  const open = async () => {
    const fixture = await factory();
    cleanups.push(() => fixture.cleanup());
    const saver = new ResumeCheckpointSaver({ store: fixture.store, leaseIdleMs: 50 });
    cleanups.push(() => saver.close());
    return { fixture, saver };
  };
  const rounds = async (saver: ResumeCheckpointSaver, config: RunnableConfig, count: number) => {
    const graph = reviewGraph().compile({ checkpointer: saver });
    await graph.invoke({ messages: [new HumanMessage('review this')] }, config);
    for (let round = 1; round < count; round += 1) await graph.invoke(new Command({ resume: `yes ${round}` }), config);
    return graph;
  };

  it('keeps the newest checkpoints exactly as they answered, drops the rest, frees space, and the thread goes on', async () => {
    const { fixture, saver } = await open();
    const config = { configurable: { thread_id: 'review' }, durability: 'sync' as const };
    await rounds(saver, config, 6);
    const sessionId = saver.sessionIdOf('review');
    const before = await allTuples(saver, 'review');
    const rootBefore = [...before.keys()].filter((key) => key.startsWith('/'));
    const subgraphBefore = [...before.keys()].filter((key) => !key.startsWith('/'));
    expect(rootBefore.length).toBeGreaterThan(12);
    expect(subgraphBefore.length).toBeGreaterThan(6);
    const sizeBefore = await fixture.size(sessionId);

    const dry = await saver.pruneThread('review', { keepLast: 4, dryRun: true });
    expect(dry).toMatchObject({ dryRun: true, checkpointsBefore: before.size });
    expect(await fixture.size(sessionId)).toBe(sizeBefore);

    const report = await saver.pruneThread('review', { keepLast: 4 });
    expect(report).toMatchObject({
      dryRun: false,
      checkpointsBefore: before.size,
      checkpointsAfter: dry.checkpointsAfter,
    });
    expect(report.bytesAfter).toBeLessThan(report.bytesBefore ?? 0);
    expect(await fixture.size(sessionId)).toBeLessThan(sizeBefore / 2);
    expect((await fixture.store.verify?.(sessionId))?.problems ?? []).toEqual([]);

    // Another process's view and this saver's: the newest 4 root checkpoints, the subgraph's under them.
    const elsewhere = new ResumeCheckpointSaver({ store: fixture.reopen() });
    cleanups.push(() => elsewhere.close());
    for (const reader of [saver, elsewhere]) {
      const after = await allTuples(reader, 'review');
      expect([...after.keys()].filter((key) => key.startsWith('/'))).toEqual(rootBefore.slice(0, 4));
      expect(after.size).toBe(report.checkpointsAfter);
      expect([...after.keys()].filter((key) => !key.startsWith('/')).length).toBeLessThan(subgraphBefore.length);
      for (const [key, tuple] of after) expect({ key, tuple }).toEqual({ key, tuple: before.get(key) });
      for (const key of rootBefore.slice(4)) {
        const [, id] = key.split('/');
        expect(await reader.getTuple({ configurable: { thread_id: 'review', checkpoint_id: id } })).toBeUndefined();
      }
    }
    const latest = await elsewhere.getTuple({ configurable: { thread_id: 'review' } });
    expect(latest?.pendingWrites?.some(([, channel]) => channel === '__interrupt__')).toBe(true);

    // The thread goes on from where it waited, in a new process: the answer, then the next round's thought and note.
    const graph = reviewGraph().compile({ checkpointer: elsewhere });
    const state = await graph.invoke(new Command({ resume: 'after pruning' }), config);
    const contents = state.messages.map((message) => message.content);
    expect(contents).toContain('after pruning');
    expect(contents.length).toBe(
      ((latest?.checkpoint.channel_values.messages as unknown[] | undefined)?.length ?? 0) + 3,
    );
  });

  it('a saver elsewhere that read the thread before it was pruned reads it as pruned and goes on writing it', async () => {
    const { fixture, saver } = await open();
    const config = { configurable: { thread_id: 'shared' }, durability: 'sync' as const };
    await rounds(saver, config, 4);
    const elsewhere = new ResumeCheckpointSaver({ store: fixture.reopen(), leaseIdleMs: 50 });
    cleanups.push(() => elsewhere.close());
    const before = await allTuples(elsewhere, 'shared');
    await saver.pruneThread('shared', { keepLast: 2 });
    // Thread grows past where it was (in seqs) before the other saver reads again.
    const graph = reviewGraph().compile({ checkpointer: saver });
    for (const answer of ['one', 'two', 'three', 'four']) await graph.invoke(new Command({ resume: answer }), config);
    const pruned = await allTuples(saver, 'shared');
    const seen = await allTuples(elsewhere, 'shared');
    expect([...seen.keys()]).toEqual([...pruned.keys()]);
    for (const [key, tuple] of seen) expect({ key, tuple }).toEqual({ key, tuple: pruned.get(key) });
    expect([...seen.keys()].filter((key) => before.has(key)).length).toBeLessThan(before.size);

    const state = await reviewGraph()
      .compile({ checkpointer: elsewhere })
      .invoke(new Command({ resume: 'from elsewhere' }), config);
    const latest = await saver.getTuple({ configurable: { thread_id: 'shared' } });
    expect((latest?.checkpoint.channel_values.messages as unknown[] | undefined)?.length).toBe(state.messages.length);
  });

  it('writes a long message list whole once, in the oldest kept checkpoint, not once per kept checkpoint', async () => {
    const { fixture, saver } = await open();
    const steps = 40;
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('speak', (state) => ({ messages: [new AIMessage(text(state.messages.length))] }))
      .addEdge(START, 'speak')
      .addConditionalEdges('speak', (state) => (state.messages.length >= steps ? END : 'speak'))
      .compile({ checkpointer: saver });
    const config = { configurable: { thread_id: 'long' }, recursionLimit: steps + 5, durability: 'sync' as const };
    await graph.invoke({ messages: [new HumanMessage(text(0))] }, config);
    const sessionId = saver.sessionIdOf('long');
    const sizeBefore = await fixture.size(sessionId);
    const before = await allTuples(saver, 'long');
    await saver.pruneThread('long', { keepLast: 5 });
    // The whole list once (about a third of the thread, each message having been journaled twice
    // with its bookkeeping) and four small deltas: five whole lists would be more than before.
    expect(await fixture.size(sessionId)).toBeLessThan(sizeBefore / 2);
    const after = await allTuples(saver, 'long');
    expect([...after.keys()]).toEqual([...before.keys()].slice(0, 5));
    for (const [key, tuple] of after) expect({ key, tuple }).toEqual({ key, tuple: before.get(key) });
  });

  it('keeps the checkpoints saved after a moment, and refuses while another process runs the thread', async () => {
    const { fixture, saver } = await open();
    const config = { configurable: { thread_id: 'timed' }, durability: 'sync' as const };
    const graph = await rounds(saver, config, 3);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const middle = new Date();
    await new Promise((resolve) => setTimeout(resolve, 5));
    await graph.invoke(new Command({ resume: 'more' }), config);
    const before = await allTuples(saver, 'timed');
    const report = await saver.pruneThread('timed', { newerThan: middle });
    const after = await allTuples(saver, 'timed');
    for (const [key, tuple] of after) expect({ key, tuple }).toEqual({ key, tuple: before.get(key) });
    expect(after.size).toBe(report.checkpointsAfter);
    expect(after.size).toBeLessThan(before.size);

    const sessionId = saver.sessionIdOf('timed');
    const lease = await fixture.store.acquireLease(sessionId, { holder: { pid: process.pid, host: 'other-host' } });
    const sizeBefore = await fixture.size(sessionId);
    const refused = await saver.pruneThread('timed', { keepLast: 1 }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'langgraph-thread-busy' });
    expect(String((refused as Error).message)).toContain('it was not pruned; nothing changed');
    expect(await fixture.size(sessionId)).toBe(sizeBefore);
    await lease.release();
    expect((await allTuples(saver, 'timed')).size).toBe(after.size);
  });
}
