// The thread index as the store keeps it (derived data `langgraph-index`, beside the journal):
// per namespace each checkpoint's id, parent, the seq of its event and the channels (with
// versions, and the base version of a list that extends one) it wrote; each pending write's
// task, index, channel, task path and seq; and the last event indexed (seq, type, time,
// checkpoint id). No value is in it: values stay in the journal and are read by seq when a read
// needs them. A new saver trusts it only when the journal still holds that last event (else it
// reads the whole journal, as without one), then applies the events after it.
//   {"format":1,"last":{"seq":…,"type":…,"at":…,"checkpointId":…},
//    "namespaces":[{"name":"","checkpoints":[[id,parentId,seq,[[channel,version,kind,base,count]…]]…],
//                   "writes":[[checkpointId,taskId,index,channel,taskPath,seq]…]}]}
import type { SessionStore } from '@resume/core/spec';
import { type CheckpointEntry, type EventMark, type NamespaceIndex, ThreadIndex } from './thread-index.js';

export const THREAD_INDEX_NAME = 'langgraph-index';
const FORMAT = 1;

type WriteEntry = [string, string, number, string, string, number];
type CheckpointTuple = [string, string | null, number, CheckpointEntry['values']];

function entryOf(namespace: NamespaceIndex, id: string): CheckpointTuple {
  const record = namespace.checkpoints.get(id)!;
  const values: CheckpointEntry['values'] = [];
  for (const value of record.written.values()) {
    if (value.kind === 'list') {
      values.push([value.channel, value.version, 'list', value.base?.version ?? null, value.count]);
    } else values.push([value.channel, value.version, value.kind, null, 0]);
  }
  return [record.id, record.parentId, record.seq, values];
}

/** The index's bytes, ending at the event `last` (the journal's event at `index.lastSeq`). */
export function encodeThreadIndex(index: ThreadIndex, last: EventMark): Uint8Array {
  const namespaces = [...index.namespaces].map(([name, namespace]) => {
    const checkpoints = [...namespace.checkpoints.keys()].map((id) => entryOf(namespace, id));
    // In journal order: a list's base is resolved from the checkpoints before it.
    checkpoints.sort((left, right) => left[2] - right[2]);
    const writes: WriteEntry[] = [];
    for (const [checkpointId, byTask] of namespace.writes) {
      for (const write of byTask.values()) {
        writes.push([checkpointId, write.taskId, write.index, write.channel, write.taskPath, write.seq]);
      }
    }
    return { name, checkpoints, writes };
  });
  return new TextEncoder().encode(JSON.stringify({ format: FORMAT, last, namespaces }));
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

function readCheckpoint(value: unknown, lastSeq: number): CheckpointEntry {
  check(Array.isArray(value) && value.length === 4);
  const [id, parentId, seq, values] = value as unknown[];
  check(typeof id === 'string' && (parentId === null || typeof parentId === 'string'));
  check(isSeq(seq) && seq <= lastSeq && Array.isArray(values));
  for (const written of values as unknown[]) {
    check(Array.isArray(written) && written.length === 5);
    const [channel, version, kind, base, count] = written as unknown[];
    check(typeof channel === 'string' && isVersion(version));
    check(kind === 'empty' || kind === 'item' || kind === 'list');
    check(base === null || isVersion(base));
    check(Number.isSafeInteger(count) && (count as number) >= 0);
  }
  return { id, parentId, seq, values: values as CheckpointEntry['values'] };
}

function readWrite(value: unknown, lastSeq: number): WriteEntry {
  check(Array.isArray(value) && value.length === 6);
  const [checkpointId, taskId, index, channel, taskPath, seq] = value as unknown[];
  check(typeof checkpointId === 'string' && typeof taskId === 'string' && Number.isSafeInteger(index));
  check(typeof channel === 'string' && typeof taskPath === 'string' && isSeq(seq) && seq <= lastSeq);
  return value as WriteEntry;
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
    for (const namespace of namespaces as unknown[]) {
      check(typeof namespace === 'object' && namespace !== null);
      const { name, checkpoints, writes } = namespace as Record<string, unknown>;
      check(typeof name === 'string' && Array.isArray(checkpoints) && Array.isArray(writes));
      index.namespace(name);
      for (const checkpoint of checkpoints) index.addEntry(name, readCheckpoint(checkpoint, mark.seq));
      for (const write of writes) {
        const [checkpointId, taskId, writeIndex, channel, taskPath, seq] = readWrite(write, mark.seq);
        index.addWrite(name, checkpointId, { taskId, index: writeIndex, channel, taskPath, seq, value: null });
      }
    }
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
