import { type SessionSummary, sessionSummarySchema } from '@resume/core/spec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compileExactCheck, type ExactCheck, exactCheckSource } from './exact-check.js';

const entrySchema = z.object({
  id: z.string(),
  summary: sessionSummarySchema.nullable(),
  journalSize: z.number().int().nonnegative(),
  archived: z.boolean(),
});
const indexFileSchema = z.object({ v: z.literal(1), entries: z.array(entrySchema) });

const sessionId = fc.stringMatching(/^[0-9a-hjkmnp-tv-z]{22}$/);
const summary: fc.Arbitrary<SessionSummary> = fc.record({
  id: sessionId,
  title: fc.string(),
  mode: fc.constantFrom('discussion', 'iterative', 'orchestrated', 'chain', 'prompt', 'custom'),
  status: fc.constantFrom('running', 'interrupted', 'completed', 'failed'),
  workspaceDir: fc.option(fc.string(), { nil: null }),
  createdAt: fc.string(),
  updatedAt: fc.string(),
  parentId: fc.option(sessionId, { nil: null }),
  branchPoint: fc.option(fc.nat(), { nil: null }),
  lastSeq: fc.nat(),
  messageCount: fc.nat(),
  progress: fc.option(
    fc.record({ label: fc.string(), done: fc.nat(), total: fc.option(fc.integer(), { nil: null }) }),
    { nil: null },
  ),
  inputTokens: fc.nat(),
  outputTokens: fc.nat(),
  costUsd: fc.option(fc.double({ min: 0, noNaN: true, noDefaultInfinity: true }), { nil: null }),
  task: fc.option(fc.string(), { nil: null }),
  archived: fc.boolean(),
  bytes: fc.option(fc.nat(), { nil: null }),
});
const indexFile = fc.record({
  v: fc.constant(1 as const),
  entries: fc.array(
    fc.record({
      id: fc.string(),
      summary: fc.option(summary, { nil: null }),
      journalSize: fc.nat(),
      archived: fc.boolean(),
    }),
    { maxLength: 4 },
  ),
});

/** Any value a hostile or damaged index could hold in one place. */
const strange = fc.oneof(
  fc.anything(),
  fc.constantFrom(-1, 0.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, '', 'consensus', '../x', null, undefined),
  fc.string(),
  fc.integer(),
  fc.double(),
);

/** Replaces, adds or removes one value somewhere inside `value`. */
function mutate(value: unknown, path: number[], replacement: unknown, operation: number): unknown {
  if (typeof value !== 'object' || value === null) return replacement;
  const copy: Record<string, unknown> | unknown[] = Array.isArray(value) ? [...value] : { ...value };
  const keys = Object.keys(copy);
  const step = path[0];
  if (step === undefined || keys.length === 0) {
    if (operation === 0) (copy as Record<string, unknown>)[`extra${keys.length}`] = replacement;
    else if (keys.length > 0) delete (copy as Record<string, unknown>)[keys[0] as string];
    return copy;
  }
  const key = keys[step % keys.length] as string;
  const next = (copy as Record<string, unknown>)[key];
  (copy as Record<string, unknown>)[key] =
    path.length === 1 && operation === 2 ? replacement : mutate(next, path.slice(1), replacement, operation);
  return copy;
}

/** The written-out check, evaluated as the module it is. */
function fromSource(schema: z.ZodType): ExactCheck | null {
  const source = exactCheckSource(schema, 'check');
  if (source === null) return null;
  return new Function(`${source.replace('export function check', 'function check')}\nreturn check;`)() as ExactCheck;
}

const implementations = [
  ['compileExactCheck', compileExactCheck],
  ['exactCheckSource', fromSource],
] as const;

describe.each(implementations)('%s on the listing index schema', (_name, compile) => {
  const check = compile(indexFileSchema);

  it('compiles the index schema', () => {
    expect(check).not.toBeNull();
  });

  it('takes every valid index (what the store writes) on the quick path', () => {
    fc.assert(
      fc.property(indexFile, (value) => {
        const copy = JSON.parse(JSON.stringify(value));
        expect(check?.(copy)).toBe(true);
        expect(indexFileSchema.parse(copy)).toEqual(copy);
      }),
    );
  });

  it('never accepts a value zod refuses or would return changed', () => {
    fc.assert(
      fc.property(
        indexFile,
        fc.array(fc.nat(), { maxLength: 6 }),
        strange,
        fc.nat({ max: 2 }),
        (value, path, replacement, operation) => {
          const mutated = mutate(value, path, replacement, operation);
          if (!check?.(mutated)) return;
          const parsed = indexFileSchema.safeParse(mutated);
          expect(parsed.success).toBe(true);
          expect(parsed.data).toStrictEqual(mutated);
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('refuses ids outside the session id alphabet, unknown keys, missing defaults and impossible numbers', () => {
    const valid = {
      v: 1,
      entries: [
        {
          id: 'x',
          summary: sessionSummarySchema.parse({
            id: '0001m80bjd46jet6n0qyda',
            title: 't',
            mode: 'discussion',
            status: 'completed',
            workspaceDir: null,
            createdAt: 'a',
            updatedAt: 'b',
            parentId: null,
            branchPoint: null,
            lastSeq: 3,
            messageCount: 1,
            progress: null,
            inputTokens: 0,
            outputTokens: 0,
            costUsd: null,
            task: null,
          }),
          journalSize: 10,
          archived: false,
        },
      ],
    };
    expect(check?.(valid)).toBe(true);
    const withSummary = (change: Record<string, unknown>) => ({
      ...valid,
      entries: [{ ...valid.entries[0], summary: { ...valid.entries[0]?.summary, ...change } }],
    });
    expect(check?.(withSummary({ id: '../../etc/passwd' }))).toBe(false);
    expect(check?.(withSummary({ parentId: 'ABC' }))).toBe(false);
    expect(check?.(withSummary({ planted: true }))).toBe(false);
    expect(check?.(withSummary({ lastSeq: -1 }))).toBe(false);
    expect(check?.(withSummary({ lastSeq: 1.5 }))).toBe(false);
    expect(check?.(withSummary({ costUsd: -0.01 }))).toBe(false);
    expect(check?.(withSummary({ mode: 'Not a mode!' }))).toBe(false);
    expect(check?.(withSummary({ mode: 'code-review' }))).toBe(true);
    const { bytes: _bytes, ...withoutDefault } = valid.entries[0]?.summary ?? ({} as SessionSummary);
    expect(check?.({ ...valid, entries: [{ ...valid.entries[0], summary: withoutDefault }] })).toBe(false);
    expect(
      indexFileSchema.safeParse({ ...valid, entries: [{ ...valid.entries[0], summary: withoutDefault }] }).success,
    ).toBe(true);
    expect(check?.({ ...valid, v: 2 })).toBe(false);
  });
});

describe.each(implementations)('%s on constructs it does not handle', (_name, compile) => {
  it('returns null rather than a check that could be weaker than zod', () => {
    expect(compile(z.string().email())).toBeNull();
    expect(compile(z.string().transform((text) => text.length))).toBeNull();
    expect(compile(z.object({ value: z.number().refine((number) => number % 2 === 0) }))).toBeNull();
    expect(compile(z.looseObject({ value: z.number() }))).toBeNull();
    expect(compile(z.union([z.string(), z.number()]))).toBeNull();
  });

  it('handles strict objects, optional keys and length limits like zod', () => {
    const schema = z.strictObject({ name: z.string().min(2).max(4), tags: z.array(z.string()).min(1).optional() });
    const check = compile(schema);
    expect(check?.({ name: 'abc' })).toBe(true);
    expect(check?.({ name: 'abc', tags: ['x'] })).toBe(true);
    expect(check?.({ name: 'a' })).toBe(false);
    expect(check?.({ name: 'abcde' })).toBe(false);
    expect(check?.({ name: 'abc', tags: [] })).toBe(false);
    expect(check?.({ name: 'abc', other: 1 })).toBe(false);
  });
});
