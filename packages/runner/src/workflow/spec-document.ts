// The YAML data of a workflow spec, journaled next to its text (`spec-recorded`'s `document`)
// so that a resume validates the recorded data instead of parsing the YAML again (the
// parse is the largest cost of a long spec's resume). The data is recorded only when it is
// plain JSON (what the journal can hold exactly), with the hash of its JSON; a resume uses
// it only for the very text it was recorded with: the text must still have its recorded
// hash and the data its own, so anything that changed either on the way to the journal
// (the redactor scrubbing a secret) makes the resume parse the recorded text as before.
import { createHash } from 'node:crypto';
import type { JsonValue } from '@resume/core/spec';
import { hashText } from './spec-hash.js';

/** What `spec-recorded` holds as `document`. */
export interface SpecDocument {
  data: JsonValue;
  /** `sha256:<hex>` of the data's JSON, taken before the event was written. */
  hash: string;
}

export function hashDocument(data: JsonValue): string {
  return `sha256:${createHash('sha256').update(JSON.stringify(data)).digest('hex')}`;
}

/**
 * Whether JSON holds `value` exactly: strings, finite numbers (not -0), booleans, null, arrays
 * without holes and plain objects, without cycles. YAML can hold more (.inf, .nan, shared or
 * circular aliases): such a spec is recorded without its data.
 */
export function isPlainJson(value: unknown, within: Set<object> = new Set()): value is JsonValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0);
  if (typeof value !== 'object' || within.has(value)) return false;
  within.add(value);
  try {
    if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index += 1) {
        if (!(index in value) || !isPlainJson(value[index], within)) return false;
      }
      return true;
    }
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) return false;
    if (Object.getOwnPropertySymbols(value).length > 0) return false;
    for (const key of Object.keys(value)) {
      if (key === '__proto__' || !isPlainJson((value as Record<string, unknown>)[key], within)) return false;
    }
    return true;
  } finally {
    within.delete(value);
  }
}

/** The document to journal for YAML data, or undefined when JSON cannot hold it exactly. */
export function specDocumentOf(data: unknown): SpecDocument | undefined {
  if (!isPlainJson(data)) return undefined;
  return { data, hash: hashDocument(data) };
}

/** Recorded documents by the exact text they were recorded with (a process resumes few sessions). */
const recorded = new Map<string, JsonValue>();
const MAX_REMEMBERED = 8;

/**
 * Notes a recorded spec's document for its text, when both are as recorded (`hash` is the
 * text's recorded hash); a document that fails either check is ignored, and the text parsed.
 * Anything else the document holds is ignored: sessions recorded by 0.x builds between
 * decisions 0019 and its reversal also hold a `validated` spec, which is validated again from
 * the data like any other.
 */
export function rememberRecordedDocument(text: string, hash: string, document: unknown): void {
  if (document === undefined || recorded.has(text)) return;
  const candidate = document as Partial<SpecDocument> | null;
  if (typeof candidate?.hash !== 'string' || !isPlainJson(candidate.data)) return;
  if (hashText(text) !== hash || hashDocument(candidate.data) !== candidate.hash) return;
  if (recorded.size >= MAX_REMEMBERED) recorded.delete(recorded.keys().next().value as string);
  recorded.set(text, candidate.data);
}

/**
 * The recorded YAML data of exactly this text, if a resume noted one: a copy, as parsing the
 * text would give, so nothing a caller does to it reaches the session's recorded state.
 */
export function recordedDocumentOf(text: string): JsonValue | undefined {
  const data = recorded.get(text);
  return data === undefined ? undefined : structuredClone(data);
}
