// Message texts decoded when first read. A snapshot read checks its bytes (their checksums) as
// before, but leaves each message text in those bytes: the message's `content`
// is an own, enumerable accessor that decodes the text on first read and then becomes a plain
// string member. Everything that reads members (`JSON.stringify`, spreading, `structuredClone`,
// deep equality) sees the same values as with a decoded text. See docs/decisions/0015-snapshot-texts-read-on-demand.md.

export interface PendingText {
  source: Buffer;
  start: number;
  end: number;
}

/** Where the text of a message is until it is decoded (not enumerable: no caller sees it). */
const pendingText = Symbol('pending text');
type Deferred = { [pendingText]?: PendingText };

/** Makes `content` an ordinary data property holding `value` (where the object allows it). */
function settle(message: Deferred, value: unknown): void {
  try {
    Object.defineProperty(message, 'content', { value, writable: true, enumerable: true, configurable: true });
    delete message[pendingText];
  } catch {
    // A frozen copy keeps its accessor: it still answers with the text.
  }
}

/** One descriptor for every message (a closure per message costs more than the decoding it saves). */
const deferredContent: PropertyDescriptor = {
  get(this: Deferred) {
    const where = this[pendingText];
    const text = where ? where.source.toString('utf8', where.start, where.end) : '';
    settle(this, text);
    return text;
  },
  set(this: Deferred, value: unknown) {
    settle(this, value);
  },
  enumerable: true,
  configurable: true,
};

/**
 * A copy of `message` whose `content` (where it stood among the members) is the text at `where`,
 * decoded on first read; members named in `omit` are left out. Built member by member rather than
 * redefining `content` on `message`: turning a data member into an accessor makes V8 store the
 * object as a dictionary, which costs more to make and to read. A copy made with
 * `Object.getOwnPropertyDescriptors` carries its own pending text.
 */
export function withDeferredText(
  message: Record<string, unknown>,
  where: PendingText,
  omit?: ReadonlySet<string>,
): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(message)) {
    if (omit?.has(key)) continue;
    if (key === 'content') Object.defineProperty(copy, 'content', deferredContent);
    else copy[key] = message[key];
  }
  Object.defineProperty(copy, pendingText, { value: where, configurable: true });
  return copy;
}

/** The undecoded text of a message, or null once its `content` is a plain member. */
export function pendingTextOf(message: object): PendingText | null {
  const where = (message as Deferred)[pendingText];
  return where && Object.getOwnPropertyDescriptor(message, 'content')?.get === deferredContent.get ? where : null;
}

/** A message's text, decoding it when it is still pending but leaving the message as it is. */
export function textOf(message: Record<string, unknown>): unknown {
  const where = pendingTextOf(message);
  return where ? where.source.toString('utf8', where.start, where.end) : message.content;
}

/** Whether two messages hold the same text, without decoding either when both still point at the same bytes. */
export function sameText(left: Record<string, unknown>, right: Record<string, unknown>): boolean {
  const leftWhere = pendingTextOf(left);
  const rightWhere = pendingTextOf(right);
  if (leftWhere && rightWhere && leftWhere.source === rightWhere.source && leftWhere.start === rightWhere.start) {
    return leftWhere.end === rightWhere.end;
  }
  return textOf(left) === textOf(right);
}
