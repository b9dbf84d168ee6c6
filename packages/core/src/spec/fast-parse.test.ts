import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  fastParseSessionHeader,
  journalEventSchema,
  jsonValueSchema,
  parseJournalEvent,
  sessionHeaderSchema,
} from './events.js';
import { compileFastParse, type FastParse, fastParser, fastSafeParser, NOT_PROVEN } from './fast-parse.js';
import { fastParseSource } from './fast-parse-source.js';
import { fastParseJournalEvent } from './journal-event-parse.generated.js';
import { fastParseSessionSummary, sessionSummarySchema } from './summary.js';

const sessionId = fc.stringMatching(/^[0-9a-hjkmnp-tv-z]{22}$/);
const text = fc.string({ maxLength: 12 });
const key = fc.string({ minLength: 1, maxLength: 6 });
const positive = fc.integer({ min: 1, max: 2 ** 40 });
const json = fc.jsonValue({ maxDepth: 3 });
const errorInfo = fc.record(
  { name: text, message: text, code: fc.option(text, { nil: null }), retryable: fc.boolean() },
  { noNullPrototype: true, requiredKeys: ['name', 'message'] },
);
const within = fc.record({ key, occurrence: positive }, { noNullPrototype: true });
const header = fc.record(
  {
    id: sessionId,
    title: text,
    mode: fc.constantFrom('custom', 'chain', 'code-review'),
    workspaceDir: fc.option(text, { nil: null }),
    createdAt: text,
    parentId: fc.option(sessionId, { nil: null }),
    branchPoint: fc.option(fc.nat(), { nil: null }),
    specHash: fc.option(text, { nil: null }),
    formatVersion: positive,
    options: fc.dictionary(text, json, { maxKeys: 3, noNullPrototype: true }),
    git: fc.option(
      fc.record(
        { branch: fc.option(text, { nil: null }), head: fc.option(text, { nil: null }) },
        { noNullPrototype: true },
      ),
      { nil: null },
    ),
  },
  { noNullPrototype: true },
);

/** Fields of each event type after the common ones; keys not listed in `required` may be left out. */
const bodies: Record<string, [Record<string, fc.Arbitrary<unknown>>, string[]]> = {
  'session-created': [{ header, setup: fc.nat(), copied: fc.nat() }, ['header']],
  'message-added': [
    {
      message: fc.record(
        {
          role: fc.constantFrom('system', 'user', 'assistant', 'tool'),
          content: fc.string({ maxLength: 40 }),
          speaker: fc.option(text, { nil: null }),
          round: fc.option(fc.nat(), { nil: null }),
          toolCalls: fc.array(fc.record({ id: text, name: text, args: json }, { noNullPrototype: true }), {
            maxLength: 2,
          }),
          toolCallId: text,
          tags: fc.array(text, { maxLength: 3 }),
        },
        { noNullPrototype: true, requiredKeys: ['role', 'content'] },
      ),
    },
    ['message'],
  ],
  'step-started': [
    {
      key,
      occurrence: positive,
      attempt: positive,
      safety: fc.constantFrom('idempotent', 'unsafe'),
      idempotencyKey: text,
    },
    ['key', 'occurrence', 'attempt', 'safety', 'idempotencyKey'],
  ],
  'step-completed': [
    { key, occurrence: positive, attempt: positive, output: json, outputBlob: text },
    ['key', 'occurrence', 'attempt'],
  ],
  'step-failed': [
    { key, occurrence: positive, attempt: positive, error: errorInfo, willRetry: fc.boolean() },
    ['key', 'occurrence', 'attempt', 'error', 'willRetry'],
  ],
  'step-skipped': [{ key, occurrence: positive, reason: text, output: json }, ['key', 'occurrence', 'reason']],
  'tool-call-started': [
    { callId: text, name: text, args: json, stepKey: fc.option(text, { nil: null }) },
    ['callId', 'name', 'args'],
  ],
  'tool-call-completed': [
    { callId: text, name: text, result: json, isError: fc.boolean() },
    ['callId', 'name', 'result'],
  ],
  'variables-set': [{ variables: fc.dictionary(text, json, { maxKeys: 3, noNullPrototype: true }) }, ['variables']],
  'file-snapshot-taken': [
    {
      path: text,
      hash: fc.option(text, { nil: null }),
      size: fc.nat(),
      blob: fc.option(text, { nil: null }),
      access: fc.constantFrom('read', 'write'),
    },
    ['path', 'hash', 'size', 'blob', 'access'],
  ],
  'file-version-saved': [
    { path: text, hash: text, size: fc.nat(), blob: text, reason: fc.constant('replaced-by-restore') },
    ['path', 'hash', 'size', 'blob', 'reason'],
  ],
  'usage-recorded': [
    {
      provider: text,
      model: text,
      agent: fc.option(text, { nil: null }),
      round: fc.option(fc.nat(), { nil: null }),
      stepKey: fc.option(text, { nil: null }),
      inputTokens: fc.nat(),
      outputTokens: fc.nat(),
      costUsd: fc.option(fc.double({ min: 0, noNaN: true, noDefaultInfinity: true }), { nil: null }),
    },
    ['provider', 'model', 'inputTokens', 'outputTokens', 'costUsd'],
  ],
  'checkpoint-marked': [{ label: fc.option(text, { nil: null }) }, ['label']],
  'status-changed': [
    {
      status: fc.constantFrom('running', 'interrupted', 'waiting', 'completed', 'failed'),
      reason: fc.option(text, { nil: null }),
      error: fc.option(errorInfo, { nil: null }),
    },
    ['status'],
  ],
  'session-resumed': [
    { recovery: positive, pid: fc.integer(), host: text, crashed: fc.boolean() },
    ['recovery', 'pid', 'host'],
  ],
  'data-set': [{ key, value: json }, ['key', 'value']],
  'spec-recorded': [
    {
      kind: fc.constantFrom('task', 'workflow', 'prompt', 'project'),
      path: fc.option(text, { nil: null }),
      hash: text,
      blob: fc.option(text, { nil: null }),
      content: text,
    },
    ['kind', 'path', 'hash', 'blob'],
  ],
  'title-changed': [{ title: text }, ['title']],
  'input-requested': [
    { key, occurrence: positive, prompt: text, schema: fc.option(json, { nil: null }) },
    ['key', 'occurrence', 'prompt'],
  ],
  'input-received': [
    { key, occurrence: positive, value: json, answeredBy: fc.option(text, { nil: null }) },
    ['key', 'occurrence', 'value'],
  ],
  'graph-checkpoint-saved': [
    { namespace: text, checkpointId: key, parentCheckpointId: fc.option(key, { nil: null }), data: json },
    ['namespace', 'checkpointId', 'parentCheckpointId', 'data'],
  ],
  'graph-writes-saved': [
    { namespace: text, checkpointId: key, taskId: text, data: json },
    ['namespace', 'checkpointId', 'taskId', 'data'],
  ],
};

/** An event of any type, with optional and defaulted members sometimes left out, members in any order. */
const event: fc.Arbitrary<Record<string, unknown>> = fc.constantFrom(...Object.keys(bodies)).chain((type) => {
  const [fields, required] = bodies[type] as [Record<string, fc.Arbitrary<unknown>>, string[]];
  return fc
    .tuple(
      fc.record<Record<string, unknown>>(
        { seq: positive, at: text, within, ...fields, type: fc.constant(type) },
        { noNullPrototype: true, requiredKeys: ['seq', 'at', 'type', ...required] },
      ),
      fc.boolean(),
    )
    .map(([value, reversed]) =>
      reversed ? (Object.fromEntries(Object.entries(value).reverse()) as Record<string, unknown>) : value,
    );
});

/** Any value a caller, a damaged record or a hostile file could hold in one place. */
const strange = fc.oneof(
  fc.anything(),
  fc.constantFrom(-1, 0, 0.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, '', null, undefined, [], {}),
  fc.constantFrom('message-added', 'step-started', 'user', 'unsafe', 'read', 'completed'),
  fc.string(),
  fc.integer(),
);

/** Replaces, adds or removes one value somewhere inside `value`. */
function mutate(value: unknown, path: number[], replacement: unknown, operation: number): unknown {
  if (typeof value !== 'object' || value === null) return replacement;
  const copy: Record<string, unknown> | unknown[] = Array.isArray(value) ? [...value] : { ...value };
  const keys = Object.keys(copy);
  const step = path[0];
  if (step === undefined || keys.length === 0) {
    if (operation === 0) (copy as Record<string, unknown>)[`extra${keys.length}`] = replacement;
    else if (operation === 1 && keys.length > 0) delete (copy as Record<string, unknown>)[keys[0] as string];
    else if (keys.length > 0) (copy as Record<string, unknown>)[keys[0] as string] = undefined;
    return copy;
  }
  const key = keys[step % keys.length] as string;
  const next = (copy as Record<string, unknown>)[key];
  (copy as Record<string, unknown>)[key] =
    path.length === 1 && operation === 2 ? replacement : mutate(next, path.slice(1), replacement, operation);
  return copy;
}

/** The fast parser answers with zod's own result (values, defaults, member order) or leaves the value to zod. */
/** Whether `value` has an own `__proto__` member anywhere (as `JSON.parse` makes one). */
function holdsProtoKey(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (Object.hasOwn(value, '__proto__')) return true;
  return Object.values(value).some(holdsProtoKey);
}

function agreesWithZod(schema: z.ZodType, value: unknown, written?: FastParse<unknown>): void {
  const fast = written ?? compileFastParse(schema);
  expect(fast).not.toBeNull();
  const answer = fast?.(value);
  if (answer === NOT_PROVEN) return;
  const zod = schema.safeParse(value);
  expect(zod.success).toBe(true);
  expect(answer).toStrictEqual(zod.data);
  // Member order too: the journal's bytes are the JSON of what the parser returns.
  expect(JSON.stringify(answer)).toBe(JSON.stringify(zod.data));
}

// The parser compiled at run time and the one written out (journal-event-parse.generated.ts)
// answer alike: both are checked against zod the same way.
describe.each([
  ['compileFastParse', () => compileFastParse(journalEventSchema)],
  ['the written-out parser', () => fastParseJournalEvent as FastParse<unknown>],
])('%s on the journal event schema', (_name, parser) => {
  const fast = parser();
  const written = fast ?? undefined;

  it('compiles (the event schema uses only constructs it handles)', () => {
    expect(fast).not.toBeNull();
  });

  it('answers valid events of every type itself, exactly as zod parses them', () => {
    const answered = new Set<string>();
    fc.assert(
      fc.property(event, (value) => {
        const answer = fast?.(value);
        // A `__proto__` key (JSON can hold one: `{"__proto__": 1}`) is left to zod, which drops it.
        if (holdsProtoKey(value)) expect(answer).toBe(NOT_PROVEN);
        else expect(answer).not.toBe(NOT_PROVEN);
        agreesWithZod(journalEventSchema, value, written);
        answered.add(value.type as string);
      }),
      { numRuns: 2000 },
    );
    expect([...answered].sort()).toEqual(Object.keys(bodies).sort());
  }, 120_000);

  it('never accepts what zod refuses, nor returns anything zod would not (damaged, hostile or unusual events)', () => {
    fc.assert(
      fc.property(
        event,
        fc.array(fc.nat(), { minLength: 1, maxLength: 5 }),
        strange,
        fc.integer({ min: 0, max: 3 }),
        (value, path, replacement, operation) => {
          agreesWithZod(journalEventSchema, mutate(value, path, replacement, operation), written);
        },
      ),
      { numRuns: 5000 },
    );
  }, 120_000);

  it('leaves an event holding a `__proto__` key to zod, whatever its depth', () => {
    for (const output of ['{"__proto__":1}', '{"a":{"__proto__":[1]}}', '[{"__proto__":null}]']) {
      const value = { type: 'step-completed', seq: 3, at: 'now', key: 'k', occurrence: 1, attempt: 1 };
      const withOutput = { ...value, output: JSON.parse(output) as unknown };
      expect(fast?.(withOutput)).toBe(NOT_PROVEN);
      agreesWithZod(journalEventSchema, withOutput, written);
    }
  });

  it('agrees with zod on arbitrary values', () => {
    fc.assert(
      fc.property(fc.anything({ withObjectString: true, withNullPrototype: true }), (value) => {
        agreesWithZod(journalEventSchema, value, written);
      }),
      { numRuns: 2000 },
    );
  }, 120_000);

  it('fills defaults and drops unknown members as zod does, and leaves class instances and undefined members to zod', () => {
    const input = { type: 'message-added', seq: 3, at: 'now', extra: 1, message: { content: 'hi', role: 'user' } };
    expect(fast?.(input)).toStrictEqual({
      seq: 3,
      at: 'now',
      type: 'message-added',
      message: { role: 'user', content: 'hi', speaker: null, round: null },
    });
    expect(fast?.({ ...input, within: undefined })).toBe(NOT_PROVEN);
    expect(fast?.(Object.assign(Object.create({ inherited: true }), input))).toBe(NOT_PROVEN);
    expect(fast?.({ ...input, seq: 0 })).toBe(NOT_PROVEN);
  });
});

/** The parser `fastParseSource` writes for `schema`, loaded as the generated module would be. */
function writtenParser(schema: z.ZodType): FastParse<unknown> | null {
  const source = fastParseSource({ written: schema });
  if (source === null) return null;
  const body = `${source.replace(/^export function written/m, 'function written')}\nreturn written;`;
  return new Function('NOT_PROVEN', body)(NOT_PROVEN) as FastParse<unknown>;
}

describe('compileFastParse on other schemas', () => {
  it('agrees with zod on JSON values and on session summaries (compiled, and written out)', () => {
    const writtenJson = writtenParser(jsonValueSchema);
    const writtenSummary = writtenParser(sessionSummarySchema);
    expect(writtenJson).not.toBeNull();
    expect(writtenSummary).not.toBeNull();
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.anything()), (value) => {
        agreesWithZod(jsonValueSchema, value);
        agreesWithZod(jsonValueSchema, value, writtenJson ?? undefined);
      }),
      { numRuns: 1000 },
    );
    const summary = fc.record(
      {
        id: sessionId,
        title: text,
        mode: fc.constantFrom('custom', 'chain'),
        status: fc.constantFrom('running', 'completed'),
        workspaceDir: fc.option(text, { nil: null }),
        createdAt: text,
        updatedAt: text,
        parentId: fc.constant(null),
        branchPoint: fc.constant(null),
        lastSeq: fc.nat(),
        messageCount: fc.nat(),
        progress: fc.constant(null),
        inputTokens: fc.nat(),
        outputTokens: fc.nat(),
        costUsd: fc.option(fc.double({ min: 0, noNaN: true, noDefaultInfinity: true }), { nil: null }),
        task: fc.option(text, { nil: null }),
      },
      { noNullPrototype: true },
    );
    fc.assert(
      fc.property(
        summary,
        fc.array(fc.nat(), { minLength: 1, maxLength: 3 }),
        strange,
        fc.nat(3),
        (value, path, replacement, op) => {
          expect(compileFastParse(sessionSummarySchema)?.(value)).not.toBe(NOT_PROVEN);
          expect(writtenSummary?.(value)).not.toBe(NOT_PROVEN);
          agreesWithZod(sessionSummarySchema, value);
          agreesWithZod(sessionSummarySchema, mutate(value, path, replacement, op));
          agreesWithZod(sessionSummarySchema, value, writtenSummary ?? undefined);
          expect(fastParseSessionSummary(value)).not.toBe(NOT_PROVEN);
          agreesWithZod(sessionSummarySchema, value, fastParseSessionSummary);
          agreesWithZod(sessionSummarySchema, mutate(value, path, replacement, op), fastParseSessionSummary);
          agreesWithZod(sessionSummarySchema, mutate(value, path, replacement, op), writtenSummary ?? undefined);
        },
      ),
      { numRuns: 1000 },
    );
  }, 120_000);

  it('agrees with zod on session headers (the written-out parser of journal-event-parse.generated.ts)', () => {
    fc.assert(
      fc.property(
        header,
        fc.array(fc.nat(), { minLength: 1, maxLength: 3 }),
        strange,
        fc.nat(3),
        (value, path, replacement, op) => {
          // A `__proto__` key (the options can hold one) is left to zod, as in events.
          if (!holdsProtoKey(value)) expect(fastParseSessionHeader(value)).not.toBe(NOT_PROVEN);
          agreesWithZod(sessionHeaderSchema, value, fastParseSessionHeader);
          agreesWithZod(sessionHeaderSchema, mutate(value, path, replacement, op), fastParseSessionHeader);
        },
      ),
      { numRuns: 1000 },
    );
  }, 120_000);

  it('returns null for constructs it does not handle, and the parsers then use zod alone', () => {
    const transformed = z.object({ name: z.string().transform((value) => value.toUpperCase()) });
    expect(compileFastParse(transformed)).toBeNull();
    expect(fastParseSource({ written: transformed })).toBeNull();
    expect(fastParser(transformed)({ name: 'ada' })).toEqual({ name: 'ADA' });
    const refined = z.object({ size: z.number().refine((value) => value % 2 === 0) });
    expect(compileFastParse(refined)).toBeNull();
    expect(fastParseSource({ written: refined })).toBeNull();
    expect(fastSafeParser(refined)({ size: 3 }).success).toBe(false);
    expect(compileFastParse(z.union([z.string(), z.string().min(2)]))).toBeNull();
    expect(fastParseSource({ written: z.union([z.string(), z.string().min(2)]) })).toBeNull();
    expect(fastParseSource({ written: z.object({ size: z.number().default(Number.NaN) }) })).toBeNull();
  });
});

describe('parseJournalEvent', () => {
  it('fails on invalid input with the ZodError zod gives', () => {
    const invalid = { type: 'message-added', seq: 1, at: 'now', message: { role: 'robot', content: 'hi' } };
    expect(() => parseJournalEvent(invalid)).toThrow(z.ZodError);
    let message = '';
    try {
      journalEventSchema.parse(invalid);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(() => parseJournalEvent(invalid)).toThrow(message);
  });
});
