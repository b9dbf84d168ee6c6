// Pruning a thread: its old checkpoints dropped from the journal, through the store's
// optional `rewrite`. Kept are the newest `keepLast` checkpoints of each namespace and those
// saved after `newerThan`, with their pending writes (and, for checkpoints from before format
// 4, their parent's, where their pending sends live). A kept checkpoint whose channel values
// (or the base of a list stored as a delta) live in a dropped one gets those values written
// into its own record, whole, so every kept checkpoint answers exactly as before; the new
// journal is checked for that before it replaces the old one. Events that are not graph
// events (the session's creation, its runs' stops and recoveries) all stay.
import { hostname } from 'node:os';
import type { Checkpoint } from '@langchain/langgraph-checkpoint';
import { Folder, summarize } from '@resume/core';
import {
  type JournalEvent,
  type JsonValue,
  type RewrittenBatch,
  SessionLockedError,
  type SessionStore,
  UsageError,
} from '@resume/core/spec';
import { CheckpointDataError } from '../errors/checkpoint-data-error.js';
import { ThreadBusyError } from '../errors/thread-busy-error.js';
import { type CheckpointData, checkpointDataSchema, type StoredChannelValue } from './graph-records.js';
import { decodeItem, type ItemCodec } from './item-codec.js';
import { type CheckpointRecord, listItems, ThreadDataProblem, ThreadIndex, type ValueRecord } from './thread-index.js';

export interface PruneOptions {
  /**
   * Keeps the newest this many checkpoints of each namespace: the root graph's, and each
   * subgraph's as long as the graph checkpoint it ran under (its metadata's `parents`) stays.
   */
  keepLast?: number;
  /** Keeps the checkpoints saved after this moment. With `keepLast`, a checkpoint either keeps stays. */
  newerThan?: Date;
  /** Reports what would be dropped without changing anything. */
  dryRun?: boolean;
}

export interface ThreadPruneReport {
  threadId: string;
  sessionId: string;
  dryRun: boolean;
  /** Checkpoints of the thread (every namespace) before and after. */
  checkpointsBefore: number;
  checkpointsAfter: number;
  /** Journal events before and after (graph events and the session's own). */
  eventsBefore: number;
  eventsAfter: number;
  /** The journal's bytes as the store keeps them, before and after (after: null in a dry run). */
  bytesBefore: number | null;
  bytesAfter: number | null;
  /** In a dry run, the bytes of the events that would go (as JSON, before the store's framing). */
  droppedBytes: number;
}

export interface PruneContext {
  store: SessionStore;
  codec: ItemCodec;
  threadId: string;
  sessionId: string;
}

type CheckpointEvent = Extract<JournalEvent, { type: 'graph-checkpoint-saved' }>;

/** Checks the options before anything is read. */
export function checkPruneOptions(options: PruneOptions): void {
  const { keepLast, newerThan } = options;
  if (keepLast === undefined && newerThan === undefined) {
    throw new UsageError('pruneThread needs keepLast, newerThan or both: which checkpoints to keep.', {
      hint: 'For example pruneThread(threadId, { keepLast: 20 }) keeps the 20 newest checkpoints of each namespace.',
    });
  }
  if (keepLast !== undefined && (!Number.isInteger(keepLast) || keepLast < 1)) {
    throw new UsageError(`pruneThread's keepLast must be a whole number of at least 1, not ${String(keepLast)}.`, {
      hint: 'A thread keeps at least its latest checkpoint; use deleteThread to remove a thread.',
    });
  }
  if (newerThan !== undefined && !(newerThan instanceof Date && Number.isFinite(newerThan.getTime()))) {
    throw new UsageError(`pruneThread's newerThan must be a valid Date, not ${String(newerThan)}.`);
  }
}

export async function pruneThreadSession(context: PruneContext, options: PruneOptions): Promise<ThreadPruneReport> {
  checkPruneOptions(options);
  const { store, threadId, sessionId } = context;
  const dryRun = options.dryRun ?? false;
  const rewrite = store.rewrite?.bind(store);
  if (!dryRun && !rewrite) {
    throw new UsageError(
      `The ${store.kind} store at ${store.location} cannot rewrite a journal: threads on it cannot be pruned.`,
      {
        hint: 'The file store and the PostgreSQL store can.',
      },
    );
  }
  const lease = dryRun ? null : await leaseOf(context);
  try {
    const events: JournalEvent[] = [];
    for await (const event of store.read(sessionId)) events.push(event);
    const plan = await planPrune(context, events, options);
    const droppedBytes = events
      .filter((event) => !plan.keptSeqs.has(event.seq))
      .reduce((sum, event) => sum + Buffer.byteLength(JSON.stringify(event)), 0);
    const report: ThreadPruneReport = {
      threadId,
      sessionId,
      dryRun,
      checkpointsBefore: plan.checkpointsBefore,
      checkpointsAfter: plan.checkpointsAfter,
      eventsBefore: events.length,
      eventsAfter: plan.events.length,
      bytesBefore: (await store.getSummary(sessionId))?.bytes ?? null,
      bytesAfter: null,
      droppedBytes,
    };
    if (!lease || !rewrite) return report;
    // Nothing to drop: the journal stays as it is.
    if (plan.events.length === events.length) return { ...report, bytesAfter: report.bytesBefore };
    const rewritten = await rewrite(sessionId, {
      expectedSeq: events.at(-1)?.seq ?? 0,
      epoch: lease.epoch,
      batches: batchesOf(plan.events),
    });
    return { ...report, bytesBefore: rewritten.bytesBefore, bytesAfter: rewritten.bytesAfter };
  } finally {
    await lease?.release();
  }
}

async function leaseOf({ store, threadId, sessionId }: PruneContext) {
  try {
    return await store.acquireLease(sessionId, { holder: { pid: process.pid, host: hostname() } });
  } catch (error) {
    if (!SessionLockedError.isInstance(error)) throw error;
    throw new ThreadBusyError(
      { sessionId, threadId, holder: error.holder, refused: 'it was not pruned; nothing changed' },
      {
        cause: error,
        hint: 'Prune the thread once the run has stopped (at an interrupt or its end).',
      },
    );
  }
}

/** One batch per event, each with the session's summary after it, as the engine appends them. */
function batchesOf(events: JournalEvent[]): RewrittenBatch[] {
  const folder = new Folder();
  return events.map((event) => {
    folder.apply(event);
    return { events: [event], summary: summarize(folder.state) };
  });
}

interface PrunePlan {
  /** The new journal, renumbered. */
  events: JournalEvent[];
  /** Seqs (in the old journal) of the events kept. */
  keptSeqs: Set<number>;
  checkpointsBefore: number;
  checkpointsAfter: number;
}

interface KeptCheckpoint {
  namespace: string;
  record: CheckpointRecord;
  checkpoint: Checkpoint;
}

async function planPrune(context: PruneContext, events: JournalEvent[], options: PruneOptions): Promise<PrunePlan> {
  const index = new ThreadIndex();
  /** The seq of the event each value record came from. */
  const ownerSeq = new Map<ValueRecord, number>();
  /** The seq of the event that saved each checkpoint last (namespace, id). */
  const savedAt = new Map<string, CheckpointEvent>();
  indexed(context, () => {
    for (const event of events) {
      index.apply(event);
      if (event.type !== 'graph-checkpoint-saved') continue;
      savedAt.set(checkpointKey(event.namespace, event.checkpointId), event);
      const record = index.namespace(event.namespace).checkpoints.get(event.checkpointId);
      for (const value of record?.written.values() ?? []) ownerSeq.set(value, event.seq);
    }
  });

  const kept = new Map<string, KeptCheckpoint>();
  let checkpointsBefore = 0;
  // The root graph first: a subgraph's checkpoint stays only while the graph checkpoint it ran under does.
  const namespaces = [...index.namespaces].sort(([left], [right]) => (left === '' ? -1 : right === '' ? 1 : 0));
  for (const [name, namespace] of namespaces) {
    const ids = namespace.idsNewestFirst();
    checkpointsBefore += ids.length;
    for (const [position, id] of ids.entries()) {
      const saved = savedAt.get(checkpointKey(name, id));
      const record = namespace.checkpoints.get(id);
      if (!saved || !record) continue;
      const newest = options.keepLast !== undefined && position < options.keepLast;
      const recent = options.newerThan !== undefined && Date.parse(saved.at) > options.newerThan.getTime();
      if (!newest && !recent) continue;
      if (name !== '') {
        const parents = ((await decoded(context, record.metadata)) as { parents?: Record<string, string> } | null)
          ?.parents;
        const under = parents?.[''];
        if (
          under !== undefined &&
          index.namespaces.get('')?.checkpoints.has(under) &&
          !kept.has(checkpointKey('', under))
        )
          continue;
      }
      const checkpoint = (await decoded(context, record.checkpoint)) as Checkpoint;
      kept.set(checkpointKey(name, id), { namespace: name, record, checkpoint });
    }
  }
  /** Checkpoints whose pending writes stay: the kept ones and the parents of kept ones from before format 4. */
  const writesKept = new Set(kept.keys());
  for (const { namespace, record, checkpoint } of kept.values()) {
    if (checkpoint.v < 4 && record.parentId) writesKept.add(checkpointKey(namespace, record.parentId));
  }
  const keptSeqs = new Set<number>();
  for (const event of events) {
    const keep =
      event.type === 'graph-checkpoint-saved'
        ? kept.has(checkpointKey(event.namespace, event.checkpointId))
        : event.type === 'graph-writes-saved'
          ? writesKept.has(checkpointKey(event.namespace, event.checkpointId))
          : true;
    if (keep) keptSeqs.add(event.seq);
  }

  // Values each kept checkpoint needs from a dropped one are written into its own record, oldest
  // first: a list a kept checkpoint extends from one written whole that way needs nothing more.
  const whole = new Map<number, Map<string, ValueRecord>>();
  const writtenWhole = new Set<ValueRecord>();
  const stays = (value: ValueRecord) => {
    for (const part of chainOf(value)) {
      if (writtenWhole.has(part)) return true;
      if (!keptSeqs.has(ownerSeq.get(part) ?? -1)) return false;
    }
    return true;
  };
  const oldestFirst = [...kept.values()]
    .map((entry) => ({ ...entry, saved: savedAt.get(checkpointKey(entry.namespace, entry.record.id)) }))
    .sort((left, right) => (left.saved?.seq ?? 0) - (right.saved?.seq ?? 0));
  for (const { namespace, record, checkpoint, saved } of oldestFirst) {
    if (!saved) continue;
    const names = index.namespace(namespace);
    const channels = new Set([...Object.keys(checkpoint.channel_versions ?? {}), ...record.written.keys()]);
    for (const channel of channels) {
      const version = checkpoint.channel_versions?.[channel];
      const value =
        version === undefined ? (record.written.get(channel) ?? null) : index.valueAt(names, record, channel, version);
      if (!value || stays(value)) continue;
      let values = whole.get(saved.seq);
      if (!values) {
        values = new Map();
        whole.set(saved.seq, values);
      }
      values.set(channel, value);
      writtenWhole.add(value);
    }
  }

  const renumbered = events
    .filter((event) => keptSeqs.has(event.seq))
    .map((event, position): JournalEvent => {
      const values = whole.get(event.seq);
      const data = values && event.type === 'graph-checkpoint-saved' ? withWholeValues(event, values) : null;
      return { ...event, seq: position + 1, ...(data ? { data } : {}) } as JournalEvent;
    });
  await checkKeptAnswerAlike(context, index, renumbered, kept);
  return { events: renumbered, keptSeqs, checkpointsBefore, checkpointsAfter: kept.size };
}

/** An item of an index built from the whole journal: every record is loaded. */
function loaded<T>(item: T | null): T {
  if (item === null) throw new TypeError('a pruned thread is indexed from its whole journal');
  return item;
}

const checkpointKey = (namespace: string, id: string): string => `${namespace}\u0000${id}`;

/** A value record and the records it extends (a list stored as a delta), newest first. */
function chainOf(value: ValueRecord): ValueRecord[] {
  const chain: ValueRecord[] = [];
  for (let current: ValueRecord | null = value; current; current = current.kind === 'list' ? current.base : null)
    chain.push(current);
  return chain;
}

/** The checkpoint event's data with `values` (each channel's value at that checkpoint) stored whole. */
function withWholeValues(event: CheckpointEvent, values: Map<string, ValueRecord>): JsonValue {
  const data = checkpointDataSchema.parse(event.data) as CheckpointData;
  const stored: StoredChannelValue[] = data.values.filter((value) => !values.has(value.channel));
  for (const value of values.values()) {
    const { channel, version } = value;
    if (value.kind === 'empty') stored.push({ channel, version, empty: true });
    else if (value.kind === 'item') stored.push({ channel, version, item: loaded(value.item).stored });
    else stored.push({ channel, version, items: listItems(value).map((item) => item.stored) });
  }
  return { ...data, values: stored } as unknown as JsonValue;
}

/**
 * Refuses a plan under which a kept checkpoint would answer differently: its parent, checkpoint,
 * metadata, channel values and pending writes are compared as stored, before and after.
 */
async function checkKeptAnswerAlike(
  context: PruneContext,
  before: ThreadIndex,
  events: JournalEvent[],
  kept: Map<string, KeptCheckpoint>,
): Promise<void> {
  const after = new ThreadIndex();
  indexed(context, () => {
    for (const event of events) after.apply(event);
  });
  for (const { namespace, record, checkpoint } of kept.values()) {
    const answer = (index: ThreadIndex) => {
      const names = index.namespace(namespace);
      const found = names.checkpoints.get(record.id);
      if (!found) return null;
      const values = Object.entries(checkpoint.channel_versions ?? {}).map(([channel, version]) => {
        const value = index.valueAt(names, found, channel, version);
        if (!value || value.kind === 'empty') return [channel, null];
        return [channel, value.kind === 'item' ? value.item?.stored : listItems(value).map((item) => item.stored)];
      });
      const writes = [...(names.writes.get(record.id)?.entries() ?? [])].map(([key, write]) => [
        key,
        write.channel,
        write.taskPath,
        write.value?.stored,
      ]);
      return JSON.stringify([found.parentId, found.checkpoint?.stored, found.metadata?.stored, values, writes]);
    };
    if (answer(before) !== answer(after)) {
      throw new CheckpointDataError({
        sessionId: context.sessionId,
        threadId: context.threadId,
        problem: `pruning would change checkpoint ${record.id}${namespace ? ` of namespace ${namespace}` : ''}; nothing was pruned`,
      });
    }
  }
}

function indexed(context: PruneContext, work: () => void): void {
  try {
    work();
  } catch (error) {
    if (!(error instanceof ThreadDataProblem)) throw error;
    throw new CheckpointDataError({ sessionId: context.sessionId, threadId: context.threadId, problem: error.message });
  }
}

async function decoded(context: PruneContext, item: CheckpointRecord['checkpoint']): Promise<unknown> {
  const value = await decodeItem(context.codec, loaded(item));
  if (!value) {
    throw new CheckpointDataError({
      sessionId: context.sessionId,
      threadId: context.threadId,
      problem: `a blob a checkpoint names is missing from ${context.store.location}`,
    });
  }
  return value.value;
}
