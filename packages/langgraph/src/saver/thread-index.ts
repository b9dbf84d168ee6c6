// What one thread's journal says, indexed: checkpoints per namespace, the channel values
// each checkpoint wrote, and pending writes. Built from the journal's graph events (in seq
// order, each applied once) and kept current by the writer, so reading the latest
// checkpoint does not replay the thread.
import type { ChannelVersions } from '@langchain/langgraph-checkpoint';
import type { JournalEvent, JournalEventOf } from '@resume/core/spec';

type ChannelVersion = ChannelVersions[string];

import { type CheckpointData, checkpointDataSchema, type StoredItem, writesDataSchema } from './graph-records.js';
import type { ItemRecord } from './item-codec.js';

export type ValueRecord =
  | { kind: 'empty'; channel: string; version: ChannelVersion }
  | { kind: 'item'; channel: string; version: ChannelVersion; item: ItemRecord }
  | {
      kind: 'list';
      channel: string;
      version: ChannelVersion;
      /** The earlier list whose items come first (null: this record holds the whole list). */
      base: ValueRecord | null;
      items: ItemRecord[];
      length: number;
    };

export interface CheckpointRecord {
  id: string;
  namespace: string;
  parentId: string | null;
  checkpoint: ItemRecord;
  metadata: ItemRecord;
  /** The channel values this checkpoint wrote. */
  written: Map<string, ValueRecord>;
  /** Memo of resolve(): the value each channel had at this checkpoint. */
  resolved: Map<string, ValueRecord | null>;
}

export interface WriteRecord {
  taskId: string;
  index: number;
  channel: string;
  taskPath: string;
  value: ItemRecord;
}

export class NamespaceIndex {
  readonly checkpoints = new Map<string, CheckpointRecord>();
  /** The latest record of each (channel, version), for versions no parent chain resolves. */
  readonly byVersion = new Map<string, ValueRecord>();
  /** Pending writes per checkpoint id, keyed by task id and write index. */
  readonly writes = new Map<string, Map<string, WriteRecord>>();
  #sortedIds: string[] | null = null;

  /** Checkpoint ids, newest first (uuid6 ids sort by time). */
  idsNewestFirst(): string[] {
    this.#sortedIds ??= [...this.checkpoints.keys()].sort().reverse();
    return this.#sortedIds;
  }

  addCheckpoint(record: CheckpointRecord): void {
    this.checkpoints.set(record.id, record);
    this.#sortedIds = null;
  }
}

export const versionKey = (channel: string, version: ChannelVersion): string =>
  `${channel}\u0000${JSON.stringify(version)}`;

const sameVersion = (left: ChannelVersion, right: ChannelVersion): boolean =>
  JSON.stringify(left) === JSON.stringify(right);

export const writeKey = (taskId: string, index: number): string => `${taskId}\u0000${index}`;

/** Why an event could not be indexed (the saver turns it into a CheckpointDataError). */
export class ThreadDataProblem extends Error {}

/**
 * What tells one event from another at the same seq: a pruned journal is renumbered, so the
 * event a reader indexed last may be gone or another one now (see `ThreadIndex.lastEvent`).
 */
export function eventIdentity(event: JournalEvent): string {
  const ids =
    'checkpointId' in event ? [event.namespace, event.checkpointId, 'taskId' in event ? event.taskId : ''] : [];
  return JSON.stringify([event.seq, event.type, event.at, ...ids]);
}

export class ThreadIndex {
  lastSeq = 0;
  /** The identity of the event at `lastSeq` (null when the index holds no event). */
  lastEvent: string | null = null;
  readonly namespaces = new Map<string, NamespaceIndex>();

  namespace(name: string): NamespaceIndex {
    let found = this.namespaces.get(name);
    if (!found) {
      found = new NamespaceIndex();
      this.namespaces.set(name, found);
    }
    return found;
  }

  /** Applies one journal event; events already applied (by seq) are ignored. */
  apply(event: JournalEvent): void {
    if (event.seq <= this.lastSeq) return;
    this.lastSeq = event.seq;
    this.lastEvent = eventIdentity(event);
    if (event.type === 'graph-checkpoint-saved') this.#applyCheckpoint(event);
    else if (event.type === 'graph-writes-saved') this.#applyWrites(event);
  }

  #applyCheckpoint(event: JournalEventOf<'graph-checkpoint-saved'>): void {
    const parsed = checkpointDataSchema.safeParse(event.data);
    if (!parsed.success) {
      throw new ThreadDataProblem(`checkpoint ${event.checkpointId} at seq ${event.seq}: ${parsed.error.message}`);
    }
    const namespace = this.namespace(event.namespace);
    const parent = event.parentCheckpointId ? namespace.checkpoints.get(event.parentCheckpointId) : undefined;
    const record: CheckpointRecord = {
      id: event.checkpointId,
      namespace: event.namespace,
      parentId: event.parentCheckpointId,
      checkpoint: { stored: parsed.data.checkpoint },
      metadata: { stored: parsed.data.metadata },
      written: new Map(),
      resolved: new Map(),
    };
    for (const value of parsed.data.values) {
      const valueRecord = this.#valueRecord(namespace, parent, value, event);
      record.written.set(value.channel, valueRecord);
      namespace.byVersion.set(versionKey(value.channel, value.version), valueRecord);
    }
    namespace.addCheckpoint(record);
  }

  #valueRecord(
    namespace: NamespaceIndex,
    parent: CheckpointRecord | undefined,
    value: CheckpointData['values'][number],
    event: JournalEventOf<'graph-checkpoint-saved'>,
  ): ValueRecord {
    const { channel, version } = value;
    if ('empty' in value) return { kind: 'empty', channel, version };
    if ('item' in value) return { kind: 'item', channel, version, item: { stored: value.item } };
    const items = value.items.map((stored: StoredItem) => ({ stored }));
    if (value.base === undefined) return { kind: 'list', channel, version, base: null, items, length: items.length };
    const fromParent = parent ? this.resolve(namespace, parent, channel) : null;
    const base =
      fromParent && sameVersion(fromParent.version, value.base)
        ? fromParent
        : namespace.byVersion.get(versionKey(channel, value.base));
    if (base?.kind !== 'list') {
      throw new ThreadDataProblem(
        `checkpoint ${event.checkpointId} at seq ${event.seq}: channel "${channel}" extends version ${JSON.stringify(value.base)}, which the journal does not hold before it`,
      );
    }
    return { kind: 'list', channel, version, base, items, length: base.length + items.length };
  }

  #applyWrites(event: JournalEventOf<'graph-writes-saved'>): void {
    const parsed = writesDataSchema.safeParse(event.data);
    if (!parsed.success) {
      throw new ThreadDataProblem(`writes of task ${event.taskId} at seq ${event.seq}: ${parsed.error.message}`);
    }
    const namespace = this.namespace(event.namespace);
    let writes = namespace.writes.get(event.checkpointId);
    if (!writes) {
      writes = new Map();
      namespace.writes.set(event.checkpointId, writes);
    }
    for (const write of parsed.data.writes) {
      writes.set(writeKey(event.taskId, write.index), {
        taskId: event.taskId,
        index: write.index,
        channel: write.channel,
        taskPath: parsed.data.taskPath,
        value: { stored: write.value },
      });
    }
  }

  /** The value record of `channel` at `checkpoint`: its own write, else its parent's value. */
  resolve(namespace: NamespaceIndex, checkpoint: CheckpointRecord, channel: string): ValueRecord | null {
    const path: CheckpointRecord[] = [];
    let current: CheckpointRecord | undefined = checkpoint;
    let found: ValueRecord | null = null;
    while (current) {
      const memo = current.resolved.get(channel);
      if (memo !== undefined) {
        found = memo;
        break;
      }
      path.push(current);
      const own = current.written.get(channel);
      if (own) {
        found = own;
        break;
      }
      current = current.parentId ? namespace.checkpoints.get(current.parentId) : undefined;
    }
    for (const visited of path) visited.resolved.set(channel, found);
    return found;
  }

  /** The value of `channel` at version `version` as `checkpoint` sees it. */
  valueAt(
    namespace: NamespaceIndex,
    checkpoint: CheckpointRecord,
    channel: string,
    version: ChannelVersion,
  ): ValueRecord | null {
    const own = this.resolve(namespace, checkpoint, channel);
    if (own && sameVersion(own.version, version)) return own;
    return namespace.byVersion.get(versionKey(channel, version)) ?? null;
  }
}

/** A list record's items, base first. */
export function listItems(record: Extract<ValueRecord, { kind: 'list' }>): ItemRecord[] {
  const parts: ItemRecord[][] = [];
  let current: ValueRecord | null = record;
  while (current && current.kind === 'list') {
    parts.push(current.items);
    current = current.base;
  }
  const items: ItemRecord[] = [];
  for (let index = parts.length - 1; index >= 0; index -= 1) for (const item of parts[index]!) items.push(item);
  return items;
}
