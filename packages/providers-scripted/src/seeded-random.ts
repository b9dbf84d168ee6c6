// Determinism without Math.random or a clock: every choice the scripted models make comes
// from a generator seeded by a hash of the call's input, so any process makes the same choices.
import { createHash } from 'node:crypto';

export interface SeededRandom {
  /** A float in [0, 1). */
  next(): number;
  pick<T>(items: readonly T[]): T;
}

export function hashOf(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex');
}

export function seededRandom(seedHex: string): SeededRandom {
  // mulberry32: tiny, fast and good enough to vary phrasing.
  let state = Number.parseInt(seedHex.slice(0, 8), 16) >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    pick<T>(items: readonly T[]): T {
      const item = items[Math.floor(next() * items.length)];
      if (item === undefined) throw new RangeError('pick from an empty list');
      return item;
    },
  };
}
