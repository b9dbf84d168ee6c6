import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDuration } from './duration.js';

describe('parseDuration', () => {
  it('reads every unit, in any case, and a bare number in the unit the caller names', () => {
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('1.5s')).toBe(1500);
    expect(parseDuration('2m')).toBe(120_000);
    expect(parseDuration('10MIN')).toBe(600_000);
    expect(parseDuration(' 12h ')).toBe(43_200_000);
    expect(parseDuration('2w')).toBe(14 * 86_400_000);
    expect(parseDuration('250')).toBe(250);
    expect(parseDuration(250)).toBe(250);
    expect(parseDuration('30', 'd')).toBe(30 * 86_400_000);
  });

  it('refuses what is not a duration', () => {
    for (const text of ['soon', '', '-1s', '1 fortnight', '1e3', 's', '3mo']) expect(parseDuration(text)).toBeNull();
    expect(parseDuration(Number.NaN)).toBeNull();
    expect(parseDuration(-5)).toBeNull();
  });

  it('reads back any amount written with any unit', () => {
    const units = { ms: 1, s: 1000, min: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100_000 }), fc.constantFrom(...Object.keys(units)), (amount, unit) => {
        expect(parseDuration(`${amount}${unit}`)).toBe(amount * units[unit as keyof typeof units]);
      }),
    );
  });
});
