// The check generated from the journal event schema (journal-event-check.generated.js, written by
// scripts/generate-checks.mjs) against zod itself: on JSON values it accepts exactly what zod
// accepts and answers with what zod returns; on anything else it answers as zod does or leaves the
// value to zod. And the module is the one the script writes from the schema as it is now.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { journalEventSchema, parseJournalEvent } from './events.js';
import { checkJournalEvent } from './journal-event-check.generated.js';

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

/** Whether `value` has an own `__proto__` member anywhere (as `JSON.parse` makes one). */
function holdsProtoKey(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (Object.hasOwn(value, '__proto__')) return true;
  return Object.values(value).some(holdsProtoKey);
}

type Check = (value: unknown) => unknown;

/**
 * The check answers with zod's own result or leaves the value to zod (undefined); for a JSON value
 * (what a journal holds) it leaves nothing zod accepts, except a `__proto__` member (zod drops it).
 */
export function agreesWithZod(schema: z.ZodType, value: unknown, check: Check): void {
  const answer = check(value);
  const zod = schema.safeParse(value);
  if (answer !== undefined) {
    expect(zod.success).toBe(true);
    expect(answer).toEqual(zod.data);
  }
  if (isJson(value) && !holdsProtoKey(value)) expect(answer !== undefined).toBe(zod.success);
}

function isJson(value: unknown): boolean {
  try {
    return JSON.stringify(JSON.parse(JSON.stringify(value))) === JSON.stringify(value) && deepJson(value);
  } catch {
    return false;
  }
}

function deepJson(value: unknown): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0);
  if (Array.isArray(value)) {
    const onlyItems = Object.getPrototypeOf(value) === Array.prototype && Object.keys(value).length === value.length;
    return onlyItems && value.every(deepJson);
  }
  if (typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return false;
  return Object.values(value).every((member) => member !== undefined && deepJson(member));
}

/** The repository's generator, run as a tool (it is no part of any package). */
const generator = fileURLToPath(new URL('../../../../scripts/generate-checks.mjs', import.meta.url));

describe('the generated check of the journal event schema', () => {
  it('is the one scripts/generate-checks.mjs writes from the schema as it is now', () => {
    // A changed schema fails here until `node scripts/generate-checks.mjs` writes the module again.
    const checked = spawnSync(
      process.execPath,
      [generator, '--check', 'packages/core/src/spec/journal-event-check.generated.js'],
      { encoding: 'utf8' },
    );
    expect(checked.stderr).toBe('');
    expect(checked.status).toBe(0);
  }, 60_000);

  it('keeps each event type in a function of its own, so a new process compiles only the types it checks', () => {
    // V8 compiles a function at its first call: one function holding every type cost a command
    // that reads a journal 16 to 20 ms at its first check.
    const source = readFileSync(new URL('./journal-event-check.generated.js', import.meta.url), 'utf8');
    const functions = source.split(/^(?=function )/m).slice(1);
    const largest = Math.max(...functions.map((code) => code.length));
    expect(functions.length).toBeGreaterThan(journalEventSchema.options.length);
    expect(largest).toBeLessThan(40_000);
  });

  it('answers valid events of every type itself, exactly as zod parses them', () => {
    const answered = new Set<string>();
    fc.assert(
      fc.property(event, (value) => {
        const answer = checkJournalEvent(value);
        // A `__proto__` key (JSON can hold one: `{"__proto__": 1}`) is left to zod, which drops it.
        if (holdsProtoKey(value)) expect(answer).toBeUndefined();
        else expect(answer).not.toBeUndefined();
        agreesWithZod(journalEventSchema, value, checkJournalEvent);
        answered.add(value.type as string);
      }),
      { numRuns: 2000 },
    );
    expect([...answered].sort()).toEqual(Object.keys(bodies).sort());
  }, 120_000);

  it('accepts exactly what zod accepts among damaged, hostile or unusual events', () => {
    fc.assert(
      fc.property(
        event,
        fc.array(fc.nat(), { minLength: 1, maxLength: 5 }),
        strange,
        fc.integer({ min: 0, max: 3 }),
        (value, path, replacement, operation) => {
          agreesWithZod(journalEventSchema, mutate(value, path, replacement, operation), checkJournalEvent);
        },
      ),
      { numRuns: 5000 },
    );
  }, 120_000);

  it('leaves an event holding a `__proto__` key to zod, whatever its depth', () => {
    for (const output of ['{"__proto__":1}', '{"a":{"__proto__":[1]}}', '[{"__proto__":null}]']) {
      const value = { type: 'step-completed', seq: 3, at: 'now', key: 'k', occurrence: 1, attempt: 1 };
      const withOutput = { ...value, output: JSON.parse(output) as unknown };
      expect(checkJournalEvent(withOutput)).toBeUndefined();
      agreesWithZod(journalEventSchema, withOutput, checkJournalEvent);
    }
  });

  it('refuses a graph event whose data is not a journal value, at any depth, and accepts deep JSON', () => {
    const event = (data: unknown) => ({
      type: 'graph-checkpoint-saved',
      seq: 4,
      at: 'now',
      namespace: '',
      checkpointId: 'c1',
      parentCheckpointId: null,
      data,
    });
    const nested = (value: unknown, depth: number): unknown =>
      depth === 0 ? value : { a: [nested(value, depth - 1)] };
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, undefined, () => 1, new Date(0), new Map(), 10n]) {
      for (const data of [bad, { values: [1, { deep: bad }] }, nested(bad, 50), [bad]]) {
        expect(checkJournalEvent(event(data))).toBeUndefined();
        expect(() => parseJournalEvent(event(data))).toThrow();
      }
    }
    const sparse = [1, 2, 3];
    delete sparse[1];
    expect(() => parseJournalEvent(event({ items: sparse }))).toThrow();
    const deep = JSON.parse(JSON.stringify(nested('leaf', 200)));
    expect(checkJournalEvent(event(deep))).toEqual(event(deep));
  });

  it('agrees with zod on arbitrary values', () => {
    fc.assert(
      fc.property(fc.anything({ withObjectString: true, withNullPrototype: true }), (value) => {
        agreesWithZod(journalEventSchema, value, checkJournalEvent);
      }),
      { numRuns: 2000 },
    );
  }, 120_000);

  it("fills defaults and drops unknown members in a copy as zod does, never in the caller's value, and leaves class instances to zod", () => {
    const input = { type: 'message-added', seq: 3, at: 'now', extra: 1, message: { content: 'hi', role: 'user' } };
    const frozen = Object.freeze({ ...input, message: Object.freeze({ ...input.message }) });
    for (const value of [input, frozen]) {
      expect(checkJournalEvent(value)).toStrictEqual({
        seq: 3,
        at: 'now',
        type: 'message-added',
        message: { role: 'user', content: 'hi', speaker: null, round: null },
      });
    }
    expect(input).toStrictEqual({
      type: 'message-added',
      seq: 3,
      at: 'now',
      extra: 1,
      message: { content: 'hi', role: 'user' },
    });
    expect(checkJournalEvent(Object.assign(Object.create({ inherited: true }), input))).toBeUndefined();
    expect(checkJournalEvent({ ...input, seq: 0 })).toBeUndefined();
    const complete = parseJournalEvent(input);
    expect(checkJournalEvent(complete)).toBe(complete);
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
