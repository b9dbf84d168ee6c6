// What the built CLI carries: code every command would load and parse at start-up but never use
// stays out of the bundle (zod's messages in other languages).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertBuilt, CLI_PATH } from './run-cli.js';

function bundledModules(): string[] {
  const chunks = path.join(path.dirname(CLI_PATH), 'bin-chunks');
  const files = [
    CLI_PATH,
    ...readdirSync(chunks)
      .filter((name) => name.endsWith('.mjs'))
      .map((name) => path.join(chunks, name)),
  ];
  // esbuild marks where each bundled source file starts with a `// <path>` comment line.
  return files.flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('// ') && line.includes('node_modules'))
      .map((line) => line.slice(3)),
  );
}

describe('the built conclave bundle', () => {
  it("keeps zod's English messages and none of its other locales", () => {
    assertBuilt();
    const locales = bundledModules()
      .map((source) => /[\\/]zod[\\/]v4[\\/]locales[\\/]([\w-]+)\.js$/.exec(source)?.[1])
      .filter((locale): locale is string => locale !== undefined && locale !== 'index');
    expect([...new Set(locales)]).toEqual(['en']);
  });
});
