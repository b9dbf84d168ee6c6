// One value through the saver's serde and back: inline JSON, base64, or a content-addressed
// blob when the serialized bytes exceed the threshold. `key` identifies the serialized
// content, so a list can be compared with an earlier version item by item.
import { createHash } from 'node:crypto';
import { JsonPlusSerializer, type SerializerProtocol } from '@langchain/langgraph-checkpoint';
import type { SessionStore } from '@resume/core/spec';
import type { StoredItem } from './graph-records.js';

export interface ItemCodec {
  serde: SerializerProtocol;
  store: SessionStore;
  blobThreshold: number;
}

/** An item as the saver holds it: what is journaled, and its comparison key once known. */
export interface ItemRecord {
  stored: StoredItem;
  key?: string;
}

export interface EncodedItem extends ItemRecord {
  key: string;
  /** Bytes still to be written to the blob store, for a blob item. */
  blobBytes?: Uint8Array;
}

const decoder = new TextDecoder();

export async function encodeItem(codec: ItemCodec, value: unknown): Promise<EncodedItem> {
  const [type, bytes] = await codec.serde.dumpsTyped(value);
  if (bytes.byteLength > codec.blobThreshold) {
    const hash = createHash('sha256').update(bytes).digest('hex');
    return { stored: { type, blob: hash }, key: `#${type}:${hash}`, blobBytes: bytes };
  }
  if (type === 'json') {
    const text = decoder.decode(bytes);
    return { stored: { type, json: JSON.parse(text) }, key: text };
  }
  const base64 = Buffer.from(bytes).toString('base64');
  return { stored: { type, base64 }, key: `${type}:${base64}` };
}

/** The comparison key of an item read back from the journal (computed once). */
export function itemKey(item: ItemRecord): string {
  if (item.key !== undefined) return item.key;
  const { stored } = item;
  item.key =
    'json' in stored
      ? JSON.stringify(stored.json)
      : 'blob' in stored
        ? `#${stored.type}:${stored.blob}`
        : `${stored.type}:${stored.base64}`;
  return item.key;
}

/** Writes the blobs of freshly encoded items (before the event that names them). */
export async function storeBlobs(codec: ItemCodec, items: Iterable<EncodedItem>): Promise<void> {
  for (const item of items) {
    if (item.blobBytes) {
      await codec.store.putBlob(item.blobBytes);
      delete item.blobBytes;
    }
  }
}

/**
 * The value back at once when it is JSON that LangGraph's own serializer would give back as it is
 * (most values: see plainCopy); null when it has to go through `decodedThrough`.
 */
export function decodedNow(codec: ItemCodec, item: ItemRecord): { value: unknown } | null {
  const { stored } = item;
  if (!('json' in stored) || Object.getPrototypeOf(codec.serde) !== JsonPlusSerializer.prototype) return null;
  const copy = plainCopy(stored.json);
  return copy === NOT_PLAIN ? null : { value: copy };
}

/** The value back; null when a blob is missing (the caller names the thread in its error). */
export async function decodeItem(codec: ItemCodec, item: ItemRecord): Promise<{ value: unknown } | null> {
  return decodedNow(codec, item) ?? decodedThrough(codec, item);
}

/** `decodeItem` for an item `decodedNow` did not give back: through the serializer (and the blob store). */
export async function decodedThrough(codec: ItemCodec, item: ItemRecord): Promise<{ value: unknown } | null> {
  const { stored } = item;
  if ('json' in stored) {
    return { value: await codec.serde.loadsTyped(stored.type, item.key ?? JSON.stringify(stored.json)) };
  }
  if ('base64' in stored) {
    return { value: await codec.serde.loadsTyped(stored.type, new Uint8Array(Buffer.from(stored.base64, 'base64'))) };
  }
  const bytes = await codec.store.getBlob(stored.blob);
  if (!bytes) return null;
  return { value: await codec.serde.loadsTyped(stored.type, bytes) };
}

const NOT_PLAIN = Symbol('not plain');

/**
 * What LangGraph's own serializer gives for JSON without a record of its own, made directly.
 * That serializer parses the text and revives the records its writer tags with an `lc` key
 * (`undefined`, Set, Map, LangChain objects); any other value comes back as a fresh copy of
 * itself. A journal value is already parsed, so printing it for the serializer to parse again
 * is skipped for a value with no `lc` key (nor `__proto__`, which its reviver treats apart) at
 * any depth. NOT_PLAIN otherwise: the serializer reads it.
 */
function plainCopy(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return Object.is(value, -0) ? 0 : value;
  if (Array.isArray(value)) {
    const copy: unknown[] = new Array(value.length);
    for (let index = 0; index < value.length; index++) {
      const element = plainCopy(value[index]);
      if (element === NOT_PLAIN) return NOT_PLAIN;
      copy[index] = element;
    }
    return copy;
  }
  const copy: Record<string, unknown> = {};
  for (const key in value) {
    if (key === 'lc' || key === '__proto__') return NOT_PLAIN;
    const field = plainCopy((value as Record<string, unknown>)[key]);
    if (field === NOT_PLAIN) return NOT_PLAIN;
    copy[key] = field;
  }
  return copy;
}
