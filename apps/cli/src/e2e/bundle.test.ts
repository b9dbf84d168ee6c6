// What the built CLI carries: code every command would load and parse at start-up but never use
// stays out of the bundle (zod's messages in other languages), and code only some commands use
// is read when it is first called (the YAML parser: a resume validates the spec's recorded data).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertBuilt, CLI_PATH } from './run-cli.js';

function bundledFiles(): string[] {
  const chunks = path.join(path.dirname(CLI_PATH), 'bin-chunks');
  return [
    CLI_PATH,
    ...readdirSync(chunks)
      .filter((name) => name.endsWith('.mjs'))
      .map((name) => path.join(chunks, name)),
  ];
}

function bundledModules(): string[] {
  // esbuild marks where each bundled source file starts with a `// <path>` comment line.
  return bundledFiles().flatMap((file) =>
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

  it('keeps the YAML parser in a file of its own, loaded on its first use, not with the chunks that import it', () => {
    assertBuilt();
    // No chunk carries the parser's modules (esbuild marks each bundled source with a `// <path>` line)...
    expect(bundledModules().filter((source) => /[\\/]yaml[\\/]dist[\\/]/.test(source))).toEqual([]);
    // ...they are in lazy-yaml.cjs, which one loader requires when one of its functions is first called.
    const lazyFile = path.join(path.dirname(CLI_PATH), 'bin-chunks', 'lazy-yaml.cjs');
    expect(readFileSync(lazyFile, 'utf8')).toMatch(/[\\/]yaml[\\/]dist[\\/]index\.js/);
    const loaders = bundledFiles().flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line.includes('lazy-yaml.cjs')),
    );
    expect(loaders).toEqual([
      'var file = import.meta.url.includes("/bin-chunks/") ? "./lazy-yaml.cjs" : "./bin-chunks/lazy-yaml.cjs";',
    ]);
  });

  it('makes a `require` only in the files whose code names it', () => {
    assertBuilt();
    const makesRequire = (text: string) => text.includes('__conclaveCreateRequire(import.meta.url)');
    const namesRequire = (text: string) =>
      /\brequire\b/.test(text.replace(/^const require = __conclaveCreateRequire\(import\.meta\.url\);$/m, ''));
    const files = bundledFiles().map((file) => ({ file: path.basename(file), text: readFileSync(file, 'utf8') }));
    expect(files.filter(({ text }) => makesRequire(text) && !namesRequire(text)).map(({ file }) => file)).toEqual([]);
    // The code that needs one still has it: esbuild's shim for bundled CommonJS, the YAML parser's loader.
    expect(files.filter(({ text }) => namesRequire(text) && !makesRequire(text)).map(({ file }) => file)).toEqual([]);
    expect(files.filter(({ text }) => makesRequire(text)).length).toBeGreaterThan(0);
  });
});
