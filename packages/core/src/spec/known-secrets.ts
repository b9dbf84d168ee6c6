// Finds known secret values in a text in the forms a program prints them: as they are, reversed,
// hex, base64 (inside longer base64 too), URL-encoded (once or twice, any characters encoded),
// JSON `\u` escapes, cut at a line end, folded over lines or spaced out, and as a head or a tail
// of 12 characters or more. One scan per text with an Aho-Corasick automaton over a few needles
// per secret: a text holding none of them costs one pass and no allocation.

/** Shorter values are too likely to occur in ordinary text to be replaced everywhere. */
export const MINIMUM_SECRET_LENGTH = 8;

/** A head or tail of a secret (or of one of its forms) this long is replaced as the secret is. */
export const MINIMUM_FRAGMENT_LENGTH = 12;

/** Base64 text shorter than this is too likely to occur by chance in other base64 data. */
const MINIMUM_ENCODED_LENGTH = 12;

/**
 * The forms a secret takes when something re-encodes it, before normalising: reversed, hex,
 * base64 / base64url at each of the three byte alignments it can have inside a longer encoded
 * text (`Basic base64(user:key)`: for each, the run of characters that depends on the secret's
 * bytes alone) and URL-encoded. Escapes (`%21`, `%2521`, `\u002d`) and whitespace are undone in
 * the text before matching, so every mix of them is found without a form of its own.
 */
function encodedForms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const forms = new Set<string>([
    [...secret].reverse().join(''),
    bytes.toString('hex'),
    bytes.toString('hex').toUpperCase(),
    encodeURIComponent(secret),
  ]);
  for (let skip = 0; skip < 3; skip += 1) {
    const whole = Math.floor((bytes.length - skip) / 3) * 3;
    if (whole <= 0) continue;
    const core = bytes.subarray(skip, skip + whole).toString('base64');
    if (core.length < MINIMUM_ENCODED_LENGTH) continue;
    forms.add(core);
    forms.add(core.replaceAll('+', '-').replaceAll('/', '_'));
  }
  forms.delete(secret);
  return [...forms];
}

// Whitespace (folded, wrapped, spaced-out text) and `+` (a space in a query string) are left
// out of texts and needles alike: `+` in base64 or in a secret drops from both sides.
const isSeparator = (code: number) => code === 32 || code === 43 || (code >= 9 && code <= 13);

function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  const lower = code | 0x20;
  if (lower >= 97 && lower <= 102) return lower - 87;
  return -1;
}

function hexAt(text: string, index: number, digits: number): number {
  if (index + digits > text.length) return -1;
  let value = 0;
  for (let offset = 0; offset < digits; offset += 1) {
    const digit = hexValue(text.charCodeAt(index + offset));
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

/**
 * The character at `index` with its escapes undone (`\uXXXX`, `%XX`, `%25XX`…) and how many
 * characters of the text it took, written into `decoded` (code, length).
 */
function decodeAt(text: string, index: number, decoded: Int32Array): void {
  const code = text.charCodeAt(index);
  if (code === 92 /* \ */ && text.charCodeAt(index + 1) === 117 /* u */) {
    const value = hexAt(text, index + 2, 4);
    if (value >= 0) {
      decoded[0] = value;
      decoded[1] = 6;
      return;
    }
  }
  if (code === 37 /* % */) {
    let value = hexAt(text, index + 1, 2);
    if (value >= 0) {
      let length = 3;
      // `%2521` is `%21` encoded again: undo every layer.
      while (value === 37) {
        const inner = hexAt(text, index + length, 2);
        if (inner < 0) break;
        value = inner;
        length += 2;
      }
      decoded[0] = value;
      decoded[1] = length;
      return;
    }
  }
  decoded[0] = code;
  decoded[1] = 1;
}

/** A text's characters without separators (and with its escapes undone when `decode`), with where each was in the text. */
function normalise(text: string, decode: boolean): { codes: number[]; starts: number[]; ends: number[] } {
  const codes: number[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  const decoded = new Int32Array(2);
  for (let index = 0; index < text.length; ) {
    if (decode) decodeAt(text, index, decoded);
    else {
      decoded[0] = text.charCodeAt(index);
      decoded[1] = 1;
    }
    const length = decoded[1] as number;
    if (!isSeparator(decoded[0] as number)) {
      codes.push(decoded[0] as number);
      starts.push(index);
      ends.push(index + length);
    }
    index += length;
  }
  return { codes, starts, ends };
}

/** Whether a text may hold an escape `decodeAt` undoes (native searches: far cheaper than a scan). */
const mayHoldEscape = (text: string) => text.includes('%') || text.includes('\\u');

/** A file path (`/run/secrets/db`, `~/.pgpass`, `./key.pem`) rather than a secret itself. */
function looksLikePath(value: string): boolean {
  return /^(?:\/|~\/|\.\.?\/)[^\s]*$/.test(value);
}

/** One searched string: a whole short form, or the head or the tail of a longer one. */
interface Needle {
  form: readonly number[];
  kind: 'whole' | 'head' | 'tail';
  length: number;
}

export interface KnownSecretMatcher {
  /** The text with every known secret (in any of its forms, or a head or tail of one) replaced. */
  replace(text: string, replacement: string): string;
}

/** A matcher for the given secrets (values shorter than `MINIMUM_SECRET_LENGTH` are ignored); null when none is left. */
export function createKnownSecretMatcher(secrets: Iterable<string | null | undefined>): KnownSecretMatcher | null {
  // Each form with whether a head or tail of it counts: not for a path (`POSTGRES_PASSWORD_FILE=
  // /run/secrets/db`), whose head begins every path beside it.
  const forms = new Map<string, { codes: number[]; fragments: boolean }>();
  for (const value of secrets) {
    if (typeof value !== 'string' || value.length < MINIMUM_SECRET_LENGTH) continue;
    const fragments = !looksLikePath(value);
    for (const form of [value, ...encodedForms(value)]) {
      const codes = normalise(form, true).codes;
      const key = String.fromCharCode(...codes);
      if (codes.length >= MINIMUM_SECRET_LENGTH)
        forms.set(key, { codes, fragments: fragments || forms.get(key)?.fragments === true });
    }
  }
  if (forms.size === 0) return null;
  const needles: Needle[] = [];
  for (const { codes: form, fragments } of forms.values()) {
    if (!fragments || form.length < MINIMUM_FRAGMENT_LENGTH) needles.push({ form, kind: 'whole', length: form.length });
    else {
      needles.push({ form, kind: 'head', length: MINIMUM_FRAGMENT_LENGTH });
      needles.push({ form, kind: 'tail', length: MINIMUM_FRAGMENT_LENGTH });
    }
  }
  const automaton = buildAutomaton(needles);

  /** Spans of the text (start, end) where a needle's whole run is, in one view of it. */
  const spansIn = (text: string, decode: boolean): [number, number][] => {
    if (!automaton.occursIn(text, decode)) return [];
    const { codes, starts, ends } = normalise(text, decode);
    const spans: [number, number][] = [];
    let state = 0;
    for (let position = 0; position < codes.length; position += 1) {
      state = automaton.step(state, codes[position] as number);
      for (const needle of automaton.outputs[state] ?? []) {
        const [first, end] = extend(codes, needle, position + 1 - needle.length, position + 1);
        spans.push([starts[first] as number, ends[end - 1] as number]);
      }
    }
    return spans;
  };

  return {
    replace(text, replacement) {
      // The text as it is, and with its escapes undone: an escape must not hide a secret written
      // out plainly right after a `%` (`%0a…`), nor a plain text hide an escaped one.
      const spans = spansIn(text, false);
      if (mayHoldEscape(text)) spans.push(...spansIn(text, true));
      if (spans.length === 0) return text;
      spans.sort((left, right) => left[0] - right[0]);
      let result = '';
      let copied = 0;
      let open: [number, number] | null = null;
      for (const span of spans) {
        if (open && span[0] <= open[1]) open[1] = Math.max(open[1], span[1]);
        else {
          if (open) result += text.slice(copied, open[0]) + replacement;
          copied = open ? open[1] : copied;
          open = [...span];
        }
      }
      if (open) {
        result += text.slice(copied, open[0]) + replacement;
        copied = open[1];
      }
      return result + text.slice(copied);
    },
  };
}

/** The whole run of the form around a head or tail found at [start, end) of the normalised text. */
function extend(codes: readonly number[], needle: Needle, start: number, end: number): [number, number] {
  const { form } = needle;
  if (needle.kind === 'head') {
    let length = needle.length;
    while (length < form.length && codes[start + length] === form[length]) length += 1;
    return [start, start + length];
  }
  if (needle.kind === 'tail') {
    let length = needle.length;
    while (length < form.length && codes[end - length - 1] === form[form.length - length - 1]) length += 1;
    return [end - length, end];
  }
  return [start, end];
}

interface Automaton {
  step(state: number, code: number): number;
  /** Whether any needle occurs in the text (one view of it): one pass, nothing allocated. */
  occursIn(text: string, decode: boolean): boolean;
  /** Needles that end in each state (its own and those of its suffix states). */
  outputs: (Needle[] | undefined)[];
}

/**
 * An Aho-Corasick automaton over the needles, as a full transition table over the characters
 * they use (every other character is one class, separators are skipped).
 */
function buildAutomaton(needles: readonly Needle[]): Automaton {
  const classOf = new Uint16Array(0x10000);
  let classes = 1;
  const searched = needles.map((needle) =>
    needle.kind === 'tail' ? needle.form.slice(-needle.length) : needle.form.slice(0, needle.length),
  );
  for (const codes of searched) for (const code of codes) if (classOf[code] === 0) classOf[code] = classes++;
  const skip = classes;
  for (let code = 0; code < 0x10000; code += 1) if (isSeparator(code)) classOf[code] = skip;

  const trie: number[][] = [[]];
  const outputs: (Needle[] | undefined)[] = [undefined];
  for (const [index, codes] of searched.entries()) {
    let state = 0;
    for (const code of codes) {
      const kind = classOf[code] as number;
      let next = (trie[state] as number[])[kind];
      if (next === undefined) {
        next = trie.length;
        trie.push([]);
        outputs.push(undefined);
        (trie[state] as number[])[kind] = next;
      }
      state = next;
    }
    outputs[state] = [...(outputs[state] ?? []), needles[index] as Needle];
  }
  // Breadth first, so a state's failure state (its longest proper suffix that is a prefix of a
  // needle) is complete before it: its transitions and outputs are the fallback of the state's.
  const table = new Int32Array(trie.length * classes);
  const failure = new Int32Array(trie.length);
  const queue: number[] = [0];
  for (let head = 0; head < queue.length; head += 1) {
    const state = queue[head] as number;
    const edges = trie[state] as number[];
    for (let kind = 1; kind < classes; kind += 1) {
      const next = edges[kind];
      const fallback = state === 0 ? 0 : (table[(failure[state] as number) * classes + kind] as number);
      if (next === undefined) table[state * classes + kind] = fallback;
      else {
        table[state * classes + kind] = next;
        failure[next] = fallback;
        const inherited = outputs[fallback];
        if (inherited) outputs[next] = [...(outputs[next] ?? []), ...inherited];
        queue.push(next);
      }
    }
  }
  const matches = Uint8Array.from(outputs, (output) => (output ? 1 : 0));

  const step = (state: number, code: number): number => table[state * classes + (classOf[code] as number)] as number;
  const occursIn = (text: string, decode: boolean): boolean => {
    let state = 0;
    if (!decode) {
      for (let index = 0; index < text.length; index += 1) {
        const kind = classOf[text.charCodeAt(index)] as number;
        if (kind === skip) continue;
        state = table[state * classes + kind] as number;
        if (matches[state]) return true;
      }
      return false;
    }
    const decoded = new Int32Array(2);
    for (let index = 0; index < text.length; ) {
      decodeAt(text, index, decoded);
      index += decoded[1] as number;
      const kind = classOf[decoded[0] as number] as number;
      if (kind === skip) continue;
      state = table[state * classes + kind] as number;
      if (matches[state]) return true;
    }
    return false;
  };
  return { step, occursIn, outputs };
}
