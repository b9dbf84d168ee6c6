import { UsageError } from '@resume/core/spec';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { plainWorkflowOptions, workflowOptionsSchema } from '../commands/run-workflow.js';
import { globalOptionsSchema, parseGlobalOptions, plainGlobalOptions } from '../context/global-options.js';
import { parseRunFlags, plainRunFlags, runFlagsSchema } from '../runs/run-flags.js';
import { type PlainShape, plainOptions } from './plain-options.js';

/** Values of every kind commander gives, and of kinds it never does. */
const VALUES: unknown[] = [
  '',
  'x',
  'some text',
  '3',
  ' 3 ',
  '0',
  '-1',
  '1.5',
  '1e3',
  '0x10',
  'Infinity',
  'NaN',
  '9007199254740993',
  'keep',
  'restore',
  'skip',
  'rerun',
  'openai',
  'scripted',
  'nosuch',
  'discussion',
  'consensus',
  'iterative',
  'a, b,,c',
  true,
  false,
  0,
  7,
  -2,
  Number.NaN,
  null,
  [],
  ['a', 'b'],
  ['a', 1],
  {},
];

/** A small deterministic generator, so a failure names a case that can be run again. */
function generator(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

/** Option sets over `keys`: each option absent, set to undefined or to one of VALUES; sometimes an unknown one. */
function optionSets(keys: string[], count: number, seed: number): unknown[] {
  const next = generator(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const sets: unknown[] = [{}, null, 'text', ['a'], Object.create({ yes: true }), Object.create(null)];
  for (let index = 0; index < count; index += 1) {
    const set: Record<string, unknown> = {};
    // About three options given per set, as on a command line.
    const given = Math.min(0.45, 3 / keys.length);
    for (const key of keys) {
      if (next() >= given) continue;
      set[key] = next() < 0.1 ? undefined : pick(VALUES);
    }
    if (next() < 0.2) set.unknownOption = pick(VALUES);
    sets.push(set);
  }
  return sets;
}

type Outcome = { value: unknown } | { threw: string };
const outcome = (work: () => unknown): Outcome => {
  try {
    return { value: work() };
  } catch (error) {
    return { threw: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
};

/** Checks the plain shape against its schema on generated option sets; returns how many it answered. */
function agreement(schema: z.ZodType, plain: PlainShape, seed: number) {
  let answered = 0;
  let declined = 0;
  for (const raw of optionSets(Object.keys(plain.shape), 3000, seed)) {
    const fast = outcome(() => plainOptions(raw, plain));
    const full = outcome(() => schema.safeParse(raw));
    const context = JSON.stringify(raw);
    if ('threw' in fast) {
      // A conversion that throws (an unknown mode) throws the same from the schema.
      expect(full, context).toEqual(fast);
      continue;
    }
    if (fast.value === undefined) {
      // Declined: the schema decides, whatever it answers.
      declined += 1;
      continue;
    }
    expect('value' in full, context).toBe(true);
    const parsed = (full as { value: z.ZodSafeParseResult<unknown> }).value;
    answered += 1;
    expect(parsed.success, context).toBe(true);
    expect(fast.value, context).toStrictEqual(parsed.data);
  }
  return { answered, declined };
}

describe('options checked without their schema', () => {
  it.each([
    ['the global options', globalOptionsSchema, plainGlobalOptions, 11],
    ['the run flags', runFlagsSchema, plainRunFlags, 12],
    ['the workflow options', workflowOptionsSchema, plainWorkflowOptions, 13],
  ] as const)(
    'answer exactly what the schema parses for %s, and leave the rest to it',
    (_name, schema, plain, seed) => {
      const { answered, declined } = agreement(schema as z.ZodType, plain, seed);
      // Both kinds of case were met: plain sets answered directly, and sets only the schema decides.
      expect(answered).toBeGreaterThan(100);
      expect(declined).toBeGreaterThan(100);
    },
  );

  it('answers the options of a plain command line', () => {
    expect(plainOptions({ resume: '01jf3k', yes: true, quiet: true }, plainRunFlags)).toEqual({
      resume: '01jf3k',
      yes: true,
    });
    expect(plainOptions({ quiet: true, provider: 'scripted' }, plainGlobalOptions)).toEqual({
      quiet: true,
      provider: 'scripted',
      json: false,
      debug: false,
    });
    expect(
      plainOptions({ maxRounds: '4', models: 'a, b', mode: 'consensus', onConflict: 'keep' }, plainRunFlags),
    ).toEqual({ maxRounds: 4, models: ['a', 'b'], mode: 'discussion', onConflict: 'keep' });
  });

  it('reports a bad value as it always did: the flag and what it takes', () => {
    const message = (work: () => unknown) => {
      const failed = outcome(work);
      return 'threw' in failed ? failed.threw : 'no error';
    };
    expect(message(() => parseRunFlags({ maxRounds: 'abc' }))).toBe('UsageError: --max-rounds takes a whole number');
    expect(message(() => parseRunFlags({ startChunk: '1.5' }))).toBe('UsageError: --start-chunk takes a whole number');
    expect(message(() => parseRunFlags({ atRound: '0' }))).toBe('UsageError: --at-round must be at least 1');
    expect(message(() => parseRunFlags({ mode: 'nosuch' }))).toBe('UsageError: Unknown mode "nosuch".');
    expect(message(() => parseGlobalOptions({ provider: 'nosuch' }))).toMatch(
      /^UsageError: Invalid value for --provider: not a provider Conclave knows \(use .*scripted.*\)\.$/,
    );
    expect(message(() => parseGlobalOptions({ home: '' }))).toMatch(/^UsageError: Invalid value for --home: /);
    expect(() => parseRunFlags({ onUncertain: 'later' })).toThrow(UsageError);
  });
});
