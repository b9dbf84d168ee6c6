// Checksummed framing shared by every file the store writes: one JSON object per
// line whose first member is a crc32 of the rest of the line, so the line stays
// valid JSON for ordinary tools (`jq`, `grep`) while a torn or flipped byte is
// detected before anything is parsed:
//   {"crc":"1a2b3c4d","v":1,"epoch":2,...}\n
// crc32 detects every error burst of up to 32 bits, so every single-byte flip.
import { crc32 } from 'node:zlib';

const prefixStart = Buffer.from('{"crc":"');
const prefixEnd = Buffer.from('",');
/** Bytes before the checksummed body: `{"crc":"` + 8 hex digits + `",`. */
export const FRAME_PREFIX_LENGTH = prefixStart.length + 8 + prefixEnd.length;
const newline = 0x0a;

const hexDigits = Buffer.from('0123456789abcdef', 'latin1');

/** Writes `value` as 8 lowercase hex digits at `offset`, without making a string. */
function writeHex8(target: Buffer, offset: number, value: number): void {
  for (let index = 7; index >= 0; index -= 1) {
    target[offset + index] = hexDigits[value & 0xf] as number;
    value >>>= 4;
  }
}

/** The number 8 lowercase hex digits at `offset` spell (as `writeHex8` writes them), or -1 when they are not that. */
function readHex8(source: Buffer, offset: number): number {
  let value = 0;
  for (let index = 0; index < 8; index += 1) {
    const byte = source[offset + index] as number;
    const digit = byte >= 0x30 && byte <= 0x39 ? byte - 0x30 : byte >= 0x61 && byte <= 0x66 ? byte - 0x57 : -1;
    if (digit === -1) return -1;
    value = value * 16 + digit;
  }
  return value;
}

/**
 * Frames `json` (a JSON object's text) into `target` from offset 0 when it fits, returning the
 * line's length, or -1 when `target` is too small. The body is encoded once, straight into place.
 */
function frameJsonInto(json: string, target: Buffer): number {
  if (json.length < 3 || json[0] !== '{') throw new TypeError('only non-empty JSON objects can be framed');
  // The text's opening brace lands on the prefix's last byte, which is then set back to its comma.
  const written = target.write(json, FRAME_PREFIX_LENGTH - 1, 'utf8');
  const end = FRAME_PREFIX_LENGTH - 1 + written;
  // A short write (the buffer ran out) is refused: `write` stops at a whole character. A buffer of
  // 3 bytes per UTF-16 unit always holds the whole text, so its length is not counted again.
  const roomy = target.length >= FRAME_PREFIX_LENGTH + json.length * 3 + 1;
  if (end + 1 > target.length || (!roomy && Buffer.byteLength(json, 'utf8') !== written)) return -1;
  prefixStart.copy(target, 0);
  prefixEnd.copy(target, prefixStart.length + 8);
  writeHex8(target, prefixStart.length, crc32(target.subarray(FRAME_PREFIX_LENGTH, end)));
  target[end] = newline;
  return end + 1;
}

/** Frames a JSON object (it must have at least one member) as one checksummed line ending in a newline. */
export function frameObject(value: object): Buffer {
  return frameJson(JSON.stringify(value));
}

/** Frames a JSON object's text (`frameObject` for text made without `JSON.stringify`). */
export function frameJson(json: string): Buffer {
  // The prefix, the text without its opening brace, the newline.
  const line = Buffer.allocUnsafe(FRAME_PREFIX_LENGTH + Buffer.byteLength(json, 'utf8'));
  if (frameJsonInto(json, line) !== line.length) throw new TypeError('only non-empty JSON objects can be framed');
  return line;
}

/** Lines up to this size are framed in a buffer kept between appends; larger ones get their own. */
const REUSED_FRAME_LIMIT = 1024 * 1024;

/**
 * Frames lines into one buffer kept between calls (a journal's appends), so an append encodes its
 * text once, in place, and allocates nothing else. The returned line is a view of that buffer:
 * valid until the next call.
 */
export class LineFramer {
  #buffer: Buffer = Buffer.allocUnsafe(0);

  frame(value: object): Buffer {
    return this.frameJson(JSON.stringify(value));
  }

  /** `frame` for a JSON object's text. */
  frameJson(json: string): Buffer {
    // UTF-8 needs at most 3 bytes per UTF-16 unit: a buffer that large always fits.
    const bound = FRAME_PREFIX_LENGTH + json.length * 3 + 1;
    if (bound > REUSED_FRAME_LIMIT) return frameJson(json);
    if (this.#buffer.length < bound) this.#buffer = Buffer.allocUnsafe(Math.max(bound, 16 * 1024));
    const length = frameJsonInto(json, this.#buffer);
    if (length === -1) throw new TypeError('only non-empty JSON objects can be framed');
    return this.#buffer.subarray(0, length);
  }
}

export type VerifyResult = { ok: true; body: Buffer } | { ok: false; problem: string };

/** Checks one line (without its newline) against its checksum; returns the checksummed body. */
export function verifyFrame(line: Uint8Array): VerifyResult {
  const buffer = Buffer.from(line.buffer, line.byteOffset, line.byteLength);
  if (buffer.length <= FRAME_PREFIX_LENGTH) return { ok: false, problem: 'record too short' };
  // Byte by byte, without views or strings: a journal read checks every record this way.
  for (let index = 0; index < prefixStart.length; index += 1) {
    if (buffer[index] !== prefixStart[index]) return { ok: false, problem: 'record does not start with a checksum' };
  }
  if (buffer[FRAME_PREFIX_LENGTH - 2] !== prefixEnd[0] || buffer[FRAME_PREFIX_LENGTH - 1] !== prefixEnd[1]) {
    return { ok: false, problem: 'malformed checksum field' };
  }
  const expected = readHex8(buffer, prefixStart.length);
  const body = buffer.subarray(FRAME_PREFIX_LENGTH);
  if (expected === -1 || crc32(body) !== expected) return { ok: false, problem: 'checksum mismatch' };
  return { ok: true, body };
}

/** Parses a verified body back into the framed object (still to be validated by its schema). */
export function parseBody(body: Buffer): { ok: true; value: unknown } | { ok: false; problem: string } {
  try {
    return { ok: true, value: JSON.parse(bodyText(body)) };
  } catch {
    return { ok: false, problem: 'record is not valid JSON' };
  }
}

/**
 * Parses a verified body's members before the comma at `comma`, as an object by themselves (the
 * comma is read as its closing brace). Not ok when that text is not an object alone: the comma
 * was not between two of the body's own members.
 */
export function parseBodyBefore(body: Buffer, comma: number): ReturnType<typeof parseBody> {
  if (body[comma] !== 0x2c) return { ok: false, problem: 'no member ends there' };
  body[comma] = 0x7d;
  try {
    return parseBody(body.subarray(0, comma + 1));
  } finally {
    body[comma] = 0x2c;
  }
}

/**
 * `{` followed by the body, decoded once: when the body sits in a framed line (the byte before it
 * is the prefix's comma), that byte is set to `{` for the decoding and put back, instead of
 * joining the brace to a decoded copy (a snapshot's body is megabytes).
 */
function bodyText(body: Buffer): string {
  const start = body.byteOffset - 1;
  const whole = Buffer.from(body.buffer, 0, body.byteOffset + body.length);
  if (start < 0 || whole[start] !== 0x2c) return `{${body.toString('utf8')}`;
  whole[start] = 0x7b;
  try {
    return whole.toString('utf8', start, whole.length);
  } finally {
    whole[start] = 0x2c;
  }
}

/** Checks and parses one framed line (without its newline). */
export function unframe(line: Uint8Array): { ok: true; value: unknown } | { ok: false; problem: string } {
  const verified = verifyFrame(line);
  return verified.ok ? parseBody(verified.body) : verified;
}
