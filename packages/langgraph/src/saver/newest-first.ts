// A thread's journal read from its end, a stretch of its persisted index at a time (the head's
// stretch, then each older part's: persisted-index.ts). Each stretch is indexed from its own
// events and its frontier (each channel's value where it begins) and handed over once every value
// it names is read, so a whole list holds a stretch of the thread at once, not the thread. A
// stretch whose frontier names values in older events (a message list's last whole copy) waits
// for them, and the stretches after it with it: they are handed over newest first.
import type { JournalEvent } from '@resume/core/spec';
import type { ThreadStretch } from './persisted-index.js';
import { type EventMark, markOf, StaleIndexProblem, sameMark, type WriteRecord } from './thread-index.js';

const isGraphEvent = (event: JournalEvent): boolean =>
  event.type === 'graph-checkpoint-saved' || event.type === 'graph-writes-saved';

export class NewestFirstStretches {
  readonly #mark: EventMark;
  readonly #namespace: string;
  readonly #stretches: Iterator<() => Promise<ThreadStretch | null>>;
  /**
   * The next older stretch, asked for when the one before it opens: its part is read (a round
   * trip to a database) while the events of the open one are, not after them. Undefined before
   * the first; null after the oldest.
   */
  #ahead: Promise<ThreadStretch | null> | null | undefined;
  #current: { stretch: ThreadStretch; events: JournalEvent[] } | null = null;
  /** Stretches whose events are all read, newest first, waiting for the values their frontiers name. */
  readonly #waiting: ThreadStretch[] = [];
  /** Pending writes of checkpoints in older stretches than the writes, oldest first. */
  readonly #carried = new Map<string, WriteRecord[]>();
  #reachedMark = false;

  /** `stretches`: newest first, each asked for when the one before it opens (null: missing or garbled; never rejected). */
  constructor(persisted: {
    mark: EventMark;
    namespace: string;
    stretches: Array<() => Promise<ThreadStretch | null>>;
  }) {
    this.#mark = persisted.mark;
    this.#namespace = persisted.namespace;
    this.#stretches = persisted.stretches.values();
  }

  /** Whether every stretch was handed over and the journal held the event the index ends at. */
  get done(): boolean {
    return this.#reachedMark && this.#current === null && this.#waiting.length === 0;
  }

  /**
   * Takes the journal's next batch (newest first; its events in seq order). False when the index
   * cannot read the journal this way: graph events after the one it ends at, or that one not what
   * it names. Throws StaleIndexProblem when a part is missing or an event is not the one a
   * frontier names.
   */
  async take(batch: JournalEvent[]): Promise<boolean> {
    for (let at = batch.length - 1; at >= 0; at -= 1) {
      const event = batch[at]!;
      const graph = isGraphEvent(event);
      if (!this.#reachedMark) {
        if (event.seq > this.#mark.seq && !graph) continue;
        if (event.seq !== this.#mark.seq || !sameMark(markOf(event), this.#mark)) return false;
        this.#reachedMark = true;
        this.#current = await this.#open();
      }
      while (this.#current && event.seq < this.#current.stretch.from) {
        this.#close(this.#current);
        this.#current = await this.#open();
      }
      for (const stretch of this.#waiting) if (stretch.index.frontierValues.has(event.seq)) stretch.index.fill(event);
      if (graph) this.#current?.events.push(event);
    }
    return true;
  }

  /** After the journal's oldest event: the stretches still open are closed. */
  async end(): Promise<void> {
    while (this.#current) {
      this.#close(this.#current);
      this.#current = await this.#open();
    }
  }

  /** The stretches every value of which is read, newest first, taken off the queue. */
  ready(): ThreadStretch[] {
    const ready: ThreadStretch[] = [];
    while (this.#waiting.length > 0 && filled(this.#waiting[0]!)) ready.push(this.#waiting.shift()!);
    return ready;
  }

  async #open(): Promise<{ stretch: ThreadStretch; events: JournalEvent[] } | null> {
    const loading = this.#ahead === undefined ? this.#load() : this.#ahead;
    if (!loading) return null;
    this.#ahead = this.#load();
    const stretch = await loading;
    if (!stretch) throw new StaleIndexProblem('a part of the thread index is missing or garbled');
    return { stretch, events: [] };
  }

  /** Starts reading the next stretch (its loader gives null rather than fail); null when none is left. */
  #load(): Promise<ThreadStretch | null> | null {
    const next = this.#stretches.next();
    return next.done ? null : next.value();
  }

  /** Indexes a stretch's events (read newest first) and queues it. */
  #close({ stretch, events }: { stretch: ThreadStretch; events: JournalEvent[] }): void {
    const { index } = stretch;
    for (let at = events.length - 1; at >= 0; at -= 1) index.apply(events[at]!);
    const namespace = index.namespace(this.#namespace);
    // Writes this stretch holds for checkpoints of older ones go with them, before newer writes.
    for (const [checkpointId, writes] of namespace.writes) {
      if (namespace.checkpoints.has(checkpointId)) continue;
      this.#carried.set(checkpointId, [...writes.values(), ...(this.#carried.get(checkpointId) ?? [])]);
      namespace.writes.delete(checkpointId);
    }
    // Writes newer stretches held for this one's checkpoints come after its own (a later one replaces an earlier).
    for (const [checkpointId, writes] of this.#carried) {
      if (!namespace.checkpoints.has(checkpointId)) continue;
      for (const write of writes) index.addWrite(this.#namespace, checkpointId, write);
      this.#carried.delete(checkpointId);
    }
    this.#waiting.push(stretch);
  }
}

/** Whether every value a stretch's frontier names was read. */
function filled(stretch: ThreadStretch): boolean {
  for (const values of stretch.index.frontierValues.values()) {
    for (const value of values) {
      if (value.kind === 'item' ? value.item === null : value.kind === 'list' && value.items === null) return false;
    }
  }
  return true;
}
