// Every decision record in docs/decisions has the same shape, so a reader finds its status,
// why it was taken, what was decided, what follows and what was weighed against it.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot } from '../support/packed-packages.js';

const directory = path.join(repositoryRoot, 'docs', 'decisions');
const records = readdirSync(directory).filter((name) => name.endsWith('.md'));
const headings = ['Status', 'Context', 'Decision', 'Consequences', 'Alternatives'];

describe('decision records', () => {
  it('are numbered from 0001 without a gap or a repeat', () => {
    const numbers = records.map((name) => Number(name.slice(0, 4))).sort((a, b) => a - b);
    expect(numbers).toEqual(numbers.map((_, index) => index + 1));
  });

  it.each(records)('%s has a title and the five headings, in order', (name) => {
    const text = readFileSync(path.join(directory, name), 'utf8');
    expect(text.startsWith(`# ${name.slice(0, 4)}: `)).toBe(true);
    const found = [...text.matchAll(/^## (.+)$/gm)].map((match) => match[1]);
    expect(found).toEqual(headings);
  });
});
