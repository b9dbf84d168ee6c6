// The operations of a session in the order its code asked for them, for ordered replay
// (see `ReplayPolicy`). An operation is a step (named by its first event), a message, a
// labelled or unlabelled checkpoint mark, or any other event the code recorded. Not
// operations: the session's set-up batch, lifecycle events the engine writes itself
// (`session-created`, `session-resumed`, `status-changed`), answers to `waitFor` (`input-received`,
// written by whoever answered, not by the code), and events written inside a step's function
// (they carry `within` and belong to that step: a replayed step skips them).

import { stepId } from '../journal/fold.js';
import type { JournalEvent } from '../spec/index.js';

const LIFECYCLE = new Set<JournalEvent['type']>([
  'session-created',
  'session-resumed',
  'status-changed',
  'input-received',
]);
const STEP_EVENTS = new Set<JournalEvent['type']>(['step-started', 'step-completed', 'step-failed', 'step-skipped']);

/** Whether `event` is the first event of an operation, given the steps already seen. */
function opensOperation(event: JournalEvent, seenSteps: Set<string>): boolean {
  if (LIFECYCLE.has(event.type) || event.within !== undefined) return false;
  if (!STEP_EVENTS.has(event.type)) return true;
  const step = event as Extract<JournalEvent, { key: string; occurrence: number }>;
  const id = stepId(step.key, step.occurrence);
  if (seenSteps.has(id)) return false;
  seenSteps.add(id);
  return true;
}

export class ReplayLog {
  readonly #operations: JournalEvent[] = [];
  readonly #seenSteps = new Set<string>();
  #cursor = 0;

  /** The recorded operations of a journal read from its first event. */
  static fromEvents(events: Iterable<JournalEvent>): ReplayLog {
    const log = new ReplayLog();
    let setupEnd = 1;
    for (const event of events) {
      if (event.type === 'session-created') {
        setupEnd = 1 + (event.setup ?? 0);
        continue;
      }
      if (event.seq <= setupEnd) continue;
      if (opensOperation(event, log.#seenSteps)) log.#operations.push(event);
    }
    return log;
  }

  /**
   * The log of a journal whose operations up to some event were kept (`operations`, as a
   * snapshot keeps them) and whose later events follow (`after`). A snapshot is written after a
   * commit, never inside the session's first batch, so none of `after` is set-up.
   */
  static fromOperations(operations: Iterable<JournalEvent>, after: Iterable<JournalEvent>): ReplayLog {
    const log = new ReplayLog();
    for (const operation of operations) {
      if (STEP_EVENTS.has(operation.type)) {
        const step = operation as Extract<JournalEvent, { key: string; occurrence: number }>;
        log.#seenSteps.add(stepId(step.key, step.occurrence));
      }
      log.#operations.push(operation);
    }
    for (const event of after) {
      if (opensOperation(event, log.#seenSteps)) log.#operations.push(event);
    }
    return log;
  }

  /** Every operation, recorded and written live, in order (what a snapshot keeps). */
  get operations(): readonly JournalEvent[] {
    return this.#operations;
  }

  /** Recorded operations remain ahead of the code. */
  get replaying(): boolean {
    return this.#cursor < this.#operations.length;
  }

  /** 1-based position of the next operation. */
  get position(): number {
    return this.#cursor + 1;
  }

  peek(): JournalEvent | undefined {
    return this.#operations[this.#cursor];
  }

  advance(): void {
    this.#cursor += 1;
  }

  /** The seq of the last operation the code has passed (0: none). */
  get passedSeq(): number {
    return this.#operations[this.#cursor - 1]?.seq ?? 0;
  }

  /** A new operation written live (the code is past the recorded end). */
  append(event: JournalEvent): void {
    if (STEP_EVENTS.has(event.type) && !opensOperation(event, this.#seenSteps)) return;
    this.#operations.push(event);
    this.#cursor = this.#operations.length;
  }

  /** Start the replay again from the first operation (the code is being run again). */
  rewind(): void {
    this.#cursor = 0;
  }
}

/** How an operation reads in a mismatch error. */
export function describeOperation(event: JournalEvent): string {
  switch (event.type) {
    case 'step-started':
    case 'step-completed':
    case 'step-failed':
    case 'step-skipped':
      return `step "${event.key}" #${event.occurrence}`;
    case 'message-added':
      return `message (${event.message.role}${event.message.speaker ? `, ${event.message.speaker}` : ''}: ${JSON.stringify(event.message.content.slice(0, 60))})`;
    case 'checkpoint-marked':
      return event.label === null ? 'a checkpoint' : `checkpoint "${event.label}"`;
    case 'data-set':
      return `data-set "${event.key}"`;
    case 'input-requested':
      return `waitFor "${event.key}" #${event.occurrence}`;
    default:
      return `${event.type} event`;
  }
}

/** Deep equality of two JSON-like values, ignoring object key order. */
export function sameJson(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false;
  if (Array.isArray(left) !== Array.isArray(right)) return false;
  if (Array.isArray(left) && Array.isArray(right)) {
    return left.length === right.length && left.every((value, index) => sameJson(value, right[index]));
  }
  const leftEntries = Object.entries(left).filter(([, value]) => value !== undefined);
  const rightRecord = right as Record<string, unknown>;
  const rightCount = Object.values(rightRecord).filter((value) => value !== undefined).length;
  return leftEntries.length === rightCount && leftEntries.every(([key, value]) => sameJson(value, rightRecord[key]));
}
