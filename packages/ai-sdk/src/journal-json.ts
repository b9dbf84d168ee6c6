// The AI SDK's results carry values JSON does not keep (a response timestamp is a `Date`,
// a generated file may be a `Uint8Array`, a stream's error part holds an `Error`). These
// functions turn such a value into plain JSON for the journal and back, so a replayed
// result has the same shape as the live one. Tagged objects use one reserved key.
import { createHash } from 'node:crypto';
import type { JsonValue } from '@resume/core';

const TAG = '__conclave';

type Tagged =
  | { [TAG]: 'date'; value: string }
  | { [TAG]: 'bytes'; base64: string }
  | { [TAG]: 'url'; href: string }
  | { [TAG]: 'error'; name: string; message: string };

/** A JSON form of `value`: undefined fields and functions are left out, dates, bytes, URLs and errors are tagged. */
export function toJson(value: unknown): JsonValue {
  return encode(value, new WeakSet()) ?? null;
}

function encode(value: unknown, seen: WeakSet<object>): JsonValue | undefined {
  if (value === null) return null;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : null;
    case 'bigint':
      return value.toString();
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
  }
  const object = value as object;
  if (object instanceof Date) return tagged({ [TAG]: 'date', value: object.toISOString() });
  if (object instanceof Uint8Array) {
    return tagged({ [TAG]: 'bytes', base64: Buffer.from(object).toString('base64') });
  }
  if (object instanceof ArrayBuffer) {
    return tagged({ [TAG]: 'bytes', base64: Buffer.from(object).toString('base64') });
  }
  if (object instanceof URL) return tagged({ [TAG]: 'url', href: object.href });
  if (object instanceof Error) return tagged({ [TAG]: 'error', name: object.name, message: object.message });
  if (seen.has(object)) return undefined;
  seen.add(object);
  try {
    if (Array.isArray(object)) return object.map((item) => encode(item, seen) ?? null);
    const result: Record<string, JsonValue> = {};
    for (const [key, item] of Object.entries(object)) {
      const encoded = encode(item, seen);
      if (encoded !== undefined) result[key] = encoded;
    }
    return result;
  } finally {
    seen.delete(object);
  }
}

function tagged(value: Tagged): JsonValue {
  return value as unknown as JsonValue;
}

/** The value `toJson` was given back (dates, bytes, URLs and errors rebuilt). */
export function fromJson(value: JsonValue): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(fromJson);
  const tag = value[TAG];
  if (typeof tag === 'string') {
    const record = value as Record<string, string>;
    if (tag === 'date') return new Date(record.value ?? '');
    if (tag === 'bytes') return new Uint8Array(Buffer.from(record.base64 ?? '', 'base64'));
    if (tag === 'url') return new URL(record.href ?? '');
    if (tag === 'error') {
      const error = new Error(record.message);
      error.name = record.name ?? 'Error';
      return error;
    }
  }
  const result: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) result[key] = fromJson(item);
  return result;
}

/** sha256 of a value's JSON form with object keys sorted: the same for equal values whatever their key order. */
export function hashOf(value: unknown): string {
  return createHash('sha256')
    .update(canonical(toJson(value)))
    .digest('hex');
}

function canonical(value: JsonValue): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(value[key] as JsonValue)}`).join(',')}}`;
}
