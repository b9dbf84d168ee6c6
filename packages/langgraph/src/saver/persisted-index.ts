// The thread index as the store keeps it (derived data `langgraph-index`, beside the journal):
// per namespace each checkpoint's id, parent, the seq of its event and the channels (with
// versions, and the base version of a list that extends one) it wrote; each pending write's
// task, index, channel, task path and seq; and the last event indexed (seq, type, time,
// checkpoint id). No value is in it: values stay in the journal and are read by seq when a read
// needs them. A new saver trusts it only when the journal still holds that last event (else it
// reads the whole journal, as without one), then applies the events after it.
// Compact, since a new process reads all of it before its first answer: per namespace a table of
// channel names, checkpoints in journal order (a parent is the position of its entry), and one
// entry per writes event:
//   {"format":1,"last":{"seq":…,"type":…,"at":…,"checkpointId":…},
//    "namespaces":[{"name":"","channels":["messages",…],
//      "checkpoints":[[id,parent,seq,[channel,version,kind,base,count,…]]…],
//      "writes":[[checkpoint,taskId,taskPath,seq,[index,channel,…]]…]}]}
// `parent` and a write's `checkpoint` are the position of the checkpoint's entry (-1 for none),
// or its id when the index does not hold it; `channel` is a position in `channels`; `kind` is
// 0 emptied, 1 one value, 2 a list (`base`: the version it extends, or null; `count`: its own items).
import type { SessionStore } from '@resume/core/spec';
import {
  type CheckpointEntry,
  type EventMark,
  type NamespaceIndex,
  ThreadIndex,
  type WriteRecord,
} from './thread-index.js';

export const THREAD_INDEX_NAME = 'langgraph-index';
const FORMAT = 1;

const KINDS = ['empty', 'item', 'list'] as const;

/** The index's bytes, ending at the event `last` (the journal's event at `index.lastSeq`). */
export function encodeThreadIndex(index: ThreadIndex, last: EventMark): Uint8Array {
  const namespaces = [...index.namespaces].map(([name, namespace]) => encodeNamespace(name, namespace));
  return new TextEncoder().encode(JSON.stringify({ format: FORMAT, last, namespaces }));
}

function encodeNamespace(name: string, namespace: NamespaceIndex) {
  const channels = [...namespace.channels];
  const channelAt = new Map(channels.map((channel, position) => [channel, position]));
  // In journal order: a list's base is resolved from the checkpoints before it.
  const records = [...namespace.checkpoints.values()].sort((left, right) => left.seq - right.seq);
  const positions = new Map(records.map((record, position) => [record.id, position]));
  const reference = (id: string | null) => (id === null ? -1 : (positions.get(id) ?? id));
  const checkpoints = records.map((record) => {
    const values: unknown[] = [];
    for (const value of record.written.values()) {
      const list = value.kind === 'list';
      values.push(
        channelAt.get(value.channel),
        value.version,
        KINDS.indexOf(value.kind),
        list ? (value.base?.version ?? null) : null,
        list ? value.count : 0,
      );
    }
    return [record.id, reference(record.parentId), record.seq, values];
  });
  // One entry per writes event (its task, task path and seq), in journal order.
  const events = new Map<number, { checkpoint: string | number; write: WriteRecord; writes: unknown[] }>();
  for (const [checkpointId, byTask] of namespace.writes) {
    for (const write of byTask.values()) {
      let event = events.get(write.seq);
      if (!event) {
        event = { checkpoint: reference(checkpointId), write, writes: [] };
        events.set(write.seq, event);
      }
      event.writes.push(write.index, write.channel);
    }
  }
  const writes = [...events.values()]
    .sort((left, right) => left.write.seq - right.write.seq)
    .map(({ checkpoint, write, writes: pairs }) => [checkpoint, write.taskId, write.taskPath, write.seq, pairs]);
  return { name, channels, checkpoints, writes };
}

class Garbled extends Error {}

function check(condition: boolean): asserts condition {
  if (!condition) throw new Garbled();
}

const isVersion = (value: unknown): boolean => typeof value === 'number' || typeof value === 'string';
const isSeq = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) > 0;

function readMark(value: unknown): EventMark {
  check(typeof value === 'object' && value !== null);
  const { seq, type, at, checkpointId } = value as Record<string, unknown>;
  check(isSeq(seq) && typeof type === 'string' && typeof at === 'string');
  check(checkpointId === null || typeof checkpointId === 'string');
  return { seq, type, at, checkpointId };
}

/** A checkpoint named by position in the namespace's entries (-1: none), or by id. */
function checkpointReference(value: unknown, ids: string[]): string | null {
  if (value === -1) return null;
  if (typeof value === 'string') return value;
  check(Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) < ids.length);
  return ids[value as number]!;
}

function readNamespace(index: ThreadIndex, value: unknown, lastSeq: number): void {
  check(typeof value === 'object' && value !== null);
  const { name, channels, checkpoints, writes } = value as Record<string, unknown>;
  check(typeof name === 'string' && Array.isArray(channels) && Array.isArray(checkpoints) && Array.isArray(writes));
  check(channels.every((channel) => typeof channel === 'string'));
  index.namespace(name);
  const ids: string[] = [];
  for (const checkpoint of checkpoints as unknown[]) {
    check(Array.isArray(checkpoint) && checkpoint.length === 4);
    const [id, parent, seq, flat] = checkpoint as unknown[];
    check(typeof id === 'string' && isSeq(seq) && seq <= lastSeq && Array.isArray(flat) && flat.length % 5 === 0);
    const values: CheckpointEntry['values'] = [];
    for (let at = 0; at < flat.length; at += 5) {
      const [channel, version, kind, base, count] = flat.slice(at, at + 5) as unknown[];
      check(
        typeof channels[channel as number] === 'string' && isVersion(version) && KINDS[kind as number] !== undefined,
      );
      check((base === null || isVersion(base)) && Number.isSafeInteger(count) && (count as number) >= 0);
      values.push([
        channels[channel as number] as string,
        version as CheckpointEntry['values'][number][1],
        KINDS[kind as number]!,
        base as CheckpointEntry['values'][number][3],
        count as number,
      ]);
    }
    index.addEntry(name, { id, parentId: checkpointReference(parent, ids), seq, values });
    ids.push(id);
  }
  for (const entry of writes as unknown[]) {
    check(Array.isArray(entry) && entry.length === 5);
    const [checkpoint, taskId, taskPath, seq, pairs] = entry as unknown[];
    const checkpointId = checkpointReference(checkpoint, ids);
    check(checkpointId !== null && typeof taskId === 'string' && typeof taskPath === 'string');
    check(isSeq(seq) && seq <= lastSeq && Array.isArray(pairs) && pairs.length % 2 === 0);
    for (let at = 0; at < pairs.length; at += 2) {
      const [writeIndex, channel] = [pairs[at], pairs[at + 1]];
      check(Number.isSafeInteger(writeIndex) && typeof channel === 'string');
      index.addWrite(name, checkpointId, {
        taskId,
        index: writeIndex as number,
        channel,
        taskPath,
        seq,
        value: null,
      });
    }
  }
}

/**
 * The index the bytes hold, its records not loaded, or null when they are not one (garbled,
 * another format, or naming a list base they do not hold): the journal is read instead.
 */
export function decodeThreadIndex(bytes: Uint8Array): ThreadIndex | null {
  try {
    const parsed: unknown = JSON.parse(new TextDecoder().decode(bytes));
    check(typeof parsed === 'object' && parsed !== null);
    const { format, last, namespaces } = parsed as Record<string, unknown>;
    check(format === FORMAT && Array.isArray(namespaces));
    const mark = readMark(last);
    const index = new ThreadIndex();
    for (const namespace of namespaces as unknown[]) readNamespace(index, namespace, mark.seq);
    index.lastSeq = mark.seq;
    index.lastMark = mark;
    index.partial = true;
    return index;
  } catch {
    // Garbled, or a list extends a version it does not hold (ThreadDataProblem): not an index to trust.
    return null;
  }
}

/** The thread's persisted index, or null when the store keeps none (or it is not readable). */
export async function loadThreadIndex(store: SessionStore, sessionId: string): Promise<ThreadIndex | null> {
  if (!store.getDerived) return null;
  const bytes = await store.getDerived(sessionId, THREAD_INDEX_NAME).catch(() => null);
  return bytes ? decodeThreadIndex(bytes) : null;
}
