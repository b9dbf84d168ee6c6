// ResumeCheckpointSaver: LangGraph.js's BaseCheckpointSaver over any Conclave SessionStore.
// A thread is a session (mode `langgraph`, id derived from the thread_id), every namespace
// of the thread lives in it; `put` and `putWrites` are journal events appended durably
// (fsync'd, or committed, before they resolve). A checkpoint stores only the channels whose
// version changed, and a list that grew stores only its new items, so a thread's bytes grow
// with what changed rather than with its history at every step.
import type { RunnableConfig } from '@langchain/core/runnables';
import {
  BaseCheckpointSaver,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointPendingWrite,
  type CheckpointTuple,
  compareWritesSortKeys,
  ERROR,
  INTERRUPT,
  maxChannelVersion,
  type PendingWrite,
  type SerializerProtocol,
  TASKS,
  WRITES_IDX_MAP,
  writesSortKey,
} from '@langchain/langgraph-checkpoint';
import { createEngine, type Engine, type Session } from '@resume/core';
import {
  type JournalEvent,
  type JsonValue,
  SessionExistsError,
  SessionLockedError,
  SessionNotFoundError,
  type SessionStore,
} from '@resume/core/spec';
import { CheckpointDataError } from '../errors/checkpoint-data-error.js';
import { ThreadBusyError } from '../errors/thread-busy-error.js';
import { ThreadConfigError } from '../errors/thread-config-error.js';
import { GRAPH_DATA_FORMAT, type StoredChannelValue, type StoredWrite } from './graph-records.js';
import {
  decodedNow,
  decodedThrough,
  type EncodedItem,
  encodeItem,
  type ItemCodec,
  type ItemRecord,
  itemKey,
  storeBlobs,
} from './item-codec.js';
import { NewestFirstStretches } from './newest-first.js';
import { encodeThreadIndex, loadThreadIndex, loadThreadStretches, type ThreadStretch } from './persisted-index.js';
import { checkPruneOptions, type PruneOptions, pruneThreadSession, type ThreadPruneReport } from './prune.js';
import {
  type CheckpointRecord,
  listItems,
  markOf,
  type NamespaceIndex,
  OlderPartsProblem,
  StaleIndexProblem,
  sameMark,
  storeWhole,
  ThreadDataProblem,
  ThreadIndex,
  unloadedSeqs,
  type ValueRecord,
  writeKey,
} from './thread-index.js';
import { threadSessionId } from './thread-session-id.js';

export interface ResumeCheckpointSaverOptions {
  /** Where threads are kept: `createFsStore(...)`, `createPostgresStore(...)`, any SessionStore. */
  store: SessionStore;
  /** LangGraph's serializer (default: its JsonPlusSerializer). */
  serde?: SerializerProtocol;
  /** Serialized values larger than this many bytes go to the store's blob API (default 16 KiB). */
  blobThreshold?: number;
  /** Title of a new thread's session (default `LangGraph thread <thread_id>`). */
  title?: (threadId: string) => string;
  /** Recorded with new threads, for `conclave sessions list --workspace`-style filters. */
  workspaceDir?: string;
  /** Crashes in a row without progress before a thread refuses to reopen (the engine's maxRecoveries). */
  maxRecoveries?: number;
  /**
   * A run holds its thread from its first write until it stops at an interrupt or an error, or
   * until this many ms passed without a write (default 1000): then any process may run it.
   */
  leaseIdleMs?: number;
  /**
   * How long a write waits while another process's run holds the thread before it fails with
   * ThreadBusyError (default twice `leaseIdleMs`, the longest a finished run keeps it).
   */
  leaseWaitMs?: number;
}

interface Thread {
  readonly threadId: string;
  readonly sessionId: string;
  index: ThreadIndex;
  /**
   * Whether a run read the thread through this saver since its last refused write: a write is
   * then refused when another process saved checkpoints the run did not read.
   */
  read: boolean;
  /** The newest checkpoint another process saved after the run read the thread: its writes are refused until it reads again. */
  overtakenBy: string | null;
  /** The run's writer session while a run of this saver writes the thread (it holds the lease). */
  session: Session | null;
  /** Gives the lease up once the run wrote nothing for `leaseIdleMs`. */
  idle: NodeJS.Timeout | null;
  /** Counts writes, so a release planned before a write does not end the run that wrote. */
  writes: number;
  /** Writes to one thread run one after another, each durable before the next starts. */
  queue: Promise<unknown>;
  /**
   * The elements of the list each channel last held when this saver stored it, by namespace
   * and channel: the next step that only appended to it serializes the new elements alone.
   */
  lists: Map<string, { record: ValueRecord; elements: unknown[] }>;
}

const DEFAULT_BLOB_THRESHOLD = 16 * 1024;
/** Seqs this close together are read as one range (the events between are few and small). */
const RANGE_GAP = 16;
/** A list of more checkpoints than this, on an index not loaded yet, reads the whole journal once. */
const WHOLE_READ_FROM = 256;
const DEFAULT_LEASE_IDLE_MS = 1000;
/** How often a write waiting for another process's run asks for the thread again. */
const LEASE_POLL_MS = 20;
const RUN_STOPPED = 'the run stopped; the thread continues with its thread_id';

function threadIdOf(config: RunnableConfig, operation: string): string {
  const threadId = config.configurable?.thread_id;
  if (typeof threadId === 'number') return String(threadId);
  if (typeof threadId !== 'string' || threadId.length === 0) throw new ThreadConfigError(operation, 'thread_id');
  return threadId;
}

const listKey = (namespace: string, channel: string): string => `${namespace}\u0000${channel}`;

/** The report on a thread that has no session: nothing to prune. */
function pruneNothing(context: { threadId: string; sessionId: string }, options: PruneOptions): ThreadPruneReport {
  checkPruneOptions(options);
  return {
    threadId: context.threadId,
    sessionId: context.sessionId,
    dryRun: options.dryRun ?? false,
    checkpointsBefore: 0,
    checkpointsAfter: 0,
    eventsBefore: 0,
    eventsAfter: 0,
    bytesBefore: null,
    bytesAfter: null,
    droppedBytes: 0,
  };
}

function namespaceOf(config: RunnableConfig): string {
  const namespace = config.configurable?.checkpoint_ns;
  return typeof namespace === 'string' ? namespace : '';
}

/**
 * A list stored as `base` followed by `appended`: only the new items, naming the version they
 * extend, or, when `storeWhole` says so, the whole list made of the base's stored items (loaded
 * first) and the new ones, serialized once each.
 */
function extendedList(
  channel: string,
  version: Checkpoint['channel_versions'][string],
  base: Extract<ValueRecord, { kind: 'list' }>,
  appended: EncodedItem[],
): StoredChannelValue {
  const items = appended.map((item) => item.stored);
  if (!storeWhole(base, base.length + items.length)) return { channel, version, items, base: base.version };
  return { channel, version, items: [...listItems(base).map((item) => item.stored), ...items] };
}

export class ResumeCheckpointSaver extends BaseCheckpointSaver {
  readonly store: SessionStore;
  readonly #engine: Engine;
  readonly #codec: ItemCodec;
  readonly #threads = new Map<string, Thread>();
  readonly #options: ResumeCheckpointSaverOptions;
  readonly #leaseIdleMs: number;
  readonly #leaseWaitMs: number;
  #closed = false;

  constructor(options: ResumeCheckpointSaverOptions) {
    super(options.serde);
    this.store = options.store;
    this.#options = options;
    this.#engine = createEngine({ store: options.store });
    this.#leaseIdleMs = options.leaseIdleMs ?? DEFAULT_LEASE_IDLE_MS;
    this.#leaseWaitMs = options.leaseWaitMs ?? 2 * this.#leaseIdleMs;
    this.#codec = {
      serde: this.serde,
      store: options.store,
      blobThreshold: options.blobThreshold ?? DEFAULT_BLOB_THRESHOLD,
    };
  }

  /** The session that holds a thread (for `conclave sessions show <id>`). */
  sessionIdOf(threadId: string): string {
    return threadSessionId(threadId);
  }

  // ---- reads ---------------------------------------------------------------

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    // LangGraph asks without a thread to learn there is nothing to resume.
    if (config.configurable?.thread_id === undefined) return undefined;
    const threadId = threadIdOf(config, 'getTuple');
    // The newest part of the persisted index answers the latest and recent ones; older parts load when needed.
    const thread = await this.#readable(threadId, true);
    if (!thread) return undefined;
    return this.#fresh(thread, async () => {
      const namespace = thread.index.namespaces.get(namespaceOf(config));
      if (!namespace) return undefined;
      const wanted = config.configurable?.checkpoint_id;
      const newest = namespace.idsNewestFirst()[0];
      if (
        thread.index.incomplete &&
        !(typeof wanted === 'string' && wanted.length > 0) &&
        newest !== namespace.newestId
      )
        throw new OlderPartsProblem('the newest checkpoint is in an older part');
      const id = typeof wanted === 'string' && wanted.length > 0 ? wanted : newest;
      const record = id === undefined ? undefined : namespace.checkpoints.get(id);
      if (!record && thread.index.incomplete) throw new OlderPartsProblem(`checkpoint ${id} is in an older part`);
      if (!record) return undefined;
      await this.#prepare(thread, namespace, [record]);
      return this.#tuple(thread, namespace, record, await this.#decode(thread, record.metadata));
    });
  }

  async *list(config: RunnableConfig, options: CheckpointListOptions = {}): AsyncGenerator<CheckpointTuple> {
    const { filter, before } = options;
    let limit = options.limit;
    const threadIds =
      config.configurable?.thread_id !== undefined ? [threadIdOf(config, 'list')] : await this.#allThreadIds();
    const wantedNamespace = config.configurable?.checkpoint_ns;
    const wantedId = config.configurable?.checkpoint_id;
    const beforeId = before?.configurable?.checkpoint_id;
    const wanted = (id: string) =>
      !(typeof wantedId === 'string' && wantedId.length > 0 && id !== wantedId) &&
      !(typeof beforeId === 'string' && id >= beforeId);
    const matches = (metadata: CheckpointMetadata) =>
      !filter || Object.entries(filter).every(([key, value]) => (metadata as Record<string, unknown>)[key] === value);
    for (const threadId of threadIds) {
      // A few unfiltered ones may come from the newest part of the persisted index alone; many
      // are read from the whole journal, newest first where the index allows it, else at once.
      const whole = limit === undefined || limit > WHOLE_READ_FROM;
      const thread = await this.#readable(threadId, whole || !filter);
      if (!thread) continue;
      const newestFirst: { given: string | null; done: boolean } = { given: null, done: false };
      if (whole && thread.index.partial && !thread.session) {
        const stream = this.#newestFirst(thread, wantedNamespace, wanted, matches, newestFirst);
        for await (const tuple of stream) {
          if (limit !== undefined) {
            if (limit <= 0) return;
            limit -= 1;
          }
          yield tuple;
        }
        if (newestFirst.done) continue;
      }
      // What a read newest first gave is not given again: the rest are older.
      const { given } = newestFirst;
      const left = (id: string) => wanted(id) && (given === null || id < given);
      if (whole && thread.index.partial) await this.#loadWhole(thread);
      for (const name of [...thread.index.namespaces.keys()]) {
        if (typeof wantedNamespace === 'string' && name !== wantedNamespace) continue;
        if (thread.index.incomplete && !this.#newestLoaded(thread.index.namespaces.get(name), left, limit))
          await this.#loadOlderParts(thread);
        const candidates = (thread.index.namespaces.get(name)?.idsNewestFirst() ?? []).filter(left);
        let chunk = Math.max(limit ?? 0, 8);
        for (let start = 0; start < candidates.length; start += chunk, chunk = Math.min(chunk * 2, 1024)) {
          const chunkIds = candidates.slice(start, start + chunk);
          const tuples = await this.#fresh(thread, async () => {
            const namespace = thread.index.namespaces.get(name);
            if (!namespace) return [];
            const records = chunkIds.flatMap((id) => namespace.checkpoints.get(id) ?? []);
            await this.#prepare(thread, namespace, records);
            const found: CheckpointTuple[] = [];
            for (const record of records) {
              if (limit !== undefined && found.length >= limit) break;
              const metadata = (await this.#decode(thread, record.metadata)) as CheckpointMetadata;
              if (!matches(metadata)) continue;
              found.push(await this.#tuple(thread, namespace, record, metadata));
            }
            return found;
          });
          for (const tuple of tuples) {
            if (limit !== undefined) {
              if (limit <= 0) return;
              limit -= 1;
            }
            yield tuple;
          }
          if (limit !== undefined && limit <= 0) return;
        }
      }
    }
  }

  /**
   * The thread's checkpoints newest first, read from the journal's end a stretch of the persisted
   * index at a time (newest-first.ts): a whole list holds a stretch of the thread at once, not the
   * thread. `progress.given` is the id of the last tuple given and `progress.done` whether every
   * one was; a thread or an index that cannot be read that way (no stretches persisted, graph
   * events after the index's last one, a stretch that needs more than its frontier) stops it
   * early, without an error, for the caller to give the rest from a read of the whole journal.
   */
  async *#newestFirst(
    thread: Thread,
    wantedNamespace: unknown,
    wanted: (id: string) => boolean,
    matches: (metadata: CheckpointMetadata) => boolean,
    progress: { given: string | null; done: boolean },
  ): AsyncGenerator<CheckpointTuple> {
    const readNewestFirst = this.store.readNewestFirst?.bind(this.store);
    const persisted = readNewestFirst ? await loadThreadStretches(this.store, thread.sessionId) : null;
    if (!readNewestFirst || !persisted) return;
    if (typeof wantedNamespace === 'string' && wantedNamespace !== persisted.namespace) return;
    const stretches = new NewestFirstStretches(persisted);
    const batches = readNewestFirst(thread.sessionId)[Symbol.asyncIterator]();
    try {
      for (;;) {
        const batch = await batches.next();
        if (batch.done) await stretches.end();
        else if (!(await stretches.take(batch.value))) return;
        for (const stretch of stretches.ready()) {
          for (const [id, tuple] of await this.#stretchTuples(thread, stretch, persisted.namespace, wanted, matches)) {
            progress.given = id;
            yield tuple;
          }
        }
        if (batch.done) break;
      }
      progress.done = stretches.done;
    } catch (error) {
      const readsWhole =
        error instanceof StaleIndexProblem || error instanceof OlderPartsProblem || error instanceof ThreadDataProblem;
      if (!readsWhole) throw error;
    } finally {
      await batches.return?.();
    }
  }

  /** The tuples of one stretch's checkpoints that a list wants, newest first, with their ids. */
  async #stretchTuples(
    thread: Thread,
    stretch: ThreadStretch,
    name: string,
    wanted: (id: string) => boolean,
    matches: (metadata: CheckpointMetadata) => boolean,
  ): Promise<Array<[string, CheckpointTuple]>> {
    const namespace = stretch.index.namespaces.get(name);
    if (!namespace) return [];
    const view: Thread = { ...thread, index: stretch.index };
    const tuples: Array<[string, CheckpointTuple]> = [];
    for (const id of namespace.idsNewestFirst()) {
      const record = namespace.checkpoints.get(id);
      if (!record || !wanted(id)) continue;
      const metadata = (await this.#decode(view, record.metadata)) as CheckpointMetadata;
      if (matches(metadata)) tuples.push([id, await this.#tuple(view, namespace, record, metadata)]);
    }
    return tuples;
  }

  /**
   * Whether the loaded part of an index holds the namespace's `limit` newest checkpoints that
   * `wanted` keeps: those above every id of the parts not loaded.
   */
  #newestLoaded(namespace: NamespaceIndex | undefined, wanted: (id: string) => boolean, limit = Infinity): boolean {
    const older = namespace?.olderNewestId;
    if (!namespace || older === undefined) return false;
    let found = 0;
    for (const id of namespace.idsNewestFirst()) {
      if (found >= limit || (older !== null && id <= older)) break;
      if (wanted(id)) found += 1;
    }
    return found >= limit || older === null;
  }

  // ---- writes --------------------------------------------------------------

  async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<RunnableConfig> {
    const threadId = threadIdOf(config, 'put');
    const namespaceName = namespaceOf(config);
    const parentId = typeof config.configurable?.checkpoint_id === 'string' ? config.configurable.checkpoint_id : null;
    const lists = new Map<string, unknown[]>();
    const remember = (thread: Thread) => {
      const written = thread.index.namespace(namespaceName).checkpoints.get(checkpoint.id)?.written;
      for (const [channel, elements] of lists) {
        const record = written?.get(channel);
        if (record) thread.lists.set(listKey(namespaceName, channel), { record, elements });
      }
    };
    await this.#write(threadId, false, remember, async (thread, session) => {
      const namespace = thread.index.namespace(namespaceName);
      const parent = parentId ? namespace.checkpoints.get(parentId) : undefined;
      const { channel_values: channelValues, ...rest } = checkpoint;
      const encoded: EncodedItem[] = [];
      const values: StoredChannelValue[] = [];
      for (const [channel, version] of Object.entries(newVersions)) {
        if (!Object.hasOwn(channelValues, channel)) {
          values.push({ channel, version, empty: true });
          continue;
        }
        const base = parent ? thread.index.resolve(namespace, parent, channel) : null;
        const value = channelValues[channel];
        const known = thread.lists.get(listKey(namespaceName, channel));
        // The stored items of a list's base are read first: to compare it item by item, or to store it whole.
        if (Array.isArray(value) && base?.kind === 'list') await this.#loadValues(thread, [base]);
        values.push(
          await this.#encodeValue(
            channel,
            version,
            value,
            base,
            known?.record === base ? known.elements : null,
            encoded,
          ),
        );
        // A copy: a reducer that pushes onto the same array must not change what was stored.
        if (Array.isArray(value)) lists.set(channel, value.slice());
      }
      const checkpointItem = await encodeItem(this.#codec, { ...rest, channel_values: {} });
      const metadataItem = await encodeItem(this.#codec, metadata);
      encoded.push(checkpointItem, metadataItem);
      await storeBlobs(this.#codec, encoded);
      const data = {
        format: GRAPH_DATA_FORMAT,
        checkpoint: checkpointItem.stored,
        metadata: metadataItem.stored,
        values,
      };
      return session.record({
        type: 'graph-checkpoint-saved',
        namespace: namespaceName,
        checkpointId: checkpoint.id,
        parentCheckpointId: parentId,
        data: data as unknown as JsonValue,
      });
    });
    return { configurable: { thread_id: threadId, checkpoint_ns: namespaceName, checkpoint_id: checkpoint.id } };
  }

  async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath = ''): Promise<void> {
    const threadId = threadIdOf(config, 'putWrites');
    const checkpointId = config.configurable?.checkpoint_id;
    if (typeof checkpointId !== 'string' || checkpointId.length === 0) {
      throw new ThreadConfigError('putWrites', 'checkpoint_id');
    }
    const namespaceName = namespaceOf(config);
    // A task that was interrupted or failed ends the run: the thread is free for the next one.
    const stopsRun = writes.some(([channel]) => channel === INTERRUPT || channel === ERROR);
    await this.#write(threadId, stopsRun, null, async (thread, session) => {
      const existing = thread.index.namespace(namespaceName).writes.get(checkpointId);
      const stored: StoredWrite[] = [];
      const encoded: EncodedItem[] = [];
      for (const [position, [channel, value]] of writes.entries()) {
        const index = WRITES_IDX_MAP[channel] || position;
        // A regular write is kept once per (task, index): a retried task does not overwrite it.
        if (index >= 0 && existing?.has(writeKey(taskId, index))) continue;
        const item = await encodeItem(this.#codec, value);
        encoded.push(item);
        stored.push({ index, channel, value: item.stored });
      }
      if (stored.length === 0) return null;
      await storeBlobs(this.#codec, encoded);
      return session.record({
        type: 'graph-writes-saved',
        namespace: namespaceName,
        checkpointId,
        taskId,
        data: { format: GRAPH_DATA_FORMAT, taskPath, writes: stored } as unknown as JsonValue,
      });
    });
  }

  async deleteThread(threadId: string): Promise<void> {
    const thread = this.#threads.get(threadId);
    if (thread) {
      this.#cancelRelease(thread);
      await thread.queue.catch(() => undefined);
      this.#threads.delete(threadId);
      const session = thread.session;
      thread.session = null;
      await session?.close();
    }
    const sessionId = threadSessionId(threadId);
    const header = await this.store.getHeader(sessionId);
    if (header && this.#ownsHeader(header.options, threadId)) await this.#engine.deleteSession(sessionId);
  }

  /**
   * Drops a thread's old checkpoints: keeps the newest `keepLast` of each namespace and those
   * saved after `newerThan` (either keeps one), with everything they need; every kept checkpoint
   * answers as before and the thread goes on. A run of this saver that holds the thread gives it
   * up first; another process's run makes it fail with ThreadBusyError, changing nothing.
   * `dryRun` reports what would go. Needs a store that can rewrite a journal (file, PostgreSQL).
   */
  async pruneThread(threadId: string, options: PruneOptions): Promise<ThreadPruneReport> {
    const thread = this.#thread(threadId);
    this.#cancelRelease(thread);
    await thread.queue.catch(() => undefined);
    const context = { store: this.store, codec: this.#codec, threadId, sessionId: thread.sessionId };
    const header = await this.store.getHeader(thread.sessionId);
    if (!header) {
      this.#threads.delete(threadId);
      return pruneNothing(context, options);
    }
    this.#checkOwner(thread, header.options);
    if (!options.dryRun) await this.#release(thread, RUN_STOPPED);
    const prune = pruneThreadSession(context, options);
    thread.queue = prune.catch(() => undefined);
    const report = await prune;
    if (!options.dryRun) {
      // The journal was renumbered: what this saver indexed of it is read again.
      thread.index = new ThreadIndex();
      thread.lists.clear();
      thread.read = false;
      thread.overtakenBy = null;
    }
    return report;
  }

  /** `pruneThread` for every thread of the store, one after another. */
  async pruneThreads(options: PruneOptions): Promise<ThreadPruneReport[]> {
    const reports: ThreadPruneReport[] = [];
    for (const threadId of await this.#allThreadIds()) reports.push(await this.pruneThread(threadId, options));
    return reports;
  }

  /**
   * Releases every thread a run of this saver still holds (each is journaled as stopped
   * cleanly, so a later run does not count it as a crash). The store stays open: close it yourself.
   */
  async close(): Promise<void> {
    this.#closed = true;
    const threads = [...this.#threads.values()];
    this.#threads.clear();
    for (const thread of threads) {
      this.#cancelRelease(thread);
      await thread.queue.catch(() => undefined);
      await this.#release(thread, 'the checkpointer closed; the thread continues with its thread_id');
    }
  }

  // ---- internals -----------------------------------------------------------

  /**
   * A channel's value as stored with a checkpoint. A list that extends `base` stores only its new
   * elements: `baseElements` (what this saver stored `base` from) proves the prefix unchanged
   * without serializing it again (LangGraph's reducers make a new list, and replace an element
   * by a new one); without them the prefix is compared serialized.
   */
  async #encodeValue(
    channel: string,
    version: Checkpoint['channel_versions'][string],
    value: unknown,
    base: ValueRecord | null,
    baseElements: unknown[] | null,
    encoded: EncodedItem[],
  ): Promise<StoredChannelValue> {
    if (!Array.isArray(value)) {
      const item = await encodeItem(this.#codec, value);
      encoded.push(item);
      return { channel, version, item: item.stored };
    }
    if (
      base?.kind === 'list' &&
      baseElements !== null &&
      baseElements.length <= value.length &&
      baseElements.every((element, position) => element === value[position])
    ) {
      const appended: EncodedItem[] = [];
      for (const element of value.slice(baseElements.length)) appended.push(await encodeItem(this.#codec, element));
      encoded.push(...appended);
      return extendedList(channel, version, base, appended);
    }
    const items: EncodedItem[] = [];
    for (const element of value) items.push(await encodeItem(this.#codec, element));
    if (base?.kind === 'list' && base.length <= items.length) {
      const before = listItems(base);
      if (before.every((item, position) => itemKey(item) === items[position]?.key)) {
        const appended = items.slice(before.length);
        encoded.push(...appended);
        return extendedList(channel, version, base, appended);
      }
    }
    encoded.push(...items);
    return { channel, version, items: items.map((item) => item.stored) };
  }

  async #tuple(
    thread: Thread,
    namespace: NamespaceIndex,
    record: CheckpointRecord,
    metadata: unknown,
  ): Promise<CheckpointTuple> {
    const checkpoint = (await this.#decode(thread, record.checkpoint)) as Checkpoint;
    const channelValues: Record<string, unknown> = {};
    const values = Object.entries(checkpoint.channel_versions ?? {}).map(
      ([channel, version]) => [channel, thread.index.valueAt(namespace, record, channel, version)] as const,
    );
    // A partial index (loaded from the persisted one) reads the values it lacks; a whole one holds them.
    if (thread.index.partial)
      await this.#loadValues(
        thread,
        values.map(([, value]) => value),
      );
    for (const [channel, value] of values) {
      if (!value || value.kind === 'empty') continue;
      channelValues[channel] = await this.#decodeValue(thread, value);
    }
    checkpoint.channel_values = channelValues;
    if (checkpoint.v < 4 && record.parentId)
      await this.#migratePendingSends(thread, namespace, record.parentId, checkpoint);
    const tuple: CheckpointTuple = {
      config: {
        configurable: { thread_id: thread.threadId, checkpoint_ns: record.namespace, checkpoint_id: record.id },
      },
      checkpoint,
      metadata: metadata as CheckpointMetadata,
      pendingWrites: await this.#pendingWrites(thread, namespace, record.id),
    };
    if (record.parentId) {
      tuple.parentConfig = {
        configurable: { thread_id: thread.threadId, checkpoint_ns: record.namespace, checkpoint_id: record.parentId },
      };
    }
    return tuple;
  }

  /** Checkpoints from before format 4 kept pending sends as writes of their parent. */
  async #migratePendingSends(thread: Thread, namespace: NamespaceIndex, parentId: string, checkpoint: Checkpoint) {
    const sends = (await this.#pendingWrites(thread, namespace, parentId))
      .filter(([, channel]) => channel === TASKS)
      .map(([, , value]) => value);
    checkpoint.channel_values[TASKS] = sends;
    const versions = Object.values(checkpoint.channel_versions);
    checkpoint.channel_versions[TASKS] =
      versions.length > 0 ? maxChannelVersion(...versions) : this.getNextVersion(undefined);
  }

  async #pendingWrites(
    thread: Thread,
    namespace: NamespaceIndex,
    checkpointId: string,
  ): Promise<CheckpointPendingWrite[]> {
    if (thread.index.incomplete && !namespace.checkpoints.has(checkpointId))
      throw new OlderPartsProblem(`checkpoint ${checkpointId} is in an older part`);
    const writes = [...(namespace.writes.get(checkpointId)?.values() ?? [])];
    if (writes.length === 0) return [];
    if (thread.index.partial)
      await this.#load(thread, new Set(writes.flatMap((write) => (write.value === null ? [write.seq] : []))));
    const sorted = writes
      .map((write) => ({ write, key: writesSortKey(write.taskPath, write.taskId, write.index) }))
      .sort((left, right) => compareWritesSortKeys(left.key, right.key));
    const pending: CheckpointPendingWrite[] = [];
    for (const { write } of sorted)
      pending.push([write.taskId, write.channel, await this.#decode(thread, write.value)]);
    return pending;
  }

  #decodeValue(thread: Thread, record: Exclude<ValueRecord, { kind: 'empty' }>): unknown | Promise<unknown> {
    if (record.kind === 'item') return this.#decode(thread, record.item);
    return this.#decodeList(thread, record);
  }

  async #decodeList(thread: Thread, record: Extract<ValueRecord, { kind: 'list' }>): Promise<unknown[]> {
    const values: unknown[] = [];
    for (const item of listItems(record)) values.push(await this.#decode(thread, item));
    return values;
  }

  /**
   * An item's value, or a promise of it (callers await either): plain JSON, most values, is given
   * at once, without a promise for each of the tens of thousands a whole list decodes.
   */
  #decode(thread: Thread, item: ItemRecord | null): unknown | Promise<unknown> {
    // Every read loads the records it decodes first (#prepare, #loadValues).
    if (item === null) throw new StaleIndexProblem('a record was decoded before it was read');
    const now = decodedNow(this.#codec, item);
    return now ? now.value : this.#decodeThrough(thread, item);
  }

  /** An item's value through the serializer (or the blob store). */
  async #decodeThrough(thread: Thread, item: ItemRecord): Promise<unknown> {
    const decoded = await decodedThrough(this.#codec, item);
    if (!decoded) {
      const hash = 'blob' in item.stored ? item.stored.blob : '?';
      throw new CheckpointDataError({
        sessionId: thread.sessionId,
        threadId: thread.threadId,
        problem: `blob ${hash} is missing from ${this.store.location}`,
      });
    }
    return decoded.value;
  }

  #ownsHeader(options: Record<string, unknown>, threadId: string): boolean {
    return options.threadId === threadId;
  }

  #thread(threadId: string): Thread {
    let thread = this.#threads.get(threadId);
    if (!thread) {
      thread = {
        threadId,
        sessionId: threadSessionId(threadId),
        index: new ThreadIndex(),
        read: false,
        overtakenBy: null,
        session: null,
        idle: null,
        writes: 0,
        queue: Promise.resolve(),
        lists: new Map(),
      };
      this.#threads.set(threadId, thread);
    }
    return thread;
  }

  /**
   * The thread brought up to date with the journal, or null when it has no session; with
   * `newestOnly`, its persisted index's older parts may stay unread.
   */
  async #readable(threadId: string, newestOnly = false): Promise<Thread | null> {
    const thread = this.#thread(threadId);
    // While a run of this saver holds the thread, the index is the journal: it appended every event itself.
    if (thread.session) return thread;
    const header = await this.store.getHeader(thread.sessionId);
    if (!header) {
      // Deleted meanwhile, or never written: what the index held is gone.
      if (thread.index.lastSeq > 0) thread.index = new ThreadIndex();
      thread.read = true;
      thread.overtakenBy = null;
      return null;
    }
    this.#checkOwner(thread, header.options);
    await this.#catchUp(thread, true, false, newestOnly);
    thread.read = true;
    thread.overtakenBy = null;
    return thread;
  }

  #checkOwner(thread: Thread, options: Record<string, unknown>): void {
    if (!this.#ownsHeader(options, thread.threadId)) {
      throw new CheckpointDataError({
        sessionId: thread.sessionId,
        threadId: thread.threadId,
        problem: `the session holds thread ${JSON.stringify(options.threadId ?? null)}, not this one`,
      });
    }
  }

  /**
   * Applies the journal's events after the index's last one; returns the checkpoint id of the
   * last graph event it applied (null: none; asked of a persisted index only with `newestWanted`).
   * An index that has read nothing yet starts from the persisted one when the journal still holds
   * the event it ends at.
   */
  async #catchUp(thread: Thread, persisted = true, newestWanted = false, newestOnly = false): Promise<string | null> {
    const newest = await this.#catchUpFrom(thread, persisted, newestWanted, newestOnly);
    if (thread.index.incomplete && !newestOnly) await this.#loadOlderParts(thread);
    return newest;
  }

  /** Loads the persisted index whole (its older parts too) and applies the journal's events after it. */
  async #loadOlderParts(thread: Thread): Promise<void> {
    thread.index = new ThreadIndex();
    thread.lists.clear();
    await this.#catchUpFrom(thread, true, false, false);
  }

  async #catchUpFrom(
    thread: Thread,
    persisted: boolean,
    newestWanted: boolean,
    newestOnly: boolean,
  ): Promise<string | null> {
    if (persisted && thread.index.lastSeq === 0) {
      const stored = await loadThreadIndex(this.store, thread.sessionId, newestOnly);
      const mark = stored?.lastMark;
      const events = stored && mark ? await this.#readEvents(thread, mark.seq) : [];
      if (stored && mark && events[0] && sameMark(markOf(events[0]), mark)) {
        thread.index = stored;
        const newest = newestWanted ? stored.newestGraphEvent() : null;
        events.shift();
        return (await this.#applyTail(thread, events)) ?? newest;
      }
    }
    const fromStart = thread.index.lastSeq === 0;
    // From the event indexed last, which must still be there: a prune renumbers the journal.
    const mark = thread.index.lastMark?.seq === thread.index.lastSeq ? thread.index.lastMark : null;
    const events = await this.#readEvents(thread, mark ? mark.seq : thread.index.lastSeq + 1);
    if (mark) {
      const first = events.shift();
      if (!first || !sameMark(markOf(first), mark)) {
        thread.index = new ThreadIndex();
        thread.lists.clear();
        return this.#catchUpFrom(thread, false, newestWanted, false);
      }
    }
    const newest = await this.#applyTail(thread, events);
    // A long thread read whole (written before its index was kept, or its index refused): kept for the next process.
    if (fromStart && events.length >= WHOLE_READ_FROM && !thread.session)
      await this.#persist(thread).catch(() => undefined);
    return newest;
  }

  /** #applyAll; an event that needs the index's older parts has it loaded whole, and applied again. */
  async #applyTail(thread: Thread, events: JournalEvent[]): Promise<string | null> {
    try {
      return this.#applyAll(thread, events);
    } catch (error) {
      if (!(error instanceof OlderPartsProblem)) throw error;
      await this.#loadOlderParts(thread);
      return events.reduce<string | null>(
        (newest, event) =>
          event.type === 'graph-checkpoint-saved' || event.type === 'graph-writes-saved' ? event.checkpointId : newest,
        null,
      );
    }
  }

  async #readEvents(thread: Thread, fromSeq: number, toSeq?: number): Promise<JournalEvent[]> {
    const events: JournalEvent[] = [];
    const range = toSeq === undefined ? { fromSeq } : { fromSeq, toSeq };
    for await (const event of this.store.read(thread.sessionId, range)) events.push(event);
    return events;
  }

  /** Drops the index and builds it again from the whole journal (every record loaded). */
  async #rebuild(thread: Thread): Promise<void> {
    thread.index = new ThreadIndex();
    thread.lists.clear();
    await this.#catchUp(thread, false);
  }

  /**
   * Reads the whole journal into an index of its own, once: quicker than loading every older part
   * of the persisted index and then filling its records from the same read. Its parts stay named
   * while the journal still holds the event it was checked against (nothing is written again);
   * otherwise a long thread's index is kept again, as a rebuild keeps it. Events a run of this
   * saver appended meanwhile are read too (while the journal has more) before the new index takes
   * the old one's place.
   */
  async #loadWhole(thread: Thread): Promise<void> {
    const persisted = thread.index;
    const index = new ThreadIndex();
    const events = await this.#readEvents(thread, 1);
    this.#applyAll(thread, events, index);
    for (let more = events; more.length > 0 && thread.index.lastSeq > index.lastSeq; ) {
      more = await this.#readEvents(thread, index.lastSeq + 1);
      this.#applyAll(thread, more, index);
    }
    const mark = persisted.lastMark;
    const atMark = mark ? events[mark.seq - 1] : undefined;
    const current = mark !== null && atMark !== undefined && sameMark(markOf(atMark), mark);
    if (current) {
      index.parts = persisted.parts;
      index.partsEnd = persisted.partsEnd;
      index.partsChunked = persisted.partsChunked;
    }
    thread.index = index;
    thread.lists.clear();
    if (!current && events.length >= WHOLE_READ_FROM && !thread.session)
      await this.#persist(thread).catch(() => undefined);
  }

  /**
   * Runs a read over the index; when the journal no longer holds what a persisted index named
   * (cut, repaired or rewritten since it was written), rebuilds the index and runs it again.
   */
  async #fresh<T>(thread: Thread, read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (error) {
      if (error instanceof OlderPartsProblem && thread.index.incomplete) {
        await this.#loadOlderParts(thread);
        return this.#fresh(thread, read);
      }
      if (!(error instanceof StaleIndexProblem) || !thread.index.partial) throw error;
    }
    await this.#rebuild(thread);
    return read();
  }

  /** Reads the events holding what `records` (and their values and pending writes) need. */
  async #prepare(thread: Thread, namespace: NamespaceIndex, records: CheckpointRecord[]): Promise<void> {
    if (!thread.index.partial) return;
    await this.#load(thread, new Set(records.flatMap((record) => (record.checkpoint === null ? [record.seq] : []))));
    const seqs = new Set<number>();
    for (const record of records) {
      for (const channel of namespace.channels) unloadedSeqs(thread.index.resolve(namespace, record, channel), seqs);
      for (const write of namespace.writes.get(record.id)?.values() ?? [])
        if (write.value === null) seqs.add(write.seq);
    }
    await this.#load(thread, seqs);
  }

  async #loadValues(thread: Thread, values: Array<ValueRecord | null>): Promise<void> {
    const seqs = new Set<number>();
    for (const value of values) unloadedSeqs(value, seqs);
    await this.#load(thread, seqs);
  }

  /** Reads the events at `seqs` (nearby ones as one range) into the index's records. */
  async #load(thread: Thread, seqs: Set<number>): Promise<void> {
    if (seqs.size === 0) return;
    const sorted = [...seqs].sort((left, right) => left - right);
    const index = thread.index;
    let start = 0;
    while (start < sorted.length) {
      let end = start;
      while (end + 1 < sorted.length && sorted[end + 1]! - sorted[end]! <= RANGE_GAP) end += 1;
      const events = await this.#readEvents(thread, sorted[start]!, sorted[end]!);
      let found = 0;
      for (const event of events) {
        if (!seqs.has(event.seq)) continue;
        index.fill(event);
        found += 1;
      }
      if (found !== end - start + 1)
        throw new StaleIndexProblem('the journal no longer holds every event the index names');
      start = end + 1;
    }
  }

  /** Keeps the thread's index beside its journal, for the next process's first read (best effort). */
  async #persist(thread: Thread): Promise<void> {
    if (!this.store.putDerived || thread.index.lastSeq === 0 || thread.index.incomplete) return;
    const index = thread.index;
    let mark = index.lastMark?.seq === index.lastSeq ? index.lastMark : null;
    if (!mark) {
      const [last] = await this.#readEvents(thread, index.lastSeq, index.lastSeq);
      if (last?.seq !== index.lastSeq) return;
      mark = markOf(last);
      index.lastMark = mark;
    }
    // Older parts first (each written once), then the head that names them.
    const { entries, parts, from } = encodeThreadIndex(index, mark);
    for (const { name, bytes } of entries) await this.store.putDerived(thread.sessionId, name, bytes);
    index.parts = parts;
    index.partsEnd = from;
  }

  /** Applies `events` to the thread's index; returns the checkpoint id of the last graph event among them. */
  #applyAll(thread: Thread, events: Iterable<JournalEvent>, index = thread.index): string | null {
    let newest: string | null = null;
    try {
      for (const event of events) {
        index.apply(event);
        if (event.type === 'graph-checkpoint-saved' || event.type === 'graph-writes-saved') newest = event.checkpointId;
      }
      return newest;
    } catch (error) {
      if (!(error instanceof ThreadDataProblem)) throw error;
      throw new CheckpointDataError({ sessionId: thread.sessionId, threadId: thread.threadId, problem: error.message });
    }
  }

  /**
   * Runs `write` on the thread's writer session after the thread's earlier writes, then commits
   * it (and calls `applied` once the index holds it). The run keeps the thread until it stops
   * (`stopsRun`), fails, or goes idle.
   */
  async #write(
    threadId: string,
    stopsRun: boolean,
    applied: ((thread: Thread) => void) | null,
    write: (thread: Thread, session: Session) => Promise<JournalEvent | null>,
  ): Promise<void> {
    if (this.#closed)
      throw new ThreadConfigError('put', 'thread_id', { hint: 'This checkpointer was closed; create a new one.' });
    const thread = this.#thread(threadId);
    const run = thread.queue.then(async () => {
      thread.writes += 1;
      this.#cancelRelease(thread);
      try {
        const session = await this.#writer(thread);
        const event = await write(thread, session);
        if (event) {
          await session.flush();
          this.#applyAll(thread, [event]);
          applied?.(thread);
        }
      } catch (error) {
        await this.#release(thread, RUN_STOPPED).catch(() => undefined);
        throw error;
      }
      if (stopsRun) await this.#release(thread, RUN_STOPPED);
      else this.#releaseWhenIdle(thread);
    });
    thread.queue = run.catch(() => undefined);
    await run;
  }

  #releaseWhenIdle(thread: Thread): void {
    const writes = thread.writes;
    thread.idle = setTimeout(() => {
      thread.idle = null;
      thread.queue = thread.queue
        .then(() => (thread.writes === writes ? this.#release(thread, RUN_STOPPED) : undefined))
        .catch(() => undefined);
    }, this.#leaseIdleMs);
    // A worker that has nothing else to do may exit: a lease left behind by a dead process is taken over.
    thread.idle.unref();
  }

  #cancelRelease(thread: Thread): void {
    if (thread.idle) clearTimeout(thread.idle);
    thread.idle = null;
  }

  /** Ends the run's hold on the thread: journals a clean stop and gives the lease up. */
  async #release(thread: Thread, reason: string): Promise<void> {
    this.#cancelRelease(thread);
    const session = thread.session;
    if (!session) return;
    thread.session = null;
    await session.interrupt(reason).catch(() => undefined);
    // The stop journaled just now is read (and checked) by the next catch-up, with anything after it.
    await session.close();
    await this.#persist(thread).catch(() => undefined);
  }

  /**
   * The run's writer session: the thread's lease, taken by the run's first write (waiting up to
   * `leaseWaitMs` for another process's run to give it up), and the journal read up to its end.
   * A run that read the thread before another process saved checkpoints to it is refused.
   */
  async #writer(thread: Thread): Promise<Session> {
    if (thread.session) return thread.session;
    this.#refuseOvertaken(thread);
    const session = await this.#leased(thread);
    try {
      const foreign = await this.#catchUp(thread, true, thread.read);
      // Refused until the thread is read again, so no later write of this run slips in.
      if (thread.read && foreign !== null) thread.overtakenBy = foreign;
      this.#refuseOvertaken(thread);
    } catch (error) {
      thread.session = session;
      await this.#release(thread, RUN_STOPPED);
      throw error;
    }
    thread.session = session;
    return session;
  }

  #refuseOvertaken(thread: Thread): void {
    if (thread.overtakenBy === null) return;
    throw new ThreadBusyError({
      sessionId: thread.sessionId,
      threadId: thread.threadId,
      checkpointId: thread.overtakenBy,
    });
  }

  async #leased(thread: Thread): Promise<Session> {
    const deadline = performance.now() + this.#leaseWaitMs;
    for (;;) {
      // Held by another process's run, or (null) being created by another process.
      let locked: SessionLockedError | null = null;
      try {
        const session = await this.#openOrCreate(thread);
        if (session) return session;
      } catch (error) {
        if (!SessionLockedError.isInstance(error)) throw error;
        locked = error;
      }
      if (performance.now() >= deadline) {
        const { sessionId, threadId } = thread;
        throw locked
          ? new ThreadBusyError({ sessionId, threadId, holder: locked.holder }, { cause: locked })
          : new ThreadBusyError({ sessionId, threadId });
      }
      await new Promise((resolve) => setTimeout(resolve, LEASE_POLL_MS));
    }
  }

  /** The thread's session, opened or created; null while another process is creating it. */
  async #openOrCreate(thread: Thread): Promise<Session | null> {
    const header = await this.store.getHeader(thread.sessionId);
    if (header) {
      this.#checkOwner(thread, header.options);
      const opened = await this.#openCreated(thread);
      if (opened) return opened;
      // A header without its first event: its creator is still writing it, or died doing so.
    }
    try {
      return await this.#engine.createSession({
        id: thread.sessionId,
        title: this.#options.title?.(thread.threadId) ?? `LangGraph thread ${thread.threadId}`,
        mode: 'langgraph',
        options: { threadId: thread.threadId },
        replay: 'keyed',
        ...(this.#options.workspaceDir === undefined ? {} : { workspaceDir: this.#options.workspaceDir }),
      });
    } catch (error) {
      // Another process created it first: open it like any existing thread.
      if (!SessionExistsError.isInstance(error)) throw error;
      return this.#openCreated(thread);
    }
  }

  /** #open; null when the session has no first event yet (or is gone): another process is creating it. */
  async #openCreated(thread: Thread): Promise<Session | null> {
    try {
      return await this.#open(thread);
    } catch (error) {
      if (SessionNotFoundError.isInstance(error)) return null;
      throw error;
    }
  }

  #open(thread: Thread): Promise<Session> {
    return this.#engine.openSession(thread.sessionId, {
      replay: 'keyed',
      ...(this.#options.maxRecoveries === undefined ? {} : { maxRecoveries: this.#options.maxRecoveries }),
    });
  }

  async #allThreadIds(): Promise<string[]> {
    const summaries = await this.#engine.listSessions({ mode: ['langgraph'] });
    const threadIds: string[] = [];
    for (const summary of summaries) {
      const header = await this.store.getHeader(summary.id);
      const threadId = header?.options.threadId;
      if (typeof threadId === 'string') threadIds.push(threadId);
    }
    return threadIds;
  }
}
