// The thread index as the store keeps it (derived data `langgraph-index` and its older parts
// `langgraph-index.<hash>`, beside the journal): per namespace each checkpoint's id, parent, the
// seq of its event and the channels (with versions, and the base version of a list that extends
// one) it wrote; each pending write's task, index, channel, task path and seq; and the last event
// indexed (seq, type, time, checkpoint id). No value is in it: values stay in the journal and are
// read by seq when a read needs them. A new saver trusts it only when the journal still holds that
// last event (else it reads the whole journal, as without one), then applies the events after it.
// In parts, so a new process's first getTuple or list({ limit }) reads only the newest: the head
// `langgraph-index` holds the graph events from `from` on (the newest PART_KEEP to PART_KEEP +
// PART_SIZE - 1 checkpoints and the writes after them), every namespace's channel table and
// newest id, the newest id its older parts hold (`older`), and per checkpoint before `from` that
// a checkpoint of the head names as parent, the value each channel had at it (`frontier`). Each
// older part holds the graph events of PART_SIZE checkpoints, is named
// by a hash of its bytes and written once: checkpoints are only appended until a prune, which
// drops every derived entry. Compact: per namespace a table of channel names, checkpoints in
// journal order (a parent is the position of its entry in the same part), and one entry per
// writes event:
//   {"format":2,"last":{"seq":…,"type":…,"at":…,"checkpointId":…},"parts":[name…],"from":seq,
//    "namespaces":[{"name":"","channels":["messages",…],"newest":id,
//      "checkpoints":[[id,parent,seq,[channel,version,kind,base,count,…]]…],
//      "writes":[[checkpoint,taskId,taskPath,seq,[index,channel,…]]…],
//      "older":id,"frontier":[[id,[channel,value]…]…],"ordered":true}],"chunked":true}
// and an older part: {"format":2,"from":seq,"frontiers":[[name,frontier]…],
//    "namespaces":[{"name":…,"channels":…,"checkpoints":…,"writes":…}]}.
// A part's `from` is the seq its events begin at and its `frontiers` what the head's `frontier` is
// for the head, so a read of the journal from its end indexes each part's events alone
// (newest-first.ts); `ordered` says a namespace's checkpoint ids grow with their seqs, and
// `chunked` that every part has `from` and `frontiers` (parts written before they had are kept).
// `parent` and a write's `checkpoint` are the position of the checkpoint's entry (-1 for none),
// or its id when the part does not hold it; `channel` is a position in `channels`; `kind` is
// 0 emptied, 1 one value, 2 a list (`base`: the version it extends, or null; `count`: its own
// items). A frontier value is null (none), [0,version] (emptied), [1,version,seq] (one value) or
// [2,[version,seq,count]…] (a list, its parts newest first).
import { createHash } from 'node:crypto';
import type { SessionStore } from '@resume/core/spec';
import {
  type CheckpointEntry,
  type CheckpointRecord,
  type EventMark,
  type NamespaceIndex,
  ThreadIndex,
  type ValueRecord,
  type WriteRecord,
} from './thread-index.js';

export const THREAD_INDEX_NAME = 'langgraph-index';
const FORMAT = 2;
/** Checkpoints in each older part of the index. */
export const PART_SIZE = 128;
/** The newest checkpoints the head always holds. */
export const PART_KEEP = 32;

const KINDS = ['empty', 'item', 'list'] as const;

const encode = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

/** The derived entries to write for `index` (older parts first, the head last) and the parts it then has. */
export function encodeThreadIndex(
  index: ThreadIndex,
  last: EventMark,
): { entries: Array<{ name: string; bytes: Uint8Array }>; parts: string[]; from: number } {
  const parts = [...index.parts];
  let from = index.partsEnd;
  const entries: Array<{ name: string; bytes: Uint8Array }> = [];
  // The checkpoints not in an older part yet, in journal order: full parts of the oldest are sealed.
  const open = [...index.namespaces.values()]
    .flatMap((namespace) => [...namespace.checkpoints.values()].filter((record) => record.seq >= from))
    .map((record) => record.seq)
    .sort((left, right) => left - right);
  for (let at = PART_SIZE; open.length - at >= PART_KEEP; at += PART_SIZE) {
    const to = open[at]!;
    // Where the part begins and each channel's value there, per namespace: a read of the part's
    // events alone, newest part first, needs no older part. Before `namespaces`, to be read without them.
    const frontiers = [...index.namespaces].map(([name, namespace]) => [
      name,
      encodeFrontier(index, namespace, from, to),
    ]);
    const bytes = encode({ format: FORMAT, from, frontiers, namespaces: encodeNamespaces(index, from, to) });
    const name = `${THREAD_INDEX_NAME}.${createHash('sha256').update(bytes).digest('hex').slice(0, 32)}`;
    entries.push({ name, bytes });
    parts.push(name);
    from = to;
  }
  const namespaces = encodeNamespaces(index, from, Number.POSITIVE_INFINITY).map((namespace) => {
    const own = index.namespaces.get(namespace.name)!;
    return {
      ...namespace,
      newest: own.idsNewestFirst()[0] ?? null,
      older: own.idsNewestFirst().find((id) => own.checkpoints.get(id)!.seq < from) ?? null,
      frontier: encodeFrontier(index, own, from, Number.POSITIVE_INFINITY),
      ordered: idsFollowSeqs(own),
    };
  });
  // `chunked`: every part says where it begins and holds its frontier (parts written before they did, not).
  const head = { format: FORMAT, last, parts, from, namespaces, chunked: index.partsChunked };
  entries.push({ name: THREAD_INDEX_NAME, bytes: encode(head) });
  return { entries, parts, from };
}

function encodeNamespaces(index: ThreadIndex, from: number, to: number) {
  return [...index.namespaces].map(([name, namespace]) => encodeNamespace(name, namespace, from, to));
}

/** The namespace's graph events with seq in [from, to). */
function encodeNamespace(name: string, namespace: NamespaceIndex, from: number, to: number) {
  const channels = [...namespace.channels];
  const channelAt = new Map(channels.map((channel, position) => [channel, position]));
  const within = (seq: number) => seq >= from && seq < to;
  // In journal order: a list's base is resolved from the checkpoints before it.
  const records = [...namespace.checkpoints.values()]
    .filter((record) => within(record.seq))
    .sort((left, right) => left.seq - right.seq);
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
      if (!within(write.seq)) continue;
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

/**
 * Whether the namespace's checkpoints, in the order the index holds them (the journal's), have
 * growing seqs and growing ids (as one writer's clock gives them): then the journal read from its
 * end gives them newest first, as a list wants them.
 */
function idsFollowSeqs(namespace: NamespaceIndex): boolean {
  let before: CheckpointRecord | null = null;
  for (const record of namespace.checkpoints.values()) {
    if (before && (before.seq >= record.seq || before.id >= record.id)) return false;
    before = record;
  }
  return true;
}

/** Per checkpoint before `from` that one in [from, to) names as parent: each channel's value at it. */
function encodeFrontier(index: ThreadIndex, namespace: NamespaceIndex, from: number, to: number) {
  const frontier: unknown[] = [];
  const seen = new Set<string>();
  for (const record of namespace.checkpoints.values()) {
    if (record.seq < from || record.seq >= to || record.parentId === null || seen.has(record.parentId)) continue;
    const parent = namespace.checkpoints.get(record.parentId);
    if (!parent || parent.seq >= from) continue;
    seen.add(parent.id);
    const values: unknown[] = [];
    for (const channel of namespace.channels)
      values.push([channel, frontierValue(index.resolve(namespace, parent, channel))]);
    frontier.push([parent.id, values]);
  }
  return frontier;
}

function frontierValue(value: ValueRecord | null): unknown {
  if (value === null) return null;
  if (value.kind === 'empty') return [0, value.version];
  if (value.kind === 'item') return [1, value.version, value.seq];
  const parts: unknown[] = [];
  for (let part: ValueRecord | null = value; part?.kind === 'list'; part = part.base)
    parts.push([part.version, part.seq, part.count]);
  return [2, parts];
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

/** A checkpoint named by position in the part's entries (-1: none), or by id. */
function checkpointReference(value: unknown, ids: string[]): string | null {
  if (value === -1) return null;
  if (typeof value === 'string') return value;
  check(Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) < ids.length);
  return ids[value as number]!;
}

function readNamespace(index: ThreadIndex, value: unknown, lastSeq: number): NamespaceIndex {
  check(typeof value === 'object' && value !== null);
  const { name, channels, checkpoints, writes } = value as Record<string, unknown>;
  check(typeof name === 'string' && Array.isArray(channels) && Array.isArray(checkpoints) && Array.isArray(writes));
  check(channels.every((channel) => typeof channel === 'string'));
  const namespace = index.namespace(name);
  for (const channel of channels as string[]) namespace.channels.add(channel);
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
  return namespace;
}

/** Each channel's value at the checkpoints before the head that it names as parents. */
function readFrontier(index: ThreadIndex, namespace: NamespaceIndex, value: unknown, lastSeq: number): void {
  check(Array.isArray(value));
  for (const edge of value) {
    check(Array.isArray(edge) && edge.length === 2 && typeof edge[0] === 'string' && Array.isArray(edge[1]));
    const values = new Map<string, ValueRecord | null>();
    for (const pair of edge[1] as unknown[]) {
      check(Array.isArray(pair) && pair.length === 2 && typeof pair[0] === 'string');
      const channelValue = readFrontierValue(pair[0], pair[1], lastSeq);
      index.addFrontierValue(channelValue);
      values.set(pair[0], channelValue);
    }
    namespace.frontier.set(edge[0], values);
  }
}

function readFrontierValue(channel: string, value: unknown, lastSeq: number): ValueRecord | null {
  if (value === null) return null;
  check(Array.isArray(value));
  const [kind, version, seq] = value as unknown[];
  if (kind === 0 && isVersion(version)) return { kind: 'empty', channel, version: version as string };
  if (kind === 1 && isVersion(version) && isSeq(seq) && seq <= lastSeq)
    return { kind: 'item', channel, version: version as string, seq, item: null };
  check(kind === 2 && Array.isArray(version) && version.length > 0);
  let base: ValueRecord | null = null;
  let length = 0;
  for (const part of [...(version as unknown[])].reverse()) {
    check(Array.isArray(part) && part.length === 3);
    const [partVersion, partSeq, count] = part as unknown[];
    check(isVersion(partVersion) && isSeq(partSeq) && partSeq <= lastSeq && Number.isSafeInteger(count));
    length += count as number;
    base = {
      kind: 'list',
      channel,
      version: partVersion as string,
      seq: partSeq,
      base,
      items: null,
      count: count as number,
      length,
    };
  }
  return base;
}

interface Head {
  mark: EventMark;
  parts: string[];
  from: number;
  namespaces: unknown[];
  chunked: boolean;
}

function readHead(bytes: Uint8Array): Head {
  const parsed: unknown = JSON.parse(new TextDecoder().decode(bytes));
  check(typeof parsed === 'object' && parsed !== null);
  const { format, last, parts, from, namespaces, chunked } = parsed as Record<string, unknown>;
  check(format === FORMAT && Array.isArray(namespaces) && Array.isArray(parts));
  check(parts.every((part) => typeof part === 'string' && part.startsWith(`${THREAD_INDEX_NAME}.`)));
  check(Number.isSafeInteger(from) && (from as number) >= 0);
  return {
    mark: readMark(last),
    parts: parts as string[],
    from: from as number,
    namespaces,
    chunked: chunked === true || parts.length === 0,
  };
}

function startIndex(head: Head, incomplete: boolean): ThreadIndex {
  const index = new ThreadIndex();
  index.lastSeq = head.mark.seq;
  index.lastMark = head.mark;
  index.partial = true;
  index.incomplete = incomplete;
  index.parts = head.parts;
  index.partsEnd = head.from;
  index.partsChunked = head.chunked;
  return index;
}

/** The head alone: its newest checkpoints, older ones named by the frontier. */
function decodeHead(head: Head): ThreadIndex {
  const index = startIndex(head, head.parts.length > 0);
  for (const value of head.namespaces) {
    check(typeof value === 'object' && value !== null);
    const { name, frontier, newest, older } = value as Record<string, unknown>;
    check(typeof name === 'string' && (newest === null || typeof newest === 'string'));
    check(older === undefined || older === null || typeof older === 'string');
    const namespace = index.namespace(name);
    namespace.newestId = newest as string | null;
    namespace.olderNewestId = older as string | null | undefined;
    readFrontier(index, namespace, frontier, head.mark.seq);
    readNamespace(index, value, head.mark.seq);
  }
  return index;
}

/** Every part, oldest first, then the head. */
function decodeWhole(head: Head, parts: Uint8Array[]): ThreadIndex {
  const index = startIndex(head, false);
  for (const bytes of parts) {
    const parsed: unknown = JSON.parse(new TextDecoder().decode(bytes));
    check(typeof parsed === 'object' && parsed !== null);
    const { format, namespaces } = parsed as Record<string, unknown>;
    check(format === FORMAT && Array.isArray(namespaces));
    for (const namespace of namespaces) readNamespace(index, namespace, head.mark.seq);
  }
  for (const namespace of head.namespaces) readNamespace(index, namespace, head.mark.seq);
  return index;
}

/** Whether a part's bytes are the ones its name (a hash of them) names. */
const isPart = (name: string, bytes: Uint8Array): boolean =>
  name === `${THREAD_INDEX_NAME}.${createHash('sha256').update(bytes).digest('hex').slice(0, 32)}`;

/** The persisted index's head, and how to read its parts; null when the store keeps none, or it is garbled. */
async function persistedHead(
  store: SessionStore,
  sessionId: string,
): Promise<{ head: Head; getDerived: (sessionId: string, name: string) => Promise<Uint8Array | null> } | null> {
  if (!store.getDerived) return null;
  const getDerived = store.getDerived.bind(store);
  const bytes = await getDerived(sessionId, THREAD_INDEX_NAME).catch(() => null);
  if (!bytes) return null;
  try {
    return { head: readHead(bytes), getDerived };
  } catch {
    return null;
  }
}

/**
 * The thread's persisted index, its records not loaded: with `newestOnly` its head alone when
 * it has older parts (`incomplete`), else all of it. Null when the store keeps none, or it is
 * not one (garbled, another format, a part missing or not the one named, or naming a list base
 * it does not hold): the journal is read instead.
 */
export async function loadThreadIndex(
  store: SessionStore,
  sessionId: string,
  newestOnly = false,
): Promise<ThreadIndex | null> {
  const persisted = await persistedHead(store, sessionId);
  if (!persisted) return null;
  const { head, getDerived } = persisted;
  try {
    if (newestOnly) {
      try {
        return decodeHead(head);
      } catch {
        // A head that needs its older parts even for its newest checkpoint: all of it is read.
      }
    }
    const parts: Uint8Array[] = [];
    for (const name of head.parts) {
      const part = await getDerived(sessionId, name).catch(() => null);
      check(part !== null && isPart(name, part));
      parts.push(part);
    }
    return decodeWhole(head, parts);
  } catch {
    // Garbled, or a list extends a version it does not hold (ThreadDataProblem): not an index to trust.
    return null;
  }
}

/**
 * One stretch of a thread's graph events, to read by itself: from `from` on, up to where the
 * newer stretch begins. `index` holds none of its events yet (`lastSeq` is the seq before
 * `from`), only the frontier: each channel's value at the checkpoints before `from` that its
 * checkpoints name as parents, so applying its events in seq order needs no older one.
 */
export interface ThreadStretch {
  from: number;
  index: ThreadIndex;
}

const namespacesMember = new TextEncoder().encode(',"namespaces":');

/**
 * A part's members before its namespaces (`format`, `from`, `frontiers`), parsed without them: in
 * JSON text a quote is never unescaped inside a string, so the first `,"namespaces":` is the member.
 */
function partHead(bytes: Uint8Array): Record<string, unknown> {
  const at = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf(namespacesMember);
  check(at > 0);
  const parsed: unknown = JSON.parse(`${new TextDecoder().decode(bytes.subarray(0, at))}}`);
  check(typeof parsed === 'object' && parsed !== null);
  return parsed as Record<string, unknown>;
}

/**
 * The persisted index as stretches newest first, for a read of a one-namespace thread from the
 * journal's end: the head's, then each older part's, each read and checked when asked for. Null
 * when there is none to trust that way: no index, another namespace, checkpoint ids that do not
 * follow the journal's order, or parts written before they held their frontiers. A stretch whose
 * part is missing, garbled or not the one named is null.
 */
export async function loadThreadStretches(
  store: SessionStore,
  sessionId: string,
): Promise<{ mark: EventMark; namespace: string; stretches: Array<() => Promise<ThreadStretch | null>> } | null> {
  const persisted = await persistedHead(store, sessionId);
  if (!persisted) return null;
  const { head, getDerived } = persisted;
  try {
    const [only, ...others] = head.namespaces as Array<Record<string, unknown> | null>;
    check(typeof only === 'object' && only !== null && typeof only.name === 'string');
    if (others.length > 0 || only.ordered !== true || !head.chunked) return null;
    const name = only.name;
    const stretch = (from: number, frontier: unknown): ThreadStretch => {
      check(Number.isSafeInteger(from) && from >= 0 && from <= head.mark.seq);
      const index = new ThreadIndex();
      index.lastSeq = Math.max(0, from - 1);
      index.incomplete = true;
      readFrontier(index, index.namespace(name), frontier, head.mark.seq);
      return { from, index };
    };
    const older = [...head.parts].reverse().map((part) => async () => {
      try {
        const bytes = await getDerived(sessionId, part).catch(() => null);
        check(bytes !== null && isPart(part, bytes));
        const { format, from, frontiers } = partHead(bytes);
        check(format === FORMAT && typeof from === 'number' && Array.isArray(frontiers));
        const own = (frontiers as unknown[]).find((each) => Array.isArray(each) && each[0] === name);
        check(Array.isArray(own) && own.length === 2);
        return stretch(from, own[1]);
      } catch {
        return null;
      }
    });
    const newest = stretch(head.from, only.frontier);
    return { mark: head.mark, namespace: name, stretches: [async () => newest, ...older] };
  } catch {
    return null;
  }
}
