import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  hashDocument,
  isPlainJson,
  recordedDocumentOf,
  rememberRecordedDocument,
  specDocumentOf,
} from './spec-document.js';
import { hashText } from './spec-hash.js';

describe('the YAML data journaled with a workflow spec', () => {
  it('is recorded only when JSON holds it exactly', () => {
    expect(isPlainJson(parse('name: x\nsteps: [{ shell: "true" }, 1, 2.5, null, false]'))).toBe(true);
    expect(isPlainJson(parse('a: &shared { b: 1 }\nc: *shared'))).toBe(true);
    for (const text of ['a: .inf', 'a: -.inf', 'a: .nan', 'a: -0']) expect(isPlainJson(parse(text))).toBe(false);
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(isPlainJson(circular)).toBe(false);
    expect(isPlainJson(new Array(2))).toBe(false);
    expect(isPlainJson([1, undefined, 3])).toBe(false);
    expect(isPlainJson({ at: new Date(0) })).toBe(false);
    expect(isPlainJson({ missing: undefined })).toBe(false);
    expect(isPlainJson(JSON.parse('{"__proto__": {"x": 1}}'))).toBe(false);
    expect(specDocumentOf(parse('a: .inf'))).toBeUndefined();
    expect(specDocumentOf({ a: 1 })).toEqual({ data: { a: 1 }, hash: hashDocument({ a: 1 }) });
  });

  it('stands in for the text it was recorded with only while text and data both keep their hashes', () => {
    const text = 'name: remembered\nsteps:\n  - shell: "true"\n';
    const data = parse(text);
    rememberRecordedDocument(text, 'sha256:not-this-text', { data, hash: hashDocument(data) });
    expect(recordedDocumentOf(text)).toBeUndefined();
    rememberRecordedDocument(text, hashText(text), { data: { ...data, name: 'changed' }, hash: hashDocument(data) });
    expect(recordedDocumentOf(text)).toBeUndefined();
    rememberRecordedDocument(text, hashText(text), { data, hash: hashDocument(data) });
    expect(recordedDocumentOf(text)).toEqual(data);
    expect(recordedDocumentOf(`${text}\n`)).toBeUndefined();
    // Each caller gets its own copy: a change to one reaches neither the recorded data nor the next caller.
    const first = recordedDocumentOf(text) as { steps: unknown[] };
    first.steps.push({ shell: 'changed' });
    expect(recordedDocumentOf(text)).toEqual(data);
    expect(data.steps).toHaveLength(1);
  });
});
