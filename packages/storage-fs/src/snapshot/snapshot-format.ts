// The snapshot file's bytes (`snapshot.bin`): one framed JSON line, then the message texts:
//   {"crc":"…","seq":…,"formatVersion":5,"contents":{"bytes":N,"crc":…},"state":{…"messages":[{"role":…,"content":2048,…}]}}\n
//   <N bytes: the texts of the externalized messages, UTF-8, one after the other>
// The first line is framed like every other file of the store (its crc covers the header, the
// state and the contents' length and crc); a message whose `content` is a number there has that
// many bytes of text in the contents section, in message order. The whole file is checked when it
// is read (both checksums, and its length), so a damaged or cut snapshot is ignored at open; what
// is deferred is only the decoding of each text, which happens on the first read of that
// message's `content` (see docs/decisions/0015-snapshot-texts-read-on-demand.md).
// The header may keep `operations` (the replay log up to `seq`) and `summary` (the listing summary
// of event `seq`, which a repair uses when the journal no longer has it).
// The one version a snapshot carries is `formatVersion`, the engine's version of the folded state.
// The header's members are checked strictly: a layout this code does not know (a member it does
// not know) is ignored and the journal replayed. Files written under the former name
// `snapshot.json` carry a layout version `v` as well: 2 is this layout, 1 one framed line holding
// the whole state; both are still read.
import { crc32 } from 'node:zlib';
import { type DataKey, type Keyring, openBytes, sealBytes, snapshotPlace } from '@resume/core/encryption';
import { lazySchema } from '@resume/core/lazy-schema';
import { z } from 'zod';
import { FRAME_PREFIX_LENGTH, frameObject, unframe } from '../journal/framing.js';
import { type PendingText, pendingTextOf, withDeferredText } from './deferred-text.js';
import { decodeOperations, encodeOperations } from './snapshot-operations.js';

// Built with the schemas that use them, on first use.
const snapshotFields = () => ({
  seq: z.number().int().nonnegative(),
  formatVersion: z.number().int(),
  /** Byte offset of the journal just past event `seq`, so an open reads only what follows. */
  journalOffset: z.number().int().nonnegative().optional(),
  /** crc32 of the journal's bytes [0, journalOffset): the prefix this snapshot summarizes. */
  journalCrc: z.number().int().nonnegative().optional(),
  state: z.unknown(),
});

/** A `snapshot.json` of layout 1: one framed line holding the whole state. */
const layoutOneSchema = lazySchema(() => z.object({ v: z.literal(1), ...snapshotFields() }));
const snapshotHeaderSchema = lazySchema(() =>
  z.strictObject({
    /** Written by the versions that named the file `snapshot.json`: the same layout. */
    v: z.literal(2).optional(),
    ...snapshotFields(),
    contents: z.object({
      /** How many messages have their text in the contents section (their `content` is its byte length). */
      texts: z.number().int().nonnegative(),
      bytes: z.number().int().nonnegative(),
      crc: z.number().int().nonnegative(),
    }),
    /** The session's replay log operations up to `seq` (see `snapshot-operations.ts`), when its writer had one. */
    operations: z.array(z.unknown()).optional(),
    /**
     * The listing summary the journal's record of event `seq` carried (checked where it is used):
     * a repair that has only the snapshot left lists the session with it.
     */
    summary: z.unknown().optional(),
  }),
);

/** A snapshot as stored, whatever its layout (`state` as it was folded: message texts read on demand). */
export interface SnapshotFile {
  seq: number;
  formatVersion: number;
  journalOffset?: number | undefined;
  journalCrc?: number | undefined;
  state: unknown;
  /** The replay log's operations as events (decoded on first read), when the snapshot kept them. */
  operations?: unknown[] | undefined;
  /** The listing summary at event `seq`, as written (unchecked), when the snapshot kept it. */
  summary?: unknown;
}

/** `String.prototype.isWellFormed` (Node 20+; the type library targets an older ECMAScript). */
const isWellFormed = (text: string): boolean => (text as string & { isWellFormed(): boolean }).isWellFormed();

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function messagesOf(state: unknown): unknown[] | null {
  return isRecord(state) && Array.isArray(state.messages) ? state.messages : null;
}

/** A message's members with `content` replaced by `placeholder`, in the same order, without reading `content`. */
function withContent(message: Record<string, unknown>, placeholder: number): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(message)) copy[key] = key === 'content' ? placeholder : message[key];
  return copy;
}

/** The bytes of a snapshot file. */
export function encodeSnapshot(snapshot: SnapshotFile): Buffer {
  // Referring to the state's messages and checkpoints as they are (before their texts move out).
  const operations = Array.isArray(snapshot.operations)
    ? { operations: encodeOperations(snapshot.operations, snapshot.state) }
    : {};
  // A state whose messages already hold numbers as `content` (not a session's) is written inline.
  // (A text still unread is a string: its accessor is not called to find out.)
  const numeric = (message: unknown) =>
    isRecord(message) && pendingTextOf(message) === null && typeof message.content === 'number';
  const messages = messagesOf(snapshot.state)?.some(numeric) ? null : messagesOf(snapshot.state);
  const texts: (string | PendingText)[] = [];
  let state = snapshot.state;
  let bytes = 0;
  if (messages) {
    const stripped = messages.map((message) => {
      if (!isRecord(message)) return message;
      const pending = pendingTextOf(message);
      // A text still unread is copied as it is, without decoding it.
      if (pending) {
        texts.push(pending);
        bytes += pending.end - pending.start;
        return withContent(message, pending.end - pending.start);
      }
      const text = message.content;
      // A text that is not well-formed UTF-16 (a lone surrogate) would not survive UTF-8: it stays inline.
      if (typeof text !== 'string' || !isWellFormed(text)) return message;
      const length = Buffer.byteLength(text, 'utf8');
      texts.push(text);
      bytes += length;
      return withContent(message, length);
    });
    state = { ...(snapshot.state as Record<string, unknown>), messages: stripped };
  }
  const contents = Buffer.allocUnsafe(bytes);
  let offset = 0;
  for (const text of texts) {
    if (typeof text === 'string') offset += contents.write(text, offset, 'utf8');
    else offset += text.source.copy(contents, offset, text.start, text.end);
  }
  const header = frameObject({
    seq: snapshot.seq,
    formatVersion: snapshot.formatVersion,
    ...(snapshot.journalOffset === undefined ? {} : { journalOffset: snapshot.journalOffset }),
    ...(snapshot.journalCrc === undefined ? {} : { journalCrc: snapshot.journalCrc }),
    contents: { texts: texts.length, bytes, crc: crc32(contents) },
    state,
    ...operations,
    ...(snapshot.summary === undefined ? {} : { summary: snapshot.summary }),
  });
  return bytes === 0 ? header : Buffer.concat([header, contents], header.length + bytes);
}

/**
 * Reads a snapshot file of any layout; null when it is damaged in any way (a checksum, its
 * length, a placeholder that does not fit its contents), so the caller ignores it. `opened`:
 * the file came out of a seal, whose tag already vouched for every byte, so its contents'
 * checksum (megabytes) is not computed again.
 */
export function decodeSnapshot(file: Buffer, options: { opened?: boolean } = {}): SnapshotFile | null {
  const newline = file.indexOf(0x0a, FRAME_PREFIX_LENGTH);
  const line = newline === -1 ? file : file.subarray(0, newline);
  const framed = unframe(line);
  if (!framed.ok) return null;
  if (isRecord(framed.value) && framed.value.v === 1) {
    if (newline !== -1 && newline !== file.length - 1) return null;
    const parsed = layoutOneSchema.safeParse(framed.value);
    if (!parsed.success) return null;
    const { v: _layout, ...snapshot } = parsed.data;
    return snapshot;
  }
  const parsed = snapshotHeaderSchema.safeParse(framed.value);
  if (!parsed.success) return null;
  const { v: _layout, contents: section, operations, ...snapshot } = parsed.data;
  const start = newline === -1 ? file.length : newline + 1;
  // A cut or extended file is damaged: its recorded length says where it ends.
  if (file.length - start !== section.bytes) return null;
  const contents = file.subarray(start);
  if (!options.opened && crc32(contents) !== section.crc) return null;
  const messages = section.texts === 0 ? [] : (messagesOf(snapshot.state) ?? []);
  let offset = 0;
  let texts = 0;
  for (const [index, message] of messages.entries()) {
    if (!isRecord(message) || typeof message.content !== 'number') continue;
    const end = offset + message.content;
    if (!Number.isSafeInteger(message.content) || message.content < 0 || end > section.bytes) return null;
    messages[index] = withDeferredText(message, { source: contents, start: offset, end });
    offset = end;
    texts += 1;
  }
  if (offset !== section.bytes || texts !== section.texts) return null;
  if (operations) keepOperations(snapshot, operations);
  return snapshot;
}

/** Gives `snapshot` its operations, decoded when first read (a keyed open never reads them). */
function keepOperations(snapshot: SnapshotFile, encoded: unknown[]): void {
  let decoded: unknown[] | null | undefined;
  Object.defineProperty(snapshot, 'operations', {
    get() {
      if (decoded === undefined) decoded = decodeOperations(encoded, snapshot.state, snapshot.seq);
      return decoded ?? undefined;
    },
    enumerable: true,
    configurable: true,
  });
}

/**
 * A snapshot file's bytes sealed whole (docs/encryption.md#formats): one framed line naming the
 * key and the length, then the sealed bytes (iv, ciphertext, tag) of the file `encodeSnapshot` wrote.
 */
export function sealSnapshot(file: Buffer, key: DataKey, sessionId: string): Buffer {
  const sealed = sealBytes(key, snapshotPlace(sessionId), file);
  return Buffer.concat([frameObject({ sealedSnapshot: { key: key.id, bytes: sealed.length } }), sealed]);
}

/**
 * The snapshot file inside a sealed one (a file that is not sealed is returned as it is); null
 * when it is damaged or fails its tag (a snapshot is derived data: it is ignored). A key the
 * keyring lacks is an EncryptionKeyUnavailableError. `file`'s bytes are overwritten by the opening.
 */
export function openSnapshot(
  file: Buffer,
  keyring: Keyring | null,
  sessionId: string,
  location: string,
): Buffer | null {
  const newline = file.indexOf(0x0a, FRAME_PREFIX_LENGTH);
  if (newline === -1 || !file.subarray(0, newline).includes('"sealedSnapshot"')) return file;
  const framed = unframe(file.subarray(0, newline));
  if (!framed.ok || !isRecord(framed.value) || !isRecord(framed.value.sealedSnapshot)) return null;
  const { key, bytes } = framed.value.sealedSnapshot;
  const body = file.subarray(newline + 1);
  if (typeof key !== 'string' || body.length !== bytes) return null;
  // The file's buffer is read only to be opened: deciphered where it lies.
  const opened = openBytes(keyring, snapshotPlace(sessionId), key, body, location, { inPlace: true });
  return opened.ok ? opened.plaintext : null;
}
