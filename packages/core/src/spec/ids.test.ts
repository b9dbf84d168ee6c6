import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSessionId, uniqueIdPrefixes } from './ids.js';

describe('unique id prefixes', () => {
  it('shows 10 characters when they are enough', () => {
    const first = createSessionId(1_700_000_000_000, new Uint8Array(10).fill(1));
    const second = createSessionId(1_800_000_000_000, new Uint8Array(10).fill(2));
    const prefixes = uniqueIdPrefixes([first, second]);
    expect(prefixes.get(first)).toBe(first.slice(0, 10));
    expect(prefixes.get(second)).toBe(second.slice(0, 10));
  });

  it('lengthens the prefixes of sessions created in the same second until they differ', () => {
    const first = createSessionId(1_700_000_000_000, new Uint8Array(10).fill(1));
    const second = createSessionId(1_700_000_000_300, new Uint8Array(10).fill(2));
    expect(first.slice(0, 10)).toBe(second.slice(0, 10));
    const prefixes = uniqueIdPrefixes([first, second]);
    expect(prefixes.get(first)).not.toBe(prefixes.get(second));
    expect(prefixes.get(first)?.length).toBeGreaterThan(10);
  });

  it('gives every id a prefix no other id starts with, as short as possible', () => {
    const idArbitrary = fc
      .tuple(
        fc.integer({ min: 1_700_000_000_000, max: 1_700_000_005_000 }),
        fc.uint8Array({ minLength: 10, maxLength: 10 }),
      )
      .map(([time, random]) => createSessionId(time, random));
    fc.assert(
      fc.property(fc.uniqueArray(idArbitrary, { minLength: 1, maxLength: 30 }), (ids) => {
        const prefixes = uniqueIdPrefixes(ids);
        for (const id of ids) {
          const prefix = prefixes.get(id) ?? '';
          expect(id.startsWith(prefix)).toBe(true);
          expect(prefix.length).toBeGreaterThanOrEqual(10);
          expect(ids.filter((other) => other.startsWith(prefix))).toEqual([id]);
          if (prefix.length > 10)
            expect(ids.filter((other) => other.startsWith(prefix.slice(0, -1))).length).toBeGreaterThan(1);
        }
      }),
    );
  });
});
