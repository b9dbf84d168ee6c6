// The exit codes a script may see are listed twice for people, in README.md and in
// docs/cli.md's table; both must name every code the CLI can exit with, and no other.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ExitCode } from '@resume/runner/exit-codes';
import { describe, expect, it } from 'vitest';
import { repositoryRoot } from '../support/packed-packages.js';

const exitCodes = [...new Set(Object.values(ExitCode))].sort((a, b) => a - b);

/** The text of a markdown section, from its heading to the next heading of any level. */
function section(file: string, heading: string): string {
  const text = readFileSync(path.join(repositoryRoot, file), 'utf8');
  const start = text.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`${file} has no "${heading}" section`);
  const rest = text.slice(start + heading.length + 2);
  const next = rest.search(/^#/m);
  return next < 0 ? rest : rest.slice(0, next);
}

const numbers = (matches: Iterable<RegExpMatchArray>) =>
  [...new Set([...matches].map((match) => Number(match[1])))].sort((a, b) => a - b);

describe('the documented exit codes', () => {
  it('README.md lists every code of ExitCode, and no other', () => {
    const listed = numbers(section('README.md', '## Exit codes').matchAll(/`(\d+)`/g));
    expect(listed).toEqual(exitCodes);
  });

  it("docs/cli.md's table has a row for every code of ExitCode, and no other", () => {
    const rows = numbers(section('docs/cli.md', '## Exit codes').matchAll(/^\| (\d+) \|/gm));
    expect(rows).toEqual(exitCodes);
  });
});
