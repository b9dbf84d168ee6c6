// Where a query matches: from the start of a word, case and accents aside, a phrase as written.
import { describe, expect, it } from 'vitest';
import { findTermMatch, matchExpression, parseQuery } from './search-text.js';

describe('search text', () => {
  it('reads words and quoted phrases, and quotes them for FTS5', () => {
    expect(parseQuery('Idempot  "event  sourcing" *(')).toEqual([
      { words: ['idempot'] },
      { words: ['event', 'sourcing'] },
    ]);
    expect(matchExpression(parseQuery('a "b c"'))).toBe('"a"* AND "b" AND "c"*');
    expect(parseQuery(' " ( ')).toEqual([]);
  });

  it('finds a word from its start, in plain and in accented text, with the match inside the snippet', () => {
    const plain = findTermMatch('The ledger needs an Idempotent replay.', parseQuery('idempot'));
    expect(plain?.snippet.slice(plain.matchStart, plain.matchEnd)).toBe('Idempot');
    expect(findTermMatch('no potent here', parseQuery('potent'))).not.toBeNull();
    expect(findTermMatch('impotent', parseQuery('potent'))).toBeNull();
    const accented = findTermMatch('Un café très crème', parseQuery('creme'));
    expect(accented?.snippet.slice(accented.matchStart, accented.matchEnd)).toBe('crème');
  });
});
