// What the built CLI carries: code every command would load and parse at start-up but never use
// stays out of the bundle (zod's messages in other languages), and code only some commands use
// runs when it is first called (the YAML parser: a resume validates the spec's recorded data).
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

  it("runs the YAML parser's module on its first use, not when a chunk that imports it loads", () => {
    assertBuilt();
    const texts = bundledFiles().map((file) => readFileSync(file, 'utf8'));
    // esbuild wraps the CommonJS parser in `var require_<name> = __commonJS({ "…/yaml/dist/index.js"(exports) {`:
    // calling require_<name>() runs its module.
    const wrapper = texts
      .map((text) => /var (require_\w+) = __commonJS\(\{\s*"[^"]*[\\/]yaml[\\/]dist[\\/]index\.js"/.exec(text)?.[1])
      .find((name) => name !== undefined);
    expect(wrapper).toBeDefined();
    const calls = texts.flatMap((text) =>
      text.split('\n').filter((line) => line.includes(`${wrapper}()`) && !line.startsWith(`var ${wrapper} =`)),
    );
    expect(calls).toEqual([`var load = () => loaded ??= ${wrapper}();`]);
  });
});
