// The YAML data of a workflow spec, journaled next to its text (`spec-recorded`'s `document`)
// so that a resume validates the recorded data instead of parsing the YAML again (the
// parse is the largest cost of a long spec's resume). The data is recorded only when it is
// plain JSON (what the journal can hold exactly), with the hash of its JSON; a resume uses
// it only for the very text it was recorded with: the text must still have its recorded
// hash and the data its own, so anything that changed either on the way to the journal
// (the redactor scrubbing a secret) makes the resume parse the recorded text as before.
//
// Next to the data goes the spec as validating it gave (after the schemas' transforms and
// defaults, when that is plain JSON too), as JSON text, with the fingerprint of the rules that
// validated it (spec-rules.ts). A resume by a build with the same rules takes that spec and builds no
// schema; any other build, or anything that does not check out, validates the data as before.
import { createHash } from 'node:crypto';
import type { JsonValue } from '@resume/core/spec';
import { hashText } from './spec-hash.js';
import { SPEC_RULES } from './spec-rules.js';

/** The spec as validating a document gave it, under the rules `rules` names. */
export interface ValidatedSpec {
  /**
   * The spec's JSON text: reading the journal checks a text, not the spec's every value, and
   * the resume that takes it parses it into a copy of its own.
   */
  spec: string;
  /** The fingerprint of the validation rules (spec-rules.ts). */
  rules: string;
  /** `sha256:<hex>` of the rules, the data's hash and the spec's text, together. */
  hash: string;
}

/** What `spec-recorded` holds as `document`. */
export interface SpecDocument {
  data: JsonValue;
  /** `sha256:<hex>` of the data's JSON, taken before the event was written. */
  hash: string;
  validated?: ValidatedSpec;
}

export function hashDocument(data: JsonValue): string {
  return `sha256:${createHash('sha256').update(JSON.stringify(data)).digest('hex')}`;
}

/** The hash binding a validated spec to its rules and to the data it was validated from. */
function hashValidated(rules: string, dataHash: string, spec: string): string {
  return `sha256:${createHash('sha256')
    .update(JSON.stringify([rules, dataHash, spec]))
    .digest('hex')}`;
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

/**
 * The document to journal for YAML data, or undefined when JSON cannot hold it exactly. With
 * `validated` (the spec validating that data gave, under this build's rules) it holds that spec
 * too, when JSON holds it exactly and this build knows its rules' fingerprint.
 */
export function specDocumentOf(data: unknown, validated?: unknown): SpecDocument | undefined {
  if (!isPlainJson(data)) return undefined;
  const hash = hashDocument(data);
  if (SPEC_RULES === null || validated === undefined || !isPlainJson(validated)) return { data, hash };
  const spec = JSON.stringify(validated);
  return { data, hash, validated: { spec, rules: SPEC_RULES, hash: hashValidated(SPEC_RULES, hash, spec) } };
}

/** Recorded documents by the exact text they were recorded with (a process resumes few sessions). */
const recorded = new Map<string, { data: JsonValue; validated?: string }>();
const MAX_REMEMBERED = 8;

/**
 * Notes a recorded spec's document for its text, when both are as recorded (`hash` is the
 * text's recorded hash); a document that fails either check is ignored, and the text parsed.
 * Its validated spec is noted only when it was validated under this build's rules and its
 * hash still binds it to those rules and to this data; otherwise the data is validated.
 */
export function rememberRecordedDocument(text: string, hash: string, document: unknown): void {
  if (document === undefined || recorded.has(text)) return;
  const candidate = document as Partial<SpecDocument> | null;
  if (typeof candidate?.hash !== 'string' || !isPlainJson(candidate.data)) return;
  if (hashText(text) !== hash || hashDocument(candidate.data) !== candidate.hash) return;
  if (recorded.size >= MAX_REMEMBERED) recorded.delete(recorded.keys().next().value as string);
  const validated = trustedValidatedSpec(candidate.validated, candidate.hash);
  recorded.set(text, validated === undefined ? { data: candidate.data } : { data: candidate.data, validated });
}

function trustedValidatedSpec(validated: unknown, dataHash: string): string | undefined {
  if (SPEC_RULES === null || typeof validated !== 'object' || validated === null) return undefined;
  const { spec, rules, hash } = validated as Partial<ValidatedSpec>;
  if (rules !== SPEC_RULES || typeof hash !== 'string' || typeof spec !== 'string') return undefined;
  return hashValidated(rules, dataHash, spec) === hash ? spec : undefined;
}

/**
 * The recorded YAML data of exactly this text, if a resume noted one: a copy, as parsing the
 * text would give, so nothing a caller does to it reaches the session's recorded state.
 */
export function recordedDocumentOf(text: string): JsonValue | undefined {
  const data = recorded.get(text)?.data;
  return data === undefined ? undefined : structuredClone(data);
}

/**
 * The spec this text's recorded data was validated into under this build's rules, if noted:
 * parsed from its recorded JSON text at each call, so every caller gets a copy of its own.
 */
export function recordedValidatedSpecOf(text: string): JsonValue | undefined {
  const validated = recorded.get(text)?.validated;
  if (validated === undefined) return undefined;
  let spec: unknown;
  try {
    spec = JSON.parse(validated);
  } catch {
    return undefined;
  }
  return isPlainJson(spec) ? spec : undefined;
}
