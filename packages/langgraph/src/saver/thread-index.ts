// What one thread's journal says, indexed: checkpoints per namespace, the channel values
// each checkpoint wrote, and pending writes. Built from the journal's graph events (in seq
// order, each applied once) and kept current by the writer, so reading the latest
// checkpoint does not replay the thread. Every record names the seq of the event that holds
// it; a record whose content is null was loaded from the persisted index (persisted-index.ts)
// and is filled from that event when a read needs it.
import type { ChannelVersions } from '@langchain/langgraph-checkpoint';
import type { JournalEvent, JournalEventOf } from '@resume/core/spec';

type ChannelVersion = ChannelVersions[string];

import { type CheckpointData, type StoredItem, safeParseCheckpointData, safeParseWritesData } from './graph-records.js';
import type { ItemRecord } from './item-codec.js';

export type ValueRecord =
  | { kind: 'empty'; channel: string; version: ChannelVersion }
  | { kind: 'item'; channel: string; version: ChannelVersion; seq: number; item: ItemRecord | null }
  | {
      kind: 'list';
      channel: string;
      version: ChannelVersion;
      seq: number;
      /** The earlier list whose items come first (null: this record holds the whole list). */
      base: ValueRecord | null;
      /** This record's own items (after the base's); null until loaded. */
      items: ItemRecord[] | null;
      /** How many items this record holds itself. */
      count: number;
      length: number;
    };

export interface CheckpointRecord {
  id: string;
  namespace: string;
  parentId: string | null;
  /** The seq of the event that saved it. */
  seq: number;
  /** Null until loaded (with `metadata` and the values it wrote, from event `seq`). */
  checkpoint: ItemRecord | null;
  metadata: ItemRecord | null;
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
  seq: number;
  /** Null until loaded from event `seq`. */
  value: ItemRecord | null;
}

export class NamespaceIndex {
  readonly checkpoints = new Map<string, CheckpointRecord>();
  /** The latest record of each version of each channel, for versions no parent chain resolves. */
  readonly #byVersion = new Map<string, Map<ChannelVersion, ValueRecord>>();
  /** Pending writes per checkpoint id, keyed by task id and write index. */
  readonly writes = new Map<string, Map<string, WriteRecord>>();
  /** Every channel a checkpoint of the namespace wrote. */
  readonly channels = new Set<string>();
  /**
   * Of an index whose older parts are not loaded: per checkpoint not loaded that a loaded one
   * names as parent, the value each channel had at it.
   */
  readonly frontier = new Map<string, Map<string, ValueRecord | null>>();
  /** Of an index whose older parts are not loaded: the namespace's newest checkpoint id (null: none). */
  newestId: string | null = null;
  /**
   * Of an index whose older parts are not loaded: the newest checkpoint id in them (null: they
   * hold none of this namespace; undefined: not known). A loaded id above it sorts where the
   * whole index would put it.
   */
  olderNewestId: string | null | undefined = undefined;
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

  /** The latest record of `channel` at `version`. */
  valueOfVersion(channel: string, version: ChannelVersion): ValueRecord | undefined {
    return this.#byVersion.get(channel)?.get(version);
  }

  /** Keeps `value` as the latest record of its channel at its version. */
  keepVersion(value: ValueRecord): void {
    let versions = this.#byVersion.get(value.channel);
    if (!versions) {
      versions = new Map();
      this.#byVersion.set(value.channel, versions);
    }
    versions.set(value.version, value);
  }
}

/** Versions are numbers or strings (graph-records.ts): 2 and "2" are two versions. */
const sameVersion = (left: ChannelVersion, right: ChannelVersion): boolean => left === right;

export const writeKey = (taskId: string, index: number): string => `${taskId}\u0000${index}`;

/** Why an event could not be indexed (the saver turns it into a CheckpointDataError). */
export class ThreadDataProblem extends Error {}

/** The journal no longer holds what a persisted index names: it is rebuilt from the journal. */
export class StaleIndexProblem extends Error {}

/** A read needs a part of the persisted index not loaded yet: the whole index is loaded. */
export class OlderPartsProblem extends Error {}

/** What a checkpoint event stored, without its content: the persisted index's entry. */
export interface CheckpointEntry {
  id: string;
  parentId: string | null;
  seq: number;
  /** Per channel written: [channel, version, 'empty' | 'item' | 'list', base version (list extending one), own item count (list)]. */
  values: Array<[string, ChannelVersion, 'empty' | 'item' | 'list', ChannelVersion | null, number]>;
}

/** A journal event's identity, to check that the journal still holds it. */
export interface EventMark {
  seq: number;
  type: string;
  at: string;
  checkpointId: string | null;
}

export const markOf = (event: JournalEvent): EventMark => ({
  seq: event.seq,
  type: event.type,
  at: event.at,
  checkpointId: 'checkpointId' in event && typeof event.checkpointId === 'string' ? event.checkpointId : null,
});

export const sameMark = (left: EventMark, right: EventMark): boolean =>
  left.seq === right.seq &&
  left.type === right.type &&
  left.at === right.at &&
  left.checkpointId === right.checkpointId;

export class ThreadIndex {
  lastSeq = 0;
  /** The event at `lastSeq`, when this index applied it (null: not known here). */
  lastMark: EventMark | null = null;
  /** Whether some records are not loaded yet (the index came from the persisted one). */
  partial = false;
  /** Whether the persisted index's older parts are not loaded (only its newest part is). */
  incomplete = false;
  /** The persisted index's older parts, oldest first: each holds the graph events before the next. */
  parts: string[] = [];
  /** The seq from which the graph events are in no older part (0: none is). */
  partsEnd = 0;
  /** Whether every older part says where it begins and holds its frontier (a read of the parts newest first). */
  partsChunked = true;
  readonly namespaces = new Map<string, NamespaceIndex>();
  /**
   * Of an index whose older parts are not loaded: the values its frontier names, by the seq of
   * the event that holds them (checkpoints of those parts, not loaded themselves).
   */
  readonly frontierValues = new Map<number, ValueRecord[]>();

  /** Keeps `value` and the list parts it extends as values to fill from their events. */
  addFrontierValue(value: ValueRecord | null): void {
    for (let part = value; part && part.kind !== 'empty'; part = part.kind === 'list' ? part.base : null) {
      const held = this.frontierValues.get(part.seq);
      if (held) held.push(part);
      else this.frontierValues.set(part.seq, [part]);
    }
  }

  /** The checkpoint id of the newest graph event the index holds (null: none). */
  newestGraphEvent(): string | null {
    let newest: { seq: number; id: string } | null = null;
    const consider = (seq: number, id: string) => {
      if (!newest || seq > newest.seq) newest = { seq, id };
    };
    for (const namespace of this.namespaces.values()) {
      for (const record of namespace.checkpoints.values()) consider(record.seq, record.id);
      for (const [checkpointId, writes] of namespace.writes)
        for (const write of writes.values()) consider(write.seq, checkpointId);
    }
    return (newest as { seq: number; id: string } | null)?.id ?? null;
  }

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
    this.lastMark = markOf(event);
    if (event.type === 'graph-checkpoint-saved') this.#applyCheckpoint(event);
    else if (event.type === 'graph-writes-saved') this.#applyWrites(event);
  }

  #applyCheckpoint(event: JournalEventOf<'graph-checkpoint-saved'>): void {
    const parsed = safeParseCheckpointData(event.data);
    if (!parsed.success) {
      throw new ThreadDataProblem(`checkpoint ${event.checkpointId} at seq ${event.seq}: ${parsed.error.message}`);
    }
    const record = this.addEntry(event.namespace, {
      id: event.checkpointId,
      parentId: event.parentCheckpointId,
      seq: event.seq,
      values: parsed.data.values.map((value) => [
        value.channel,
        value.version,
        'empty' in value ? 'empty' : 'item' in value ? 'item' : 'list',
        'items' in value ? (value.base ?? null) : null,
        'items' in value ? value.items.length : 0,
      ]),
    });
    fillCheckpoint(record, parsed.data);
  }

  /** Adds a checkpoint, its values not loaded; resolves the base of each list it extends. */
  addEntry(namespaceName: string, entry: CheckpointEntry): CheckpointRecord {
    const namespace = this.namespace(namespaceName);
    const parent = entry.parentId ? namespace.checkpoints.get(entry.parentId) : undefined;
    const record: CheckpointRecord = {
      id: entry.id,
      namespace: namespaceName,
      parentId: entry.parentId,
      seq: entry.seq,
      checkpoint: null,
      metadata: null,
      written: new Map(),
      resolved: new Map(),
    };
    for (const value of entry.values) {
      const valueRecord = this.#valueRecord(namespace, parent, value, entry);
      record.written.set(valueRecord.channel, valueRecord);
      namespace.channels.add(valueRecord.channel);
      namespace.keepVersion(valueRecord);
    }
    namespace.addCheckpoint(record);
    return record;
  }

  #valueRecord(
    namespace: NamespaceIndex,
    parent: CheckpointRecord | undefined,
    [channel, version, kind, baseVersion, count]: CheckpointEntry['values'][number],
    entry: CheckpointEntry,
  ): ValueRecord {
    const { seq } = entry;
    if (kind === 'empty') return { kind: 'empty', channel, version };
    if (kind === 'item') return { kind: 'item', channel, version, seq, item: null };
    if (baseVersion === null)
      return { kind: 'list', channel, version, seq, base: null, items: null, count, length: count };
    const edge = !parent && entry.parentId ? namespace.frontier.get(entry.parentId) : undefined;
    // A parent in an older part that the frontier does not name: its chain decides, so they are loaded.
    if (!parent && entry.parentId && this.incomplete && !edge?.has(channel))
      throw new OlderPartsProblem(`checkpoint ${entry.parentId} is in an older part`);
    const fromParent = parent ? this.resolve(namespace, parent, channel) : (edge?.get(channel) ?? null);
    const base =
      fromParent && sameVersion(fromParent.version, baseVersion)
        ? fromParent
        : namespace.valueOfVersion(channel, baseVersion);
    if (base?.kind !== 'list' && this.incomplete) throw new OlderPartsProblem(`checkpoint ${entry.id}'s list base`);
    if (base?.kind !== 'list') {
      throw new ThreadDataProblem(
        `checkpoint ${entry.id} at seq ${seq}: channel "${channel}" extends version ${JSON.stringify(baseVersion)}, which the journal does not hold before it`,
      );
    }
    return { kind: 'list', channel, version, seq, base, items: null, count, length: base.length + count };
  }

  /** Adds a pending write, its value not loaded (a later one of the same task and index replaces it). */
  addWrite(namespaceName: string, checkpointId: string, write: WriteRecord): void {
    const namespace = this.namespace(namespaceName);
    let writes = namespace.writes.get(checkpointId);
    if (!writes) {
      writes = new Map();
      namespace.writes.set(checkpointId, writes);
    }
    writes.set(writeKey(write.taskId, write.index), write);
  }

  /**
   * Fills the records event `event.seq` holds (a read of a partial index's records); throws
   * StaleIndexProblem when the event is not the one the index names.
   */
  fill(event: JournalEvent): void {
    const stale = () =>
      new StaleIndexProblem(`the journal's event ${event.seq} (${event.type}) is not the one the index names`);
    if (event.type === 'graph-checkpoint-saved') {
      const record = this.namespaces.get(event.namespace)?.checkpoints.get(event.checkpointId);
      const frontier = record ? undefined : this.frontierValues.get(event.seq);
      const parsed = safeParseCheckpointData(event.data);
      if (!parsed.success || (record ? record.seq !== event.seq : !frontier)) throw stale();
      if (record) fillCheckpoint(record, parsed.data);
      else if (frontier && !fillValues(frontier, parsed.data)) throw stale();
    } else if (event.type === 'graph-writes-saved') {
      const writes = this.namespaces.get(event.namespace)?.writes.get(event.checkpointId);
      const parsed = safeParseWritesData(event.data);
      if (!writes || !parsed.success) throw stale();
      for (const write of parsed.data.writes) {
        const record = writes.get(writeKey(event.taskId, write.index));
        if (record?.seq === event.seq) record.value = { stored: write.value };
      }
    }
  }

  #applyWrites(event: JournalEventOf<'graph-writes-saved'>): void {
    const parsed = safeParseWritesData(event.data);
    if (!parsed.success) {
      throw new ThreadDataProblem(`writes of task ${event.taskId} at seq ${event.seq}: ${parsed.error.message}`);
    }
    for (const write of parsed.data.writes) {
      this.addWrite(event.namespace, event.checkpointId, {
        taskId: event.taskId,
        index: write.index,
        channel: write.channel,
        taskPath: parsed.data.taskPath,
        seq: event.seq,
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
      const parentId: string | null = current.parentId;
      current = parentId ? namespace.checkpoints.get(parentId) : undefined;
      if (!current && parentId && this.incomplete) {
        const edge = namespace.frontier.get(parentId);
        if (!edge?.has(channel)) throw new OlderPartsProblem(`checkpoint ${parentId} is in an older part`);
        found = edge.get(channel) ?? null;
      }
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
    if (this.incomplete) throw new OlderPartsProblem(`channel "${channel}" at another version`);
    return namespace.valueOfVersion(channel, version) ?? null;
  }
}

/** Puts what a checkpoint event stored into its record and the values it wrote. */
function fillCheckpoint(record: CheckpointRecord, data: CheckpointData): void {
  record.checkpoint = { stored: data.checkpoint };
  record.metadata = { stored: data.metadata };
  for (const value of data.values) {
    const written = record.written.get(value.channel);
    if (written?.kind === 'item' && 'item' in value) written.item = { stored: value.item };
    else if (written?.kind === 'list' && 'items' in value)
      written.items = value.items.map((stored: StoredItem) => ({ stored }));
  }
}

/** Fills `values` from the checkpoint data that wrote them; false when it wrote another version of one. */
function fillValues(values: ValueRecord[], data: CheckpointData): boolean {
  for (const value of values) {
    const stored = data.values.find((each) => each.channel === value.channel);
    if (!stored || JSON.stringify(stored.version) !== JSON.stringify(value.version)) return false;
    if (value.kind === 'item' && 'item' in stored) value.item = { stored: stored.item };
    else if (value.kind === 'list' && 'items' in stored && stored.items.length === value.count)
      value.items = stored.items.map((item: StoredItem) => ({ stored: item }));
    else return false;
  }
  return true;
}

/** The seqs of the events still to read before `record`'s value can be decoded. */
export function unloadedSeqs(record: ValueRecord | null, into: Set<number>): void {
  let current: ValueRecord | null = record;
  while (current) {
    if (current.kind === 'empty') return;
    if (current.kind === 'item') {
      if (current.item === null) into.add(current.seq);
      return;
    }
    if (current.items === null) into.add(current.seq);
    current = current.base;
  }
}

/** The fewest items a list keeps in separate records before it is stored whole again. */
const SEPARATE_ITEMS_KEPT = 16;

/**
 * Whether a list of `length` items that extends `base` is stored whole rather than as its new
 * items: when the records after its last whole one would then hold a quarter of it (and more than
 * a few items). A read then gathers at most a quarter of a list from separate records, and a list
 * that only grows is stored at most five times over: each whole one is at least 4/3 the length of
 * the one before, so together they hold at most four times the last one.
 */
export function storeWhole(base: Extract<ValueRecord, { kind: 'list' }>, length: number): boolean {
  let separate = length - base.length;
  for (let current: ValueRecord | null = base; current?.kind === 'list' && current.base; current = current.base)
    separate += current.count;
  return separate > SEPARATE_ITEMS_KEPT && separate * 4 >= length;
}

/** A list record's items, base first (every part loaded). */
export function listItems(record: Extract<ValueRecord, { kind: 'list' }>): ItemRecord[] {
  const parts: ItemRecord[][] = [];
  let current: ValueRecord | null = record;
  while (current && current.kind === 'list') {
    if (current.items === null) throw new StaleIndexProblem(`the items of seq ${current.seq} were not loaded`);
    parts.push(current.items);
    current = current.base;
  }
  const items: ItemRecord[] = [];
  for (let index = parts.length - 1; index >= 0; index -= 1) for (const item of parts[index]!) items.push(item);
  return items;
}
