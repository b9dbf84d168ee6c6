// The dependency direction between the engine and what is built on it: `@resume/runner`
// depends on `@resume/core`, never the other way round, and core stays free of the YAML
// parser and the diff library (docs/decisions/0006-core-and-runner.md). Read from the
// files themselves, so a new import anywhere in core's source is caught.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const thisFile = fileURLToPath(import.meta.url);
const sourceRoot = path.dirname(thisFile);
const packageRoot = path.dirname(sourceRoot);

/** Packages core must not depend on: the runner's own dependencies and every other workspace package. */
const forbiddenPackage = /^(yaml|diff)(\/|$)|^@resume\/(?!core(\/|$))/;

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|tsx|mts|js|mjs)$/.test(entry.name) ? [full] : [];
  });
}

/** Every module specifier a file names: static imports and re-exports, side-effect imports, `import()`. */
function importedSpecifiers(text: string): string[] {
  const patterns = [
    /\bfrom\s+['"]([^'"]+)['"]/g,
    /\bimport\s+['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  return patterns.flatMap((pattern) => [...text.matchAll(pattern)].map((match) => match[1] ?? ''));
}

/** The imports in `file` that break the direction: forbidden packages, or relative paths leaving core's source. */
function wrongWayImports(file: string, text: string): string[] {
  return importedSpecifiers(text).filter((specifier) => {
    if (specifier.startsWith('.')) {
      const target = path.resolve(path.dirname(file), specifier);
      return path.relative(sourceRoot, target).startsWith('..');
    }
    return forbiddenPackage.test(specifier);
  });
}

describe('dependency direction of @resume/core', () => {
  it('finds the imports it is meant to refuse', () => {
    const file = path.join(sourceRoot, 'engine', 'example.ts');
    const text = [
      "import { parse } from 'yaml';",
      "import { createPatch } from 'diff/lib/index.js';",
      "export { createRunner } from '@resume/runner';",
      "const config = await import('@resume/runner/config');",
      "import '../../../runner/src/index.js';",
      "import { fold } from '../journal/fold.js';",
      "import { z } from 'zod';",
      "import type { SessionStore } from '@resume/core/spec';",
    ].join('\n');
    expect(wrongWayImports(file, text)).toEqual([
      'yaml',
      'diff/lib/index.js',
      '@resume/runner',
      '../../../runner/src/index.js',
      '@resume/runner/config',
    ]);
  });

  it('imports neither yaml, diff nor anything of the runner or another package', () => {
    // This file names the refused imports in its own examples.
    const files = sourceFiles(sourceRoot).filter((file) => file !== thisFile);
    expect(files.length).toBeGreaterThan(20);
    const offending = files.flatMap((file) =>
      wrongWayImports(file, readFileSync(file, 'utf8')).map(
        (specifier) => `${path.relative(packageRoot, file)}: ${specifier}`,
      ),
    );
    expect(offending).toEqual([]);
  });

  it('lists neither yaml, diff nor another workspace package among its dependencies', () => {
    const manifest = JSON.parse(readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    const listed = ['dependencies', 'peerDependencies', 'optionalDependencies', 'devDependencies'].flatMap((field) =>
      Object.keys((manifest[field] as Record<string, string> | undefined) ?? {}),
    );
    expect(listed.filter((name) => forbiddenPackage.test(name))).toEqual([]);
  });

  it('needs no test framework outside its own tests: the test kits take the test functions as a parameter', () => {
    const testFramework = /^(vitest|jest|@jest\/globals|mocha|@vitest\/)/;
    const shipped = sourceFiles(sourceRoot).filter((file) => !/\.test\.tsx?$/.test(file));
    const offending = shipped.flatMap((file) =>
      importedSpecifiers(readFileSync(file, 'utf8'))
        .filter((specifier) => testFramework.test(specifier))
        .map((specifier) => `${path.relative(packageRoot, file)}: ${specifier}`),
    );
    expect(offending).toEqual([]);
  });
});
