// What a search query means and where it matches a text: words found at the start of a word
// (so "idempot" finds "idempotent"), every word of the query needed, a quoted phrase as
// written; case and accents ignored, as the index's tokenizer ignores them. Pure, so the
// snippets are tested without an index.

/** One thing the query asks for: a word, or a quoted phrase of several. */
export interface SearchTerm {
  words: string[];
}

export interface TextMatch {
  /** Text around the match, on one line. */
  snippet: string;
  /** Where the match starts and ends inside `snippet`, to highlight it. */
  matchStart: number;
  matchEnd: number;
}

const snippetRadius = 40;
const wordPattern = /[\p{L}\p{N}\p{Co}]+/gu;

/** Lower case without accents, as the index compares words ("Café" is "cafe"). */
function foldCharacter(character: string): string {
  return character.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

export function wordsOf(text: string): string[] {
  return Array.from(text.matchAll(wordPattern), (match) => Array.from(match[0], foldCharacter).join('')).filter(
    (word) => word !== '',
  );
}

/** The query's words and quoted phrases; punctuation separates words and is otherwise ignored. */
export function parseQuery(query: string): SearchTerm[] {
  const terms: SearchTerm[] = [];
  const parts = query.split('"');
  parts.forEach((part, position) => {
    // Odd parts were between quotes (an unclosed quote runs to the end).
    if (position % 2 === 1) {
      const words = wordsOf(part);
      if (words.length > 0) terms.push({ words });
    } else {
      for (const word of wordsOf(part)) terms.push({ words: [word] });
    }
  });
  return terms;
}

/**
 * The FTS5 query for the terms: each word quoted (so nothing in it is FTS5 syntax), all of them
 * needed, a single word and a phrase's last word as prefixes. The index keeps no word
 * positions (`detail=none`): whether a phrase's words come together is checked in the text.
 */
export function matchExpression(terms: readonly SearchTerm[]): string {
  return terms
    .flatMap((term) => term.words.map((word, at) => (at === term.words.length - 1 ? `"${word}"*` : `"${word}"`)))
    .join(' AND ');
}

/** Where the first term matches in `text`, with the text around it; null when none does. */
export function findTermMatch(text: string, terms: readonly SearchTerm[]): TextMatch | null {
  const flat = text.replace(/\s+/g, ' ').trim();
  // The folded text, and for each of its characters the position in `flat` it came from
  // (plain ASCII, most text, folds to itself in lower case, position for position).
  let folded = '';
  let origin: number[] | null = null;
  if (/^[\x20-\x7e]*$/.test(flat)) folded = flat.toLowerCase();
  else {
    origin = [];
    let offset = 0;
    for (const character of flat) {
      const mapped = foldCharacter(character);
      folded += mapped;
      for (let index = 0; index < mapped.length; index += 1) origin.push(offset);
      offset += character.length;
    }
    origin.push(flat.length);
  }
  const at = (position: number) => (origin ? (origin[position] ?? flat.length) : position);
  let best: { start: number; end: number } | null = null;
  for (const term of terms) {
    const pattern = new RegExp(`(?<![\\p{L}\\p{N}\\p{Co}])${term.words.join('[^\\p{L}\\p{N}\\p{Co}]+')}`, 'u');
    const found = pattern.exec(folded);
    if (!found) continue;
    const start = at(found.index);
    const end = at(found.index + found[0].length);
    if (!best || start < best.start) best = { start, end };
  }
  if (!best) return null;
  return cutSnippet(flat, best.start, best.end);
}

/** The text around [start, end), cut at about `snippetRadius` characters each side. */
export function cutSnippet(flat: string, start: number, end: number): TextMatch {
  const from = Math.max(0, start - snippetRadius);
  const to = Math.min(flat.length, end + snippetRadius);
  const prefix = from > 0 ? '…' : '';
  const suffix = to < flat.length ? '…' : '';
  const matchStart = prefix.length + (start - from);
  return {
    snippet: prefix + flat.slice(from, to) + suffix,
    matchStart,
    matchEnd: matchStart + (end - start),
  };
}
