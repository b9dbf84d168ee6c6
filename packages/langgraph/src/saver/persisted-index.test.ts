import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import { Annotation, Command, END, interrupt, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import type { CheckpointListOptions, CheckpointTuple } from '@langchain/langgraph-checkpoint';
import type { JournalEvent, ReadRange, SessionStore } from '@resume/core/spec';
import { createFsStore } from '@resume/storage-fs';
import { createPostgresStore } from '@resume/storage-postgres';
import {
  announceSkip,
  findPostgres,
  type PostgresCluster,
  startPostgresCluster,
} from '@resume/storage-postgres/testing';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ResumeCheckpointSaver } from './resume-checkpoint-saver.js';

interface CountingOptions {
  derived?: boolean;
  newestFirst?: boolean;
  /** How long each read of an older part of the index takes, as over a network (the head's is not slowed). */
  partDelayMs?: number;
}

/**
 * A store that counts the journal events its reads hand out (in order or newest first), its
 * derived writes and bytes read, the older parts of the index read and the most on their way at
 * once, and can hide its derived data.
 */
function counting(store: SessionStore, options: CountingOptions = {}) {
  const counter = {
    events: 0,
    derivedWrites: 0,
    derivedBytesRead: 0,
    partReads: 0,
    partsInFlight: 0,
    mostPartsInFlight: 0,
  };
  const wrapped = new Proxy(store, {
    get(target, key) {
      if (key === 'read') {
        return (id: string, range?: ReadRange): AsyncIterable<JournalEvent> =>
          (async function* () {
            for await (const event of target.read(id, range)) {
              counter.events += 1;
              yield event;
            }
          })();
      }
      if (key === 'readNewestFirst' && options.newestFirst === false) return undefined;
      if (key === 'readNewestFirst' && target.readNewestFirst) {
        const readNewestFirst = target.readNewestFirst.bind(target);
        return (id: string): AsyncIterable<JournalEvent[]> =>
          (async function* () {
            for await (const batch of readNewestFirst(id)) {
              counter.events += batch.length;
              yield batch;
            }
          })();
      }
      if (options.derived === false && (key === 'putDerived' || key === 'getDerived')) return undefined;
      if (key === 'putDerived' && target.putDerived) {
        const put = target.putDerived.bind(target);
        return (id: string, name: string, bytes: Uint8Array) => {
          counter.derivedWrites += 1;
          return put(id, name, bytes);
        };
      }
      if (key === 'getDerived' && target.getDerived) {
        const get = target.getDerived.bind(target);
        return async (id: string, name: string) => {
          const part = name !== 'langgraph-index';
          if (part) {
            counter.partReads += 1;
            counter.partsInFlight += 1;
            counter.mostPartsInFlight = Math.max(counter.mostPartsInFlight, counter.partsInFlight);
          }
          try {
            if (part && options.partDelayMs) await new Promise((resolve) => setTimeout(resolve, options.partDelayMs));
            const bytes = await get(id, name);
            counter.derivedBytesRead += bytes?.length ?? 0;
            return bytes;
          } finally {
            if (part) counter.partsInFlight -= 1;
          }
        };
      }
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { store: wrapped, counter };
}

interface Place {
  /** A new store over the same data (a reopen, as a second process has). */
  open(): SessionStore;
  /** Cuts the thread's journal after `seq` and repairs it (stores that can). */
  cut?(sessionId: string, seq: number): Promise<void>;
  cleanup(): Promise<void>;
}

const noteText = (index: number) => `step ${index}: ${'the planner revised its estimate. '.repeat(30)}`.slice(0, 1024);

const SmallState = Annotation.Root({
  count: Annotation<number>({ reducer: (_left, right) => right, default: () => 0 }),
  note: Annotation<string>({ reducer: (_left, right) => right, default: () => '' }),
});

/** A thread of `steps` checkpoints whose state stays the same size. */
async function runCounter(saver: ResumeCheckpointSaver, threadId: string, steps: number) {
  const graph = new StateGraph(SmallState)
    .addNode('step', (state) => ({ count: state.count + 1, note: noteText(state.count + 1) }))
    .addEdge(START, 'step')
    .addConditionalEdges('step', (state) => (state.count >= steps ? END : 'step'))
    .compile({ checkpointer: saver });
  await graph.invoke(
    { count: 0, note: '' },
    { configurable: { thread_id: threadId }, recursionLimit: steps + 10, durability: 'sync' },
  );
}

/** A thread with a growing message list, a subgraph's namespace, an interrupt and pending writes. */
async function runConversation(saver: ResumeCheckpointSaver, threadId: string, turns: number) {
  const inner = new StateGraph(MessagesAnnotation)
    .addNode('inner', (state) => ({ messages: [new AIMessage(`inner saw ${state.messages.length}`)] }))
    .addEdge(START, 'inner')
    .addEdge('inner', END)
    .compile();
  const graph = new StateGraph(MessagesAnnotation)
    .addNode('speak', (state) => ({ messages: [new AIMessage(`reply ${state.messages.length}`)] }))
    .addNode('sub', inner)
    .addNode('side', () => ({ messages: [new AIMessage('a note from the side')] }))
    .addNode('ask', () => ({ messages: [new HumanMessage(String(interrupt('approve?')))] }))
    .addEdge(START, 'speak')
    .addEdge('speak', 'sub')
    .addEdge('sub', 'side')
    .addEdge('sub', 'ask')
    .addEdge('side', END)
    .addEdge('ask', END)
    .compile({ checkpointer: saver });
  const config = { configurable: { thread_id: threadId } };
  for (let turn = 0; turn < turns; turn += 1) {
    await graph.invoke({ messages: [new HumanMessage(`question ${turn}`)] }, config);
    await graph.invoke(new Command({ resume: `approved ${turn}` }), config);
  }
  // Left at an interrupt: the latest checkpoint has pending writes.
  await graph.invoke({ messages: [new HumanMessage('one more')] }, config);
}

/** A thread whose message list grows by one message a step, until it holds `length` messages. */
async function runMessages(saver: ResumeCheckpointSaver, threadId: string, length: number) {
  const graph = new StateGraph(MessagesAnnotation)
    .addNode('speak', (state) => ({ messages: [new AIMessage(`reply ${state.messages.length}`)] }))
    .addEdge(START, 'speak')
    .addConditionalEdges('speak', (state) => (state.messages.length >= length ? END : 'speak'))
    .compile({ checkpointer: saver });
  await graph.invoke(
    { messages: [new HumanMessage('go on')] },
    { configurable: { thread_id: threadId }, recursionLimit: length + 10, durability: 'sync' },
  );
}

async function collect(iterable: AsyncIterable<CheckpointTuple>): Promise<CheckpointTuple[]> {
  const tuples: CheckpointTuple[] = [];
  for await (const tuple of iterable) tuples.push(tuple);
  return tuples;
}

/** The bytes of a thread's persisted index: its head and every older part it names. */
async function indexSize(store: SessionStore, sessionId: string): Promise<number> {
  const head = await store.getDerived?.(sessionId, 'langgraph-index');
  if (!head) return 0;
  const { parts } = JSON.parse(new TextDecoder().decode(head)) as { parts: string[] };
  let size = head.length;
  for (const part of parts) size += (await store.getDerived?.(sessionId, part))?.length ?? 0;
  return size;
}

/** The same tuples, as plain data (messages compared by what they serialize to). */
const plain = (value: unknown) => JSON.parse(JSON.stringify(value));

function describeIndexedReads(name: string, place: () => Promise<Place>, hooks: { before?: () => Promise<void> } = {}) {
  describe(`the persisted thread index (${name})`, () => {
    let current: Place;
    const stores: SessionStore[] = [];
    const savers: ResumeCheckpointSaver[] = [];
    if (hooks.before) beforeAll(hooks.before, 120_000);
    afterEach(async () => {
      for (const saver of savers.splice(0)) await saver.close();
      for (const store of stores.splice(0)) await store.close();
      await current?.cleanup();
    });

    const opened = (options: CountingOptions = {}) => {
      const raw = current.open();
      stores.push(raw);
      const { store, counter } = counting(raw, options);
      const saver = new ResumeCheckpointSaver({ store });
      savers.push(saver);
      return { saver, counter, store: raw };
    };

    /** What a saver that keeps no index beside the journal reads (the whole thread). */
    const fullRead = async (threadId: string) => {
      const { saver } = opened({ derived: false });
      return plain(await collect(saver.list({ configurable: { thread_id: threadId } })));
    };

    it('answers a new process from the index: getTuple and list({ limit: 10 }) read a bounded number of events', {
      timeout: 120_000,
    }, async () => {
      current = await place();
      const writer = opened();
      await runCounter(writer.saver, 'long', 1_000);
      await writer.saver.close();

      const getter = opened();
      const latest = await getter.saver.getTuple({ configurable: { thread_id: 'long' } });
      expect(latest?.checkpoint.channel_values).toMatchObject({ count: 1_000, note: noteText(1_000) });
      expect(getter.counter.events).toBeLessThanOrEqual(10);

      const older = await collect(getter.saver.list({ configurable: { thread_id: 'long' } }, { limit: 3 }));
      const byId = opened();
      const third = await byId.saver.getTuple({
        configurable: {
          thread_id: 'long',
          checkpoint_ns: '',
          checkpoint_id: older[2]?.config.configurable?.checkpoint_id,
        },
      });
      expect(third?.checkpoint.channel_values).toMatchObject({ count: 998, note: noteText(998) });
      expect(byId.counter.events).toBeLessThanOrEqual(10);

      const lister = opened();
      const ten = await collect(lister.saver.list({ configurable: { thread_id: 'long' } }, { limit: 10 }));
      expect(ten.map((tuple) => tuple.checkpoint.channel_values.count)).toEqual([
        1_000, 999, 998, 997, 996, 995, 994, 993, 992, 991,
      ]);
      expect(lister.counter.events).toBeLessThanOrEqual(60);
    });

    it('answers the latest of a long thread from the newest part of its index: older parts read only for an older checkpoint', {
      timeout: 120_000,
    }, async () => {
      current = await place();
      const writer = opened();
      await runCounter(writer.saver, 'parts', 1_000);
      await writer.saver.close();
      const expected = await fullRead('parts');

      // The oldest checkpoint is in the oldest part: its answer loads the whole index.
      const oldest = opened();
      expect(plain(await oldest.saver.getTuple(expected.at(-1)!.config))).toEqual(expected.at(-1));
      const indexBytes = oldest.counter.derivedBytesRead;
      // A whole list reads the journal once and the index at most once more (each part for where it begins).
      const whole = opened();
      expect(plain(await collect(whole.saver.list({ configurable: { thread_id: 'parts' } })))).toEqual(expected);
      expect(whole.counter.derivedBytesRead).toBeGreaterThan(0);
      expect(whole.counter.derivedBytesRead).toBeLessThanOrEqual(2 * indexBytes);
      expect(whole.counter.events).toBeLessThanOrEqual(expected.length * 2 + 10);
      expect(whole.counter.derivedWrites).toBe(0);

      const getter = opened();
      expect(plain(await getter.saver.getTuple({ configurable: { thread_id: 'parts' } }))).toEqual(expected[0]);
      expect(getter.counter.derivedBytesRead).toBeLessThan(indexBytes / 5);
      const recent = opened();
      expect(plain(await recent.saver.getTuple(expected[20].config))).toEqual(expected[20]);
      expect(recent.counter.derivedBytesRead).toBeLessThan(indexBytes / 5);

      // An old checkpoint, then the whole thread, from the saver that read only the newest part.
      expect(plain(await getter.saver.getTuple(expected[900].config))).toEqual(expected[900]);
      expect(plain(await collect(getter.saver.list({ configurable: { thread_id: 'parts' } })))).toEqual(expected);
      expect(getter.counter.derivedWrites).toBe(0);

      // An older part not the one the head names: the thread is read whole, the answers the same.
      const sessionId = writer.saver.sessionIdOf('parts');
      const head = JSON.parse(
        new TextDecoder().decode((await writer.store.getDerived?.(sessionId, 'langgraph-index'))!),
      );
      await writer.store.putDerived?.(
        sessionId,
        head.parts[0],
        new TextEncoder().encode('{"format":2,"namespaces":[]}'),
      );
      const damaged = opened();
      expect(plain(await damaged.saver.getTuple(expected[900].config))).toEqual(expected[900]);
      expect(plain(await collect(damaged.saver.list({ configurable: { thread_id: 'parts' } })))).toEqual(expected);
    });

    it('lists the whole thread after its newest ten: one read of the journal, the index not written again', {
      timeout: 120_000,
    }, async () => {
      current = await place();
      const writer = opened();
      await runCounter(writer.saver, 'whole', 300);
      await writer.saver.close();
      const expected = await fullRead('whole');

      const lister = opened();
      const ten = await collect(lister.saver.list({ configurable: { thread_id: 'whole' } }, { limit: 10 }));
      expect(plain(ten)).toEqual(expected.slice(0, 10));
      const afterTen = lister.counter.events;
      const indexReadForTen = lister.counter.derivedBytesRead;
      expect(plain(await collect(lister.saver.list({ configurable: { thread_id: 'whole' } })))).toEqual(expected);
      // The journal read once more; of the index, at most its head again and where each older
      // part begins (a read newest first), and it is current, so it is not written again.
      expect(lister.counter.events - afterTen).toBeLessThanOrEqual(expected.length * 2 + 10);
      const indexBytes = (await indexSize(writer.store, writer.saver.sessionIdOf('whole'))) + indexReadForTen;
      expect(lister.counter.derivedBytesRead).toBeLessThanOrEqual(indexBytes);
      expect(lister.counter.derivedWrites).toBe(0);
    });

    it('lists a long thread whole as a full read does: writes to an older checkpoint after newer ones, a message list, filters', {
      timeout: 120_000,
    }, async () => {
      current = await place();
      const writer = opened();
      await runCounter(writer.saver, 'mixed', 400);
      const saved = await fullRead('mixed');
      // A task writes to an old checkpoint after the newer ones were saved: its writes are pending on it.
      await writer.saver.putWrites(saved[350].config, [['note', 'late']], 'late-task');
      await runMessages(writer.saver, 'chat', 300);
      await writer.saver.close();

      for (const threadId of ['mixed', 'chat']) {
        const reader = opened();
        expect(plain(await collect(reader.saver.list({ configurable: { thread_id: threadId } })))).toEqual(
          await fullRead(threadId),
        );
      }
      const expected = await fullRead('mixed');
      expect(expected[350].pendingWrites).toContainEqual(['late-task', 'note', 'late']);
      const thread = { configurable: { thread_id: 'mixed' } };
      const listed = async (config: RunnableConfig, options?: CheckpointListOptions) =>
        plain(await collect(opened().saver.list(config, options)));
      expect(await listed(thread, { before: expected[100].config })).toEqual(expected.slice(101));
      expect(await listed(thread, { limit: 300 })).toEqual(expected.slice(0, 300));
      expect(await listed(thread, { filter: { step: 200 } })).toEqual(
        expected.filter((tuple: CheckpointTuple) => tuple.metadata?.step === 200),
      );
      expect(await listed(expected[5].config)).toEqual([expected[5]]);
      expect(await listed({ configurable: { thread_id: 'mixed', checkpoint_ns: 'another' } })).toEqual([]);
    });

    it('reads a whole list from the end of the journal: the newest checkpoints come before most of it is read, as a read from its start gives them', {
      timeout: 120_000,
    }, async () => {
      current = await place();
      /** A thread listed whole by a new saver: its tuples, the events read when the first came, and in all. */
      const listed = async (threadId: string, options: { newestFirst?: boolean } = {}) => {
        const { saver, counter } = opened(options);
        const tuples: CheckpointTuple[] = [];
        let atFirst = -1;
        for await (const tuple of saver.list({ configurable: { thread_id: threadId } })) {
          if (atFirst === -1) atFirst = counter.events;
          tuples.push(tuple);
        }
        return { tuples: plain(tuples), atFirst, events: counter.events };
      };
      const writer = opened();
      await runCounter(writer.saver, 'long', 1_000);
      // Writes to an old checkpoint after the newer ones were saved, and a message list stored in parts.
      const old = (await listed('long')).tuples[900] as CheckpointTuple;
      await writer.saver.putWrites(old.config, [['note', 'late']], 'late-task');
      await runMessages(writer.saver, 'chat', 400);
      await writer.saver.close();

      /** The thread listed from the journal's end and from its start: the same tuples, read no more. */
      const bothWays = async (threadId: string) => {
        const fromStart = await listed(threadId, { newestFirst: false });
        const fromEnd = await listed(threadId);
        expect(fromEnd.tuples).toEqual(fromStart.tuples);
        expect(fromStart.atFirst).toBe(fromStart.events);
        expect(fromEnd.events).toBeLessThanOrEqual(fromStart.events);
        return { fromStart, fromEnd };
      };
      await bothWays('chat');
      const { fromStart, fromEnd } = await bothWays('long');
      // The newest of the counter's 1,000 checkpoints (about 2,000 events) need only the newest
      // stretch of the index (32 to 159 checkpoints) and a page of the journal at most.
      expect(fromEnd.atFirst).toBeLessThan(fromStart.events / 3);
      expect(fromEnd.tuples[0].checkpoint.channel_values).toMatchObject({ count: 1_000, note: noteText(1_000) });
      expect(fromEnd.tuples[900].pendingWrites).toContainEqual(['late-task', 'note', 'late']);
    });

    it('asks for the next older part of the index while the one before it is on its way, not after its events are read', {
      timeout: 120_000,
    }, async () => {
      current = await place();
      const writer = opened();
      await runCounter(writer.saver, 'parted', 1_000);
      await writer.saver.close();
      const expected = await fullRead('parted');

      // Each older part takes a while to come, as over a network; the head does not.
      const { saver, counter } = opened({ partDelayMs: 20 });
      expect(plain(await collect(saver.list({ configurable: { thread_id: 'parted' } })))).toEqual(expected);
      // 1,000 checkpoints: the head's stretch and six or seven older parts, each asked for while
      // the part before it was still coming (two on their way at once), and none twice.
      expect(counter.partReads).toBeGreaterThanOrEqual(6);
      expect(counter.partReads).toBeLessThanOrEqual(8);
      expect(counter.mostPartsInFlight).toBe(2);
    });

    it('keeps the index of a long thread written without one once a reader read it whole', {
      timeout: 120_000,
    }, async () => {
      current = await place();
      const writer = opened({ derived: false });
      await runCounter(writer.saver, 'older', 300);
      await writer.saver.close();
      const first = opened();
      expect(
        (await first.saver.getTuple({ configurable: { thread_id: 'older' } }))?.checkpoint.channel_values,
      ).toMatchObject({
        count: 300,
      });
      expect(first.counter.events).toBeGreaterThan(600);
      const second = opened();
      expect(
        (await second.saver.getTuple({ configurable: { thread_id: 'older' } }))?.checkpoint.channel_values,
      ).toMatchObject({
        count: 300,
      });
      expect(second.counter.events).toBeLessThanOrEqual(10);
    });

    it('gathers at most a quarter of a long message list from separate records: a new process reads the latest in a bounded number of events', {
      timeout: 120_000,
    }, async () => {
      current = await place();
      const writer = opened();
      await runMessages(writer.saver, 'chat', 400);
      await writer.saver.close();

      const getter = opened();
      const latest = await getter.saver.getTuple({ configurable: { thread_id: 'chat' } });
      const messages = latest?.checkpoint.channel_values.messages as AIMessage[];
      expect(messages.map((message) => message.content)).toEqual([
        'go on',
        ...Array.from({ length: 399 }, (_, index) => `reply ${index + 1}`),
      ]);
      // Two events a step: the records since the list was last stored whole, a quarter of it at most.
      expect(getter.counter.events).toBeLessThanOrEqual((400 / 4) * 2 + 10);
      const expected = await fullRead('chat');
      const lister = opened();
      expect(plain(await collect(lister.saver.list({ configurable: { thread_id: 'chat' } })))).toEqual(expected);

      // A run in another process goes on from the journal, its lists proven extended item by item.
      const next = opened();
      await runMessages(next.saver, 'chat', 600);
      await next.saver.close();
      const reader = opened();
      const after = await reader.saver.getTuple({ configurable: { thread_id: 'chat' } });
      expect(after?.checkpoint.channel_values.messages).toHaveLength(600);
      expect(reader.counter.events).toBeLessThanOrEqual((600 / 4) * 2 + 10);

      // Storing it whole now and then keeps the items stored within five times the list's length.
      let itemsStored = 0;
      for await (const event of current.open().read(reader.saver.sessionIdOf('chat'))) {
        if (event.type !== 'graph-checkpoint-saved') continue;
        const data = event.data as { values: Array<{ items?: unknown[] }> };
        for (const value of data.values) itemsStored += value.items?.length ?? 0;
      }
      expect(itemsStored).toBeGreaterThan(600);
      expect(itemsStored).toBeLessThanOrEqual(600 * 5);
    });

    it('gives the tuples of a full read for every checkpoint: messages, subgraphs, interrupts, pending writes', {
      timeout: 120_000,
    }, async () => {
      current = await place();
      const writer = opened();
      await runConversation(writer.saver, 'talk', 3);
      await writer.saver.close();
      const expected = await fullRead('talk');
      expect(
        new Set(expected.map((tuple: CheckpointTuple) => tuple.config.configurable?.checkpoint_ns)).size,
      ).toBeGreaterThan(1);
      expect(expected.some((tuple: CheckpointTuple) => (tuple.pendingWrites ?? []).length > 0)).toBe(true);

      for (const tuple of expected as CheckpointTuple[]) {
        const reader = opened();
        expect(plain(await reader.saver.getTuple(tuple.config))).toEqual(tuple);
      }
      const lister = opened();
      expect(plain(await collect(lister.saver.list({ configurable: { thread_id: 'talk' } }, { limit: 10 })))).toEqual(
        expected.slice(0, 10),
      );
      const whole = opened();
      expect(plain(await collect(whole.saver.list({ configurable: { thread_id: 'talk' } })))).toEqual(expected);
      // A run that goes on from the index stores what a run from the whole journal stores.
      const next = opened();
      await runConversation(next.saver, 'talk', 1);
      await next.saver.close();
      const reader = opened();
      expect(plain(await reader.saver.getTuple({ configurable: { thread_id: 'talk' } }))).toEqual(
        (await fullRead('talk'))[0],
      );
    });

    it('lists the newest few of any namespace from the newest part of the index, and older ones as a whole read would', {
      timeout: 120_000,
    }, async () => {
      current = await place();
      const writer = opened();
      await runConversation(writer.saver, 'many', 40);
      await writer.saver.close();
      const expected: CheckpointTuple[] = await fullRead('many');
      const namespaces = [...new Set(expected.map((tuple) => tuple.config.configurable?.checkpoint_ns as string))];
      // The main graph's, then one per turn's subgraph, oldest first.
      expect(namespaces.length).toBe(42);
      expect(expected.length).toBeGreaterThan(300);
      // The main graph's first checkpoint is in the oldest part: its answer loads the whole index.
      const first = expected.filter((tuple) => tuple.config.configurable?.checkpoint_ns === '').at(-1)!;
      const whole = opened();
      expect(plain(await whole.saver.getTuple(first.config))).toEqual(plain(first));
      const indexBytes = whole.counter.derivedBytesRead;
      const sessionId = writer.saver.sessionIdOf('many');
      const headBytes = (await writer.store.getDerived?.(sessionId, 'langgraph-index'))?.length;
      expect(headBytes).toBeLessThan(indexBytes / 2);

      const lists = [
        { namespace: undefined, limit: 10 },
        { namespace: '', limit: 3 },
        { namespace: namespaces.at(-1), limit: 5 },
        { namespace: namespaces[1], limit: 2 },
        { namespace: '', limit: 10, before: expected[250]!.config },
      ];
      for (const { namespace, limit, before } of lists) {
        const lister = opened();
        const config = {
          configurable: { thread_id: 'many', ...(namespace === undefined ? {} : { checkpoint_ns: namespace }) },
        };
        const beforeId = before?.configurable?.checkpoint_id;
        const wanted = expected
          .filter((tuple) => namespace === undefined || tuple.config.configurable?.checkpoint_ns === namespace)
          .filter((tuple) => beforeId === undefined || tuple.config.configurable?.checkpoint_id < beforeId)
          .slice(0, limit);
        expect(plain(await collect(lister.saver.list(config, { limit, ...(before ? { before } : {}) })))).toEqual(
          plain(wanted),
        );
        // The newest of the thread or of a recent namespace: from the newest part alone.
        if (namespace !== namespaces[1] && before === undefined)
          expect(lister.counter.derivedBytesRead).toBe(headBytes);
        // An older one: the whole index, as the main graph's first checkpoint needed it.
        else expect(lister.counter.derivedBytesRead).toBe(indexBytes);
        // The index was current: nothing read whole, nothing written again.
        expect(lister.counter.derivedWrites).toBe(0);
      }
      // The latest, its message list begun in checkpoints of the older parts: from the head, the
      // index not read whole or written again (the list's parts are read from their events).
      const getter = opened();
      expect(plain(await getter.saver.getTuple({ configurable: { thread_id: 'many' } }))).toEqual(plain(expected[0]));
      expect([getter.counter.derivedBytesRead, getter.counter.derivedWrites]).toEqual([headBytes, 0]);
    });

    it('reads the whole journal when the index is missing, garbled, or names events the journal does not hold', {
      timeout: 120_000,
    }, async () => {
      current = await place();
      const writer = opened();
      await runCounter(writer.saver, 'kept', 40);
      await writer.saver.close();
      const sessionId = writer.saver.sessionIdOf('kept');
      const index = await writer.store.getDerived?.(sessionId, 'langgraph-index');
      expect(index?.length).toBeGreaterThan(0);

      const check = async (count: number) => {
        const reader = opened();
        const latest = await reader.saver.getTuple({ configurable: { thread_id: 'kept' } });
        expect(latest?.checkpoint.channel_values).toMatchObject({ count, note: noteText(count) });
        const whole = await fullRead('kept');
        expect(plain(await collect(reader.saver.list({ configurable: { thread_id: 'kept' } }, { limit: 10 })))).toEqual(
          whole.slice(0, 10),
        );
        expect(plain(await collect(opened().saver.list({ configurable: { thread_id: 'kept' } })))).toEqual(whole);
      };

      await writer.store.putDerived?.(sessionId, 'langgraph-index', new TextEncoder().encode('{"format":1,"la'));
      await check(40);
      await writer.store.putDerived?.(sessionId, 'langgraph-index', new Uint8Array([0xff, 0x00, 0x7b]));
      await check(40);

      // The thread deleted and written again, shorter: the old index names events that are gone.
      const again = opened();
      await again.saver.deleteThread('kept');
      await runCounter(again.saver, 'kept', 25);
      await again.saver.close();
      await writer.store.putDerived?.(sessionId, 'langgraph-index', index!);
      await check(25);

      // Written again as long as before, with other events at the same seqs.
      const third = opened();
      await third.saver.deleteThread('kept');
      await runCounter(third.saver, 'kept', 40);
      await third.saver.close();
      await writer.store.putDerived?.(sessionId, 'langgraph-index', index!);
      await check(40);

      // Appended to after the index was written, by a writer that kept no index.
      const plainWriter = opened({ derived: false });
      const graph = new StateGraph(SmallState)
        .addNode('step', (state) => ({ count: state.count + 1, note: noteText(state.count + 1) }))
        .addEdge(START, 'step')
        .addEdge('step', END)
        .compile({ checkpointer: plainWriter.saver });
      await graph.invoke({}, { configurable: { thread_id: 'kept' } });
      await plainWriter.saver.close();
      await check(41);

      if (current.cut) {
        const full = opened({ derived: false });
        await collect(full.saver.list({ configurable: { thread_id: 'kept' } }));
        const before = await writer.store.getDerived?.(sessionId, 'langgraph-index');
        await current.cut(sessionId, 40);
        // A repair removes what was derived from the journal; put back, it must still be refused.
        expect(await writer.store.getDerived?.(sessionId, 'langgraph-index')).toBeNull();
        await writer.store.putDerived?.(sessionId, 'langgraph-index', before!);
        const reader = opened();
        const latest = await reader.saver.getTuple({ configurable: { thread_id: 'kept' } });
        const count = latest?.checkpoint.channel_values.count as number;
        expect(count).toBeLessThan(41);
        expect(latest?.checkpoint.channel_values).toMatchObject({ count, note: noteText(count) });
        expect(plain(latest)).toEqual((await fullRead('kept'))[0]);
      }
    });
  });
}

describeIndexedReads('file store', async () => {
  const directory = await mkdtemp(path.join(tmpdir(), 'conclave-langgraph-index-'));
  return {
    open: () => createFsStore({ dir: directory }),
    async cut(sessionId, seq) {
      const store = createFsStore({ dir: directory });
      try {
        // The journal cut inside the record after event `seq`: the repair keeps what comes before.
        const file = path.join(directory, 'sessions', sessionId, 'journal.jsonl');
        const lines = (await readFile(file, 'utf8')).split('\n');
        const keep = lines.findIndex((line) => {
          const match = /"first":(\d+)/.exec(line);
          return match !== null && Number(match[1]) > seq;
        });
        await writeFile(file, `${lines.slice(0, keep).join('\n')}\n${lines[keep]?.slice(0, 40)}`);
        await store.repair(sessionId);
      } finally {
        await store.close();
      }
    },
    cleanup: () => rm(directory, { recursive: true, force: true }),
  };
});

const postgres = findPostgres();
if (postgres.available) {
  let cluster: PostgresCluster | null = null;
  describeIndexedReads(
    'PostgreSQL store',
    async () => {
      if (!cluster) throw new Error('the PostgreSQL cluster did not start');
      const url = cluster.url;
      const schema = `lgindex_${randomBytes(6).toString('hex')}`;
      return {
        open: () => createPostgresStore({ connectionString: url, schema }),
        async cleanup() {
          const pool = new pg.Pool({ connectionString: url, max: 1 });
          try {
            await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
          } finally {
            await pool.end();
          }
        },
      };
    },
    {
      before: async () => {
        cluster = await startPostgresCluster(postgres);
      },
    },
  );
  afterAll(async () => {
    await cluster?.stop();
  });
} else {
  describe.skip(announceSkip(postgres), () => {
    it('needs a PostgreSQL server', () => {});
  });
}
