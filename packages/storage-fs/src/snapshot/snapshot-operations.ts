// The operations of a session's ordered replay log, as a snapshot keeps them. Most operations are
// a message or a checkpoint mark the state also holds: such an operation is written as a reference
// to it (a message as its index in `state.messages`, a checkpoint mark as `[its index]` in
// `state.checkpoints`), so a message's text is kept once; any other operation as its event.
import { pendingTextOf, sameText, withDeferredText } from './deferred-text.js';

type Entry = Record<string, unknown>;

function isEntry(value: unknown): value is Entry {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function listOf(state: unknown, member: string): Entry[] {
  const list = isEntry(state) ? state[member] : undefined;
  return Array.isArray(list) ? (list as Entry[]) : [];
}

/** Index of the entry with `seq` in a list ordered by seq, or -1. */
function indexBySeq(list: Entry[], seq: unknown): number {
  let low = 0;
  let high = list.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const found = list[middle]?.seq as number;
    if (found === seq) return middle;
    if (found < (seq as number)) low = middle + 1;
    else high = middle - 1;
  }
  return -1;
}

/** Whether `event` is exactly the message-added event the state's `record` was folded from. */
function isMessageOf(event: Entry, record: Entry | undefined): boolean {
  const message = event.message;
  if (!record || !isEntry(message) || record.seq !== event.seq || record.at !== event.at) return false;
  if (Object.keys(event).length !== 4) return false; // seq, at, type, message: nothing else to keep
  const keys = Object.keys(message);
  if (keys.length + 2 !== Object.keys(record).length) return false;
  for (const key of keys) {
    if (key === 'content' ? !sameText(message, record) : message[key] !== record[key]) return false;
  }
  return true;
}

function isCheckpointOf(event: Entry, record: Entry | undefined): boolean {
  return (
    record !== undefined &&
    Object.keys(event).length === 4 &&
    record.seq === event.seq &&
    record.at === event.at &&
    record.label === event.label
  );
}

/** The operations as a snapshot of `state` writes them. */
export function encodeOperations(operations: unknown[], state: unknown): unknown[] {
  const messages = listOf(state, 'messages');
  const checkpoints = listOf(state, 'checkpoints');
  return operations.map((operation) => {
    if (!isEntry(operation)) return operation;
    if (operation.type === 'message-added') {
      const index = indexBySeq(messages, operation.seq);
      if (index !== -1 && isMessageOf(operation, messages[index])) return index;
    } else if (operation.type === 'checkpoint-marked') {
      const index = indexBySeq(checkpoints, operation.seq);
      if (index !== -1 && isCheckpointOf(operation, checkpoints[index])) return [index];
    }
    return operation;
  });
}

const RECORD_ONLY = new Set(['seq', 'at']);

/** A message-added event's message, from the state's record of it (its text shared, still pending when it is). */
function messageOf(record: Entry): Entry {
  const where = pendingTextOf(record);
  if (where) return withDeferredText(record, where, RECORD_ONLY);
  const message: Entry = {};
  for (const key of Object.keys(record)) if (!RECORD_ONLY.has(key)) message[key] = record[key];
  return message;
}

/** The state's record a message-added event's message is made from, until it is made (not enumerable). */
const messageRecord = Symbol('message record');
type PendingEvent = Entry & { [messageRecord]?: Entry };

function settleMessage(event: PendingEvent, message: unknown): void {
  try {
    Object.defineProperty(event, 'message', { value: message, writable: true, enumerable: true, configurable: true });
    delete event[messageRecord];
  } catch {
    // A frozen copy keeps its accessor: it still answers with the message.
  }
}

/** One descriptor for every event (a getter closure per event costs twice as much to make). */
const deferredMessage: PropertyDescriptor = {
  get(this: PendingEvent) {
    const record = this[messageRecord];
    const message = record ? messageOf(record) : undefined;
    settleMessage(this, message);
    return message;
  },
  set(this: PendingEvent, value: unknown) {
    settleMessage(this, value);
  },
  enumerable: true,
  configurable: true,
};

/**
 * The message-added event of a state's message record. Its `message` is made when first read
 * (a replay reads an operation when the code reaches it), then is a plain member.
 */
function messageEvent(record: Entry): Entry {
  const event: PendingEvent = { seq: record.seq, at: record.at, type: 'message-added' };
  Object.defineProperty(event, 'message', deferredMessage);
  Object.defineProperty(event, messageRecord, { value: record, configurable: true });
  return event;
}

/** The operations back as events; null when they do not fit the state or the snapshot's seq. */
export function decodeOperations(encoded: unknown[], state: unknown, seq: number): Entry[] | null {
  const messages = listOf(state, 'messages');
  const checkpoints = listOf(state, 'checkpoints');
  const operations: Entry[] = [];
  let lastSeq = 0;
  for (const entry of encoded) {
    let event: Entry | undefined;
    if (typeof entry === 'number') {
      const record = messages[entry];
      event = isEntry(record) ? messageEvent(record) : undefined;
    } else if (Array.isArray(entry)) {
      const record = typeof entry[0] === 'number' ? checkpoints[entry[0]] : undefined;
      event = isEntry(record)
        ? { seq: record.seq, at: record.at, type: 'checkpoint-marked', label: record.label }
        : undefined;
    } else if (isEntry(entry) && typeof entry.type === 'string') {
      event = entry;
    }
    if (!event || typeof event.seq !== 'number' || event.seq <= lastSeq || event.seq > seq) return null;
    lastSeq = event.seq;
    operations.push(event);
  }
  return operations;
}
