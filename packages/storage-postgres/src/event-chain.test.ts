import { describe, expect, it } from 'vitest';
import { chainBatch, chainHash } from './event-chain.js';

// Hashes as the store has always stored them: a journal written by an earlier version must still
// check, so these values never change.
const sessionId = '0001m8g62a000000000000';
const first = 'ef8292d4a904e8d735793fb24c3c52c307e4f53b3249eadc538096bc595f0a60';
const second = 'beeee13e8090ff758f69e669d3bda4bdf294b09d08b8c9fdf793e7e8c2499c44';

describe('the events chain', () => {
  it('hashes each row as stored journals were hashed, from the session id, then from the row before', () => {
    expect(chainHash(sessionId, null, 1, '{"seq":1,"type":"message"}')).toBe(first);
    expect(chainHash(sessionId, first, 2, '{"text":"é ✓"}')).toBe(second);
    expect(
      chainBatch(sessionId, null, [
        { seq: 1, payload: '{"seq":1,"type":"message"}' },
        { seq: 2, payload: '{"text":"é ✓"}' },
      ]),
    ).toEqual([first, second]);
  });
});
