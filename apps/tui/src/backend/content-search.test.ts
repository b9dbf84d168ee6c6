import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findContentMatch, searchContentWith } from './content-search.js';
import type { ContentMessage } from './tui-backend.js';

const message = (content: string, speaker: string | null = 'critic'): ContentMessage => ({
  role: 'assistant',
  speaker,
  round: 1,
  content,
});

describe('findContentMatch', () => {
  it('finds the query case-insensitively and marks it inside the snippet', () => {
    const long = `${'x'.repeat(100)} the Kubernetes cluster ${'y'.repeat(100)}`;
    const match = findContentMatch('s1', [message('nothing here'), message(long)], 'kubernetes');
    expect(match).not.toBeNull();
    expect(match?.snippet.slice(match.matchStart, match.matchEnd)).toBe('Kubernetes');
    expect(match?.snippet.startsWith('…')).toBe(true);
    expect(match?.snippet.length).toBeLessThan(80);
  });

  it('returns null for no match or an empty query', () => {
    expect(findContentMatch('s1', [message('abc')], 'zzz')).toBeNull();
    expect(findContentMatch('s1', [message('abc')], '  ')).toBeNull();
  });

  it('always marks exactly the query (property)', () => {
    fc.assert(
      fc.property(fc.string(), fc.string({ minLength: 1, maxLength: 8 }), fc.string(), (before, needle, after) => {
        fc.pre(needle.trim() !== '' && !/\s/.test(needle));
        const match = findContentMatch('s', [message(before.replace(/\s/g, '_') + needle + after)], needle);
        expect(match).not.toBeNull();
        expect(match?.snippet.slice(match.matchStart, match.matchEnd).toLowerCase()).toBe(needle.toLowerCase());
      }),
    );
  });
});

describe('searchContentWith', () => {
  it('skips unreadable sessions and stops when aborted', async () => {
    const loaded: string[] = [];
    const load = async (id: string) => {
      loaded.push(id);
      if (id === 'broken') throw new Error('corrupted');
      return [message(`about ${id}`)];
    };
    const found: string[] = [];
    for await (const match of searchContentWith(load, 'about', ['a', 'broken', 'b'], new AbortController().signal)) {
      found.push(match.sessionId);
    }
    expect(found).toEqual(['a', 'b']);
    const controller = new AbortController();
    controller.abort();
    loaded.length = 0;
    for await (const _ of searchContentWith(load, 'about', ['a'], controller.signal)) found.push('never');
    expect(loaded).toEqual([]);
  });
});
