// The few assertions the conformance suite makes, on `node:assert`, so that
// `@resume/core/testing` needs no test framework at run time: a store's tests bring their
// own `describe`/`it` (vitest, jest, mocha or `node:test`), and a failed check throws an
// `AssertionError` that every one of them reports with the values.
import { AssertionError } from 'node:assert';
import { inspect, isDeepStrictEqual } from 'node:util';

/** The test functions the suite registers its cases with; vitest, jest, mocha and `node:test` all fit. */
export interface TestFunctions {
  describe(name: string, body: () => void): unknown;
  it(name: string, body: () => Promise<void>): unknown;
  beforeEach(body: () => Promise<void>): unknown;
  afterEach(body: () => Promise<void>): unknown;
}

/** A copy without `undefined` object fields (they do not survive a store anyway) and without prototypes. */
function comparable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(comparable);
  if (value !== null && typeof value === 'object' && !ArrayBuffer.isView(value)) {
    const result: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(value)) if (field !== undefined) result[key] = comparable(field);
    return result;
  }
  return value;
}

function matches(actual: unknown, expected: unknown): boolean {
  if (expected !== null && typeof expected === 'object' && !Array.isArray(expected)) {
    if (actual === null || typeof actual !== 'object') return false;
    return Object.entries(expected).every(([key, field]) => matches((actual as Record<string, unknown>)[key], field));
  }
  return isDeepStrictEqual(comparable(actual), comparable(expected));
}

interface Matchers {
  toBe(expected: unknown): void;
  toEqual(expected: unknown): void;
  toBeNull(): void;
  toContain(item: unknown): void;
  toHaveLength(length: number): void;
  toBeGreaterThan(bound: number): void;
  toBeGreaterThanOrEqual(bound: number): void;
  toMatchObject(subset: object): void;
}

function matchers(actual: unknown, negated: boolean): Matchers {
  const check = (passed: boolean, operator: string, expected: unknown) => {
    if (passed !== negated) return;
    throw new AssertionError({
      message: `expected ${inspect(actual, { depth: 6 })} ${negated ? 'not ' : ''}${operator} ${inspect(expected, { depth: 6 })}`,
      actual,
      expected,
      operator,
    });
  };
  return {
    toBe: (expected) => check(Object.is(actual, expected), 'to be', expected),
    toEqual: (expected) => check(isDeepStrictEqual(comparable(actual), comparable(expected)), 'to equal', expected),
    toBeNull: () => check(actual === null, 'to be', null),
    toContain: (item) =>
      check(
        (Array.isArray(actual) || typeof actual === 'string') && (actual as unknown[]).includes(item as never),
        'to contain',
        item,
      ),
    toHaveLength: (length) => check((actual as { length?: unknown })?.length === length, 'to have length', length),
    toBeGreaterThan: (bound) => check(typeof actual === 'number' && actual > bound, 'to be greater than', bound),
    toBeGreaterThanOrEqual: (bound) => check(typeof actual === 'number' && actual >= bound, 'to be at least', bound),
    toMatchObject: (subset) => check(matches(actual, subset), 'to match', subset),
  };
}

/** `expect(actual).toEqual(expected)` and the rest of the subset the suite uses, plus `.not`. */
export function expect(actual: unknown): Matchers & { not: Matchers } {
  return { ...matchers(actual, false), not: matchers(actual, true) };
}
