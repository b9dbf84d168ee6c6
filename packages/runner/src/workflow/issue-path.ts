// How a zod issue reads in an error: the path as a user finds the spot in their YAML
// (`steps[2].retry.attempts`), and what it quotes of the file (unknown keys) cut short and with
// credentials redacted: a file that is not a spec (`conclave run /etc/shadow`, `.env`) is named,
// never printed.
import { scrubSecrets } from '@resume/core/spec';
import type { z } from 'zod';

/** How much of one piece of a file an error quotes, and how many pieces. */
const QUOTED_LENGTH = 80;
const QUOTED_PIECES = 3;

/** A key or line of the user's file as an error quotes it: its first line, at most 80 characters, credentials redacted. */
export function quoteFromFile(text: string): string {
  const lines = text.split(/\r?\n/);
  const line = scrubSecrets(lines[0] ?? '');
  const cut = line.length > QUOTED_LENGTH || lines.length > 1;
  return JSON.stringify(cut ? `${line.slice(0, QUOTED_LENGTH)}…` : line);
}

/** `a, b, c and 7 more` over at most three of the items. */
export function listSome(items: readonly string[], separator = ', '): string {
  const shown = items.slice(0, QUOTED_PIECES).join(separator);
  return items.length > QUOTED_PIECES ? `${shown} and ${items.length - QUOTED_PIECES} more` : shown;
}

/** What an issue says, quoting unknown keys through `quoteFromFile`. */
export function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code !== 'unrecognized_keys') return issue.message;
  const keys = issue.keys.map(quoteFromFile);
  return `unknown key${keys.length === 1 ? '' : 's'} ${listSome(keys)}`;
}

const plainKey = /^[A-Za-z0-9_-]{1,40}$/;

/** A key of a path as it is when it is a plain name, else quoted through `quoteFromFile`. */
export function keyInPath(segment: PropertyKey): string {
  const text = String(segment);
  return typeof segment === 'number' || plainKey.test(text) ? text : quoteFromFile(text);
}

export function formatIssuePath(path: ReadonlyArray<PropertyKey>): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else text += text === '' ? keyInPath(segment) : `.${keyInPath(segment)}`;
  }
  return text || '(top level)';
}
