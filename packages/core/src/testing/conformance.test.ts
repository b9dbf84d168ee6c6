// The conformance suite needs no particular test framework: it registers its cases with the
// functions it is given. Here a twenty-line runner stands in for one, which is all another
// framework (node:test, jest, mocha) has to provide.
import { describe, expect, it } from 'vitest';
import { type SessionStore, UsageError } from '../spec/index.js';
import type { TestFunctions } from './assertions.js';
import { describeStoreConformance } from './conformance.js';
import { createMemoryStore } from './memory-store.js';

interface CaseResult {
  name: string;
  error: unknown;
}

/** Collects the suite's cases with plain functions, then runs each with its hooks. */
async function runWithPlainFunctions(makeStore: () => SessionStore): Promise<CaseResult[]> {
  const cases: Array<{ name: string; body: () => Promise<void> }> = [];
  const before: Array<() => Promise<void>> = [];
  const after: Array<() => Promise<void>> = [];
  const path: string[] = [];
  const test: TestFunctions = {
    describe: (name, body) => {
      path.push(name);
      body();
      path.pop();
    },
    it: (name, body) => cases.push({ name: [...path, name].join(' > '), body }),
    beforeEach: (body) => before.push(body),
    afterEach: (body) => after.push(body),
  };
  describeStoreConformance(
    'plain',
    async () => {
      const store = makeStore();
      return { store, cleanup: () => store.close() };
    },
    test,
  );
  const results: CaseResult[] = [];
  for (const entry of cases) {
    let error: unknown = null;
    try {
      for (const hook of before) await hook();
      await entry.body();
    } catch (caught) {
      error = caught;
    } finally {
      for (const hook of after) await hook();
    }
    results.push({ name: entry.name, error });
  }
  return results;
}

describe('describeStoreConformance without vitest', () => {
  it('runs every case with the test functions it is given, and a correct store passes them all', async () => {
    const results = await runWithPlainFunctions(() => createMemoryStore());
    expect(results.length).toBeGreaterThan(20);
    expect(results.filter((result) => result.error !== null)).toEqual([]);
  });

  it('fails the cases a broken store breaks, with assertion errors that show the values', async () => {
    // A store that forgets sessions in its listing.
    const results = await runWithPlainFunctions(() => {
      const store = createMemoryStore();
      return Object.assign(Object.create(store) as SessionStore, { list: async () => [] });
    });
    const failed = results.filter((result) => result.error !== null);
    expect(failed.map((result) => result.name)).toContain(
      'SessionStore conformance: plain > list > orders newest updatedAt first, then id descending, and pages with limit and offset',
    );
    expect(failed.every((result) => (result.error as Error).name === 'AssertionError')).toBe(true);
    expect(String((failed[0]?.error as Error | undefined)?.message)).toMatch(/^expected \[\] to (equal|contain)/);
    expect(results.length - failed.length).toBeGreaterThan(10);
  });

  it('names the operation and its arguments when a store accepts what it must refuse', async () => {
    // A store that takes a second create of the same id for a success.
    const results = await runWithPlainFunctions(() => {
      const store = createMemoryStore();
      const create: SessionStore['create'] = async (header) => {
        if (!(await store.getHeader(header.id))) await store.create(header);
      };
      return Object.assign(Object.create(store) as SessionStore, { create });
    });
    const failed = results.find((result) => result.name.endsWith('refuses a second create with the same id'));
    expect(String((failed?.error as Error | undefined)?.message)).toMatch(
      /^expected store\.create\(\{ id: '[0-9a-z]{22}', title: 'other', .*\}\) to fail, but it succeeded$/,
    );
  });

  it('says which test functions are missing and how to pass them', () => {
    const factory = async () => ({ store: createMemoryStore(), cleanup: async () => undefined });
    const call = () =>
      describeStoreConformance('mine', factory, { describe: () => undefined, it: () => undefined } as never);
    expect(call).toThrow(UsageError);
    expect(call).toThrow(/missing: beforeEach, afterEach/);
    expect(() => (describeStoreConformance as (...args: unknown[]) => void)('mine', factory)).toThrow(
      /needs your test framework's functions; missing: describe, it, beforeEach, afterEach/,
    );
  });
});
