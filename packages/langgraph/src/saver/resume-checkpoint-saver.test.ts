import { mkdtemp, readdir, readFile, rm, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { Annotation, END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { emptyCheckpoint, JsonPlusSerializer, uuid6 } from '@langchain/langgraph-checkpoint';
import { createEngine } from '@resume/core';
import { createFsStore } from '@resume/storage-fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CheckpointDataError } from '../errors/checkpoint-data-error.js';
import { ThreadConfigError } from '../errors/thread-config-error.js';
import { sessionBytes } from '../testing/session-bytes.js';
import { ResumeCheckpointSaver } from './resume-checkpoint-saver.js';

const directories: string[] = [];
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  for (const directory of directories.splice(0)) await rm(directory, { recursive: true, force: true });
});

async function home(): Promise<string> {
  const directory = await mkdtemp(path.join(tmpdir(), 'conclave-langgraph-'));
  directories.push(directory);
  return directory;
}

function saverOn(directory: string, options: { blobThreshold?: number; serde?: JsonPlusSerializer } = {}) {
  const store = createFsStore({ dir: directory });
  const saver = new ResumeCheckpointSaver({ store, ...options });
  closers.push(async () => {
    await saver.close();
    await store.close();
  });
  return saver;
}

const text = (index: number, bytes = 1024) =>
  `message ${index}: ${'the reviewer weighed the proposal and asked for numbers. '.repeat(40)}`.slice(0, bytes);

/** A graph that appends one ~1 KB message per step until `steps` messages exist. */
function growingGraph(steps: number) {
  return new StateGraph(MessagesAnnotation)
    .addNode('speak', (state) => ({ messages: [new AIMessage(text(state.messages.length))] }))
    .addEdge(START, 'speak')
    .addConditionalEdges('speak', (state) => (state.messages.length >= steps ? END : 'speak'));
}

describe('ResumeCheckpointSaver', () => {
  it('stores a growing message list by what each step appended, not the whole list every step', async () => {
    const directory = await home();
    const saver = saverOn(directory);
    const steps = 80;
    const graph = growingGraph(steps).compile({ checkpointer: saver });
    const config = { configurable: { thread_id: 'growing' }, recursionLimit: steps + 10 };
    const result = await graph.invoke({ messages: [new HumanMessage(text(0))] }, config);
    expect(result.messages).toHaveLength(steps);

    const payload = steps * 1024;
    const bytes = await sessionBytes(directory, saver.sessionIdOf('growing'));
    // Each step journals the new message twice (the node's pending write and the checkpoint's
    // appended item) plus a few hundred bytes of bookkeeping: about 5x the payload, at any length.
    // The whole list at every step would be about steps / 2 times the payload (40x here).
    expect(bytes).toBeLessThan(8 * payload);
    const latest = await saver.getTuple({ configurable: { thread_id: 'growing' } });
    const messages = latest?.checkpoint.channel_values.messages as BaseMessage[];
    expect(messages.map((message) => message.content)).toEqual(result.messages.map((message) => message.content));
  });

  it('serializes what a step appended, not the whole message list again at every step', async () => {
    /** The bytes the saver had the serializer produce, step after step. */
    class CountingSerializer extends JsonPlusSerializer {
      bytes = 0;
      override async dumpsTyped(value: unknown): Promise<[string, Uint8Array]> {
        const dumped = await super.dumpsTyped(value);
        this.bytes += dumped[1].byteLength;
        return dumped;
      }
    }
    const serde = new CountingSerializer();
    const saver = saverOn(await home(), { serde });
    const perStep: number[] = [];
    const steps = 200;
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('speak', (state) => {
        perStep.push(serde.bytes);
        return { messages: [new AIMessage(text(state.messages.length))] };
      })
      .addEdge(START, 'speak')
      .addConditionalEdges('speak', (state) => (state.messages.length >= steps ? END : 'speak'))
      .compile({ checkpointer: saver });
    await graph.invoke(
      { messages: [new HumanMessage(text(0))] },
      { configurable: { thread_id: 'serialized' }, recursionLimit: steps + 10, durability: 'sync' },
    );
    const stepBytes = perStep.slice(1).map((bytes, index) => bytes - perStep[index]!);
    const tenth = Math.floor(stepBytes.length / 10);
    const average = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
    const first = average(stepBytes.slice(0, tenth));
    const last = average(stepBytes.slice(-tenth));
    // About two ~1 KB messages and the bookkeeping per step; the whole list would be ~180 KB at the end.
    expect(last).toBeLessThan(1.5 * first);
    expect(last).toBeLessThan(8 * 1024);
  });

  it('continues a thread from another process: a new saver on the same store reads what the first one wrote', async () => {
    const directory = await home();
    const first = saverOn(directory);
    const graph = growingGraph(6);
    const config = { configurable: { thread_id: 'resumed' } };
    await graph.compile({ checkpointer: first }).invoke({ messages: [new HumanMessage('start')] }, config);
    await first.close();

    const second = saverOn(directory);
    const state = await graph.compile({ checkpointer: second }).getState(config);
    expect(state.values.messages).toHaveLength(6);
    expect((state.values.messages as BaseMessage[])[0]?.content).toBe('start');
    // A follow-up on the same thread appends to it.
    const longer = growingGraph(9).compile({ checkpointer: second });
    const after = await longer.invoke({ messages: [new HumanMessage('more')] }, config);
    expect(after.messages).toHaveLength(9);
    expect(after.messages[6]?.content).toBe('more');
  });

  it('keeps branches apart when a run forks from an earlier checkpoint', async () => {
    const directory = await home();
    const saver = saverOn(directory);
    const State = Annotation.Root({
      log: Annotation<string[]>({ reducer: (left, right) => [...left, ...right], default: () => [] }),
    });
    const graph = new StateGraph(State)
      .addNode('step', (state) => ({ log: [`step after ${state.log.at(-1) ?? 'nothing'}`] }))
      .addEdge(START, 'step')
      .addEdge('step', END)
      .compile({ checkpointer: saver });
    const config = { configurable: { thread_id: 'forks' } };
    await graph.invoke({ log: ['a'] }, config);
    const history = [];
    for await (const snapshot of graph.getStateHistory(config)) history.push(snapshot);
    const first = history.at(-2); // the checkpoint holding the input ['a'], before `step` ran
    expect(first?.values.log).toEqual(['a']);
    await graph.invoke({ log: ['b'] }, config);
    expect((await graph.getState(config)).values.log).toEqual(['a', 'step after a', 'b', 'step after b']);

    // Forking from the first run's input checkpoint: same channel versions as the main line, other values.
    const forked = await graph.invoke({ log: ['x'] }, { configurable: { ...first?.config.configurable } });
    expect(forked.log).toEqual(['a', 'x', 'step after x']);
    const main = await saver.getTuple({ configurable: { thread_id: 'forks' } });
    expect(main?.checkpoint.channel_values.log).toEqual(['a', 'x', 'step after x']);
    const reopened = saverOn(directory);
    const history2 = [];
    for await (const tuple of reopened.list({ configurable: { thread_id: 'forks' } })) history2.push(tuple);
    const logs = history2.map((tuple) => JSON.stringify(tuple.checkpoint.channel_values.log ?? []));
    expect(logs).toContain(JSON.stringify(['a', 'step after a', 'b', 'step after b']));
    expect(logs).toContain(JSON.stringify(['a', 'x', 'step after x']));
  });

  it('puts large values in the blob store and reads them back', async () => {
    const directory = await home();
    const saver = saverOn(directory, { blobThreshold: 4096 });
    const big = 'x'.repeat(50_000);
    const config = await saver.put(
      { configurable: { thread_id: 'big', checkpoint_ns: '' } },
      { ...emptyCheckpoint(), id: uuid6(0), channel_values: { document: big }, channel_versions: { document: 1 } },
      { source: 'input', step: -1, parents: {} },
      { document: 1 },
    );
    const journal = await readFile(path.join(directory, 'sessions', saver.sessionIdOf('big'), 'journal.jsonl'), 'utf8');
    expect(journal).not.toContain(big);
    expect((await readdir(path.join(directory, 'blobs'))).length).toBeGreaterThan(0);
    const reopened = saverOn(directory);
    expect((await reopened.getTuple(config))?.checkpoint.channel_values.document).toBe(big);
  });

  it('reads plain JSON back without the serializer parsing it again, and gives what the serializer gives', async () => {
    const directory = await home();
    const values = {
      plain: { steps: [1, { label: 'x', done: false }], empty: null, ratio: 0.5, nested: [[['deep']]] },
      text: 'a note',
      negativeZero: -0,
      set: new Set([1, 2]),
      map: new Map([['key', { a: 1 }]]),
      missing: undefined,
      taggedByUser: { lc: 3, note: 'an lc key of the user, not a record' },
    };
    const versions = Object.fromEntries(Object.keys(values).map((channel) => [channel, 1]));
    const config = await saverOn(directory).put(
      { configurable: { thread_id: 'plain', checkpoint_ns: '' } },
      { ...emptyCheckpoint(), id: uuid6(0), channel_values: values, channel_versions: versions },
      { source: 'input', step: -1, parents: {} },
      versions,
    );
    const serde = new JsonPlusSerializer();
    const expected: Record<string, unknown> = {};
    for (const [channel, value] of Object.entries(values)) {
      const [type, bytes] = await serde.dumpsTyped(value);
      expected[channel] = await serde.loadsTyped(type, bytes);
    }

    const parse = vi.spyOn(JsonPlusSerializer.prototype, 'loadsTyped');
    try {
      const reader = saverOn(directory);
      const first = await reader.getTuple(config);
      expect(first?.checkpoint.channel_values).toEqual(expected);
      expect(first?.checkpoint.channel_values.set).toBeInstanceOf(Set);
      expect(Object.is(first?.checkpoint.channel_values.negativeZero, 0)).toBe(true);
      expect(first?.metadata).toEqual({ source: 'input', step: -1, parents: {} });
      // The serializer read only what has a record of its own (Set, Map, undefined) or an `lc` key
      // its reader looks at; the checkpoint, its metadata and the plain values it did not.
      expect(parse).toHaveBeenCalledTimes(4);

      // Each read is a copy of its own: changing one tuple leaves the next read as stored.
      const plain = first?.checkpoint.channel_values.plain as { steps: unknown[] };
      plain.steps.push('changed by the caller');
      expect((await reader.getTuple(config))?.checkpoint.channel_values.plain).toEqual(values.plain);
    } finally {
      parse.mockRestore();
    }
  });

  it('names the thread and the blob when a blob is missing', async () => {
    const directory = await home();
    const saver = saverOn(directory, { blobThreshold: 1024 });
    const config = await saver.put(
      { configurable: { thread_id: 'lost' } },
      {
        ...emptyCheckpoint(),
        id: uuid6(0),
        channel_values: { document: 'y'.repeat(5000) },
        channel_versions: { document: 1 },
      },
      { source: 'input', step: -1, parents: {} },
      { document: 1 },
    );
    for (const prefix of await readdir(path.join(directory, 'blobs'))) {
      for (const name of await readdir(path.join(directory, 'blobs', prefix))) {
        await unlink(path.join(directory, 'blobs', prefix, name));
      }
    }
    const error = await saverOn(directory)
      .getTuple(config)
      .catch((caught: unknown) => caught);
    expect(CheckpointDataError.isInstance(error)).toBe(true);
    expect(String((error as Error).message)).toMatch(/"lost".*blob [0-9a-f]{64} is missing/);
  });

  it('refuses a put without a thread_id with a typed error that says how to pass one', async () => {
    const saver = saverOn(await home());
    const error = await saver
      .put({ configurable: {} }, emptyCheckpoint(), { source: 'input', step: -1, parents: {} }, {})
      .catch((caught: unknown) => caught);
    expect(ThreadConfigError.isInstance(error)).toBe(true);
    expect((error as ThreadConfigError).hint).toContain('thread_id');
  });

  it('lists a thread as a session of mode langgraph with its checkpoints as progress', async () => {
    const directory = await home();
    const saver = saverOn(directory);
    await growingGraph(3)
      .compile({ checkpointer: saver })
      .invoke({ messages: [new HumanMessage('hi')] }, { configurable: { thread_id: 'listed' } });
    await saver.close();
    const engine = createEngine({ store: createFsStore({ dir: directory }) });
    closers.push(() => engine.close());
    const [summary] = await engine.listSessions({ mode: ['langgraph'] });
    expect(summary?.id).toBe(saver.sessionIdOf('listed'));
    expect(summary?.title).toBe('LangGraph thread listed');
    expect(summary?.progress?.label).toBe('checkpoints');
    expect(summary?.progress?.done).toBeGreaterThanOrEqual(3);
    expect(summary?.status).toBe('interrupted');
  });
});

describe('two savers creating one thread at once', () => {
  /** A store whose first lease is held back until `go`: its saver has written the header, not yet taken the lease. */
  function pausedAtFirstLease(directory: string) {
    const store = createFsStore({ dir: directory });
    const acquire = store.acquireLease.bind(store);
    let go: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      go = resolve;
    });
    let reach: () => void = () => undefined;
    const reached = new Promise<void>((resolve) => {
      reach = resolve;
    });
    let paused = false;
    store.acquireLease = async (id, options) => {
      if (!paused) {
        paused = true;
        reach();
        await gate;
      }
      return acquire(id, options);
    };
    closers.push(() => store.close());
    return { store, reached, go };
  }

  const steps = (label: string) =>
    new StateGraph(
      Annotation.Root({ log: Annotation<string[]>({ reducer: (a, b) => [...a, ...b], default: () => [] }) }),
    )
      .addNode('one', () => ({ log: [`${label} one`] }))
      .addNode('two', () => ({ log: [`${label} two`] }))
      .addEdge(START, 'one')
      .addEdge('one', 'two')
      .addEdge('two', END);

  it('lets the saver that finds the other one between its header and its lease run, and tells the other it is busy', async () => {
    const directory = await home();
    const first = pausedAtFirstLease(directory);
    const firstSaver = new ResumeCheckpointSaver({ store: first.store, leaseWaitMs: 300 });
    const secondSaver = saverOn(directory);
    const thread = { configurable: { thread_id: 'ticket' } };

    const firstRun = steps('A')
      .compile({ checkpointer: firstSaver })
      .invoke({ log: ['A start'] }, thread);
    const firstOutcome = firstRun.then(
      () => null,
      (error: unknown) => error,
    );
    await first.reached;
    const second = await steps('B')
      .compile({ checkpointer: secondSaver })
      .invoke({ log: ['B start'] }, thread);
    expect(second.log).toEqual(['B start', 'B one', 'B two']);
    first.go();
    const refused = (await firstOutcome) as { code?: string; message?: string } | null;
    expect(refused?.code).toBe('langgraph-thread-busy');
    await firstSaver.close();

    const latest = await secondSaver.getTuple(thread);
    expect(latest?.checkpoint.channel_values.log).toEqual(['B start', 'B one', 'B two']);
  });
});
