// Words as the content index of a home encrypted at rest keeps them: keyed hashes
// (HMAC-SHA-256 under a key derived from the home's current data key), so the index file holds
// no word of a session, and a query is hashed the same way to find them. A word is found
// whole: a hash says nothing of the word's start.
import { createHmac, hkdfSync } from 'node:crypto';
import { type SearchTerm, wordsOf } from './search-text.js';

/** The key the words are hashed under, and the id of the data key it comes from (a new one builds the index again). */
export interface WordKey {
  id: string;
  key: Uint8Array;
}

export type WordHash = (word: string) => string;

/** Hashes a (folded) word under a key derived from `dataKey`: 16 hex digits, one token for FTS5. */
export function wordHash(dataKey: Uint8Array): WordHash {
  const key = Buffer.from(hkdfSync('sha256', dataKey, new Uint8Array(0), 'conclave content index words', 32));
  return (word) => createHmac('sha256', key).update(word).digest('hex').slice(0, 16);
}

/** The text as the index receives it: each word's hash, in order. */
export function hashedText(text: string, hash: WordHash): string {
  return wordsOf(text).map(hash).join(' ');
}

/** The FTS5 query for the terms: every word's hash needed, whole (a phrase is checked in the text). */
export function hashedMatchExpression(terms: readonly SearchTerm[], hash: WordHash): string {
  return terms
    .flatMap((term) => term.words)
    .map((word) => `"${hash(word)}"`)
    .join(' AND ');
}
