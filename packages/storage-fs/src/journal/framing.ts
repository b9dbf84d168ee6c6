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

function hex8(value: number): string {
  return value.toString(16).padStart(8, '0');
}

/** Frames a JSON object (it must have at least one member) as one checksummed line ending in a newline. */
export function frameObject(value: object): Buffer {
  const json = JSON.stringify(value);
  if (json.length < 3 || json[0] !== '{') throw new TypeError('only non-empty JSON objects can be framed');
  const body = Buffer.from(json.slice(1), 'utf8');
  const line = Buffer.allocUnsafe(FRAME_PREFIX_LENGTH + body.length + 1);
  prefixStart.copy(line, 0);
  line.write(hex8(crc32(body)), prefixStart.length, 'latin1');
  prefixEnd.copy(line, prefixStart.length + 8);
  body.copy(line, FRAME_PREFIX_LENGTH);
  line[line.length - 1] = newline;
  return line;
}

export type VerifyResult = { ok: true; body: Buffer } | { ok: false; problem: string };

/** Checks one line (without its newline) against its checksum; returns the checksummed body. */
export function verifyFrame(line: Uint8Array): VerifyResult {
  const buffer = Buffer.from(line.buffer, line.byteOffset, line.byteLength);
  if (buffer.length <= FRAME_PREFIX_LENGTH) return { ok: false, problem: 'record too short' };
  if (!buffer.subarray(0, prefixStart.length).equals(prefixStart)) {
    return { ok: false, problem: 'record does not start with a checksum' };
  }
  if (!buffer.subarray(prefixStart.length + 8, FRAME_PREFIX_LENGTH).equals(prefixEnd)) {
    return { ok: false, problem: 'malformed checksum field' };
  }
  const expected = buffer.toString('latin1', prefixStart.length, prefixStart.length + 8);
  const body = buffer.subarray(FRAME_PREFIX_LENGTH);
  if (hex8(crc32(body)) !== expected) return { ok: false, problem: 'checksum mismatch' };
  return { ok: true, body };
}

/** Parses a verified body back into the framed object (still to be validated by its schema). */
export function parseBody(body: Buffer): { ok: true; value: unknown } | { ok: false; problem: string } {
  try {
    return { ok: true, value: JSON.parse(`{${body.toString('utf8')}`) };
  } catch {
    return { ok: false, problem: 'record is not valid JSON' };
  }
}

/** Checks and parses one framed line (without its newline). */
export function unframe(line: Uint8Array): { ok: true; value: unknown } | { ok: false; problem: string } {
  const verified = verifyFrame(line);
  return verified.ok ? parseBody(verified.body) : verified;
}
