// Every package's modules import downward only: no module reaches itself again through the
// modules it imports (type-only imports count, as they tie the files together just the same).
// TypeScript's own pre-processor reads the imports, so multi-line and `export ... from` forms
// are found as the compiler finds them.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterEach, describe, expect, it } from 'vitest';

const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** The file a relative specifier (`./chain.js`, `../modes`) names, or null when it is not a source file. */
function resolveImport(from: string, specifier: string): string | null {
  const target = resolve(dirname(from), specifier);
  const candidates = [target.replace(/\.js$/, '.ts'), target.replace(/\.js$/, '.tsx'), join(target, 'index.ts')];
  return candidates.find((candidate) => existsSync(candidate)) ?? null;
}

/** Each group of modules that import one another in a circle (Tarjan's strongly connected components). */
function findImportCycles(directory: string): string[][] {
  const imports = new Map<string, string[]>();
  for (const file of sourceFiles(directory)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    imports.set(
      file,
      importedFiles
        .filter(({ fileName }) => fileName.startsWith('.'))
        .flatMap(({ fileName }) => resolveImport(file, fileName) ?? []),
    );
  }
  const order = new Map<string, number>();
  const lowest = new Map<string, number>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (file: string) => {
    order.set(file, order.size);
    lowest.set(file, order.get(file) as number);
    stack.push(file);
    for (const target of imports.get(file) ?? []) {
      if (!imports.has(target)) continue;
      if (!order.has(target)) {
        visit(target);
        lowest.set(file, Math.min(lowest.get(file) as number, lowest.get(target) as number));
      } else if (stack.includes(target)) {
        lowest.set(file, Math.min(lowest.get(file) as number, order.get(target) as number));
      }
    }
    if (lowest.get(file) !== order.get(file)) return;
    const component = stack.splice(stack.indexOf(file));
    if (component.length > 1 || imports.get(file)?.includes(file))
      cycles.push(component.map((member) => relative(directory, member)).sort());
  };
  for (const file of imports.keys()) if (!order.has(file)) visit(file);
  return cycles;
}

const workspaceSources = ['packages', 'apps'].flatMap((group) =>
  readdirSync(join(repositoryRoot, group))
    .map((name) => join(repositoryRoot, group, name, 'src'))
    .filter((directory) => existsSync(directory)),
);

describe('import cycles', () => {
  it.each(workspaceSources.map((directory) => [relative(repositoryRoot, directory), directory]))(
    '%s imports downward only',
    (_name, directory) => {
      expect(findImportCycles(directory)).toEqual([]);
    },
  );

  describe('the check itself', () => {
    let directory: string | undefined;
    afterEach(() => {
      if (directory) rmSync(directory, { recursive: true, force: true });
    });

    it('names the modules of a circle, type-only and multi-line imports included', () => {
      directory = mkdtempSync(join(tmpdir(), 'import-cycles-'));
      mkdirSync(join(directory, 'modes'));
      writeFileSync(
        join(directory, 'modes', 'chain.ts'),
        "import { runMap } from './chain-map.js';\nexport const a = runMap;\n",
      );
      writeFileSync(
        join(directory, 'modes', 'chain-map.ts'),
        "import type {\n  ChainOptions,\n} from './chain.js';\nexport const runMap = (options: ChainOptions) => options;\n",
      );
      writeFileSync(join(directory, 'leaf.ts'), "export { a } from './modes/chain.js';\n");
      expect(findImportCycles(directory)).toEqual([['modes/chain-map.ts', 'modes/chain.ts']]);
    });
  });
});
