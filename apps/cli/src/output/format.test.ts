import { describe, expect, it } from 'vitest';
import { formatTokens, groupThousands } from './format.js';

describe('groupThousands', () => {
  it("prints whole numbers exactly as toLocaleString('en-US') does", () => {
    const values = [0, -0, 7, 42, 999, 1_000, 1_234, 12_345, 999_999, 1_000_000, 1_234_567, -1, -1_234, -9_876_543];
    for (let value = 1; value < Number.MAX_SAFE_INTEGER / 7; value = value * 7 + 3) values.push(value, -value);
    values.push(Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER);
    for (const value of values) expect(groupThousands(value)).toBe(value.toLocaleString('en-US'));
  });

  it('leaves fractions, infinities and NaN to toLocaleString', () => {
    for (const value of [1234.5678, 0.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60])
      expect(groupThousands(value)).toBe(value.toLocaleString('en-US'));
  });
});

describe('formatTokens', () => {
  it('groups both counts by thousands', () => {
    expect(formatTokens(1_234_567, 890)).toBe('1,234,567 in / 890 out tokens');
  });
});
