// The library packages' build: one ES module per `exports` entry, shared code in `chunks/`, source
// maps, names of classes and functions kept. Each library runs it from its own folder
// (`tsdown --config ../../tsdown.config.ts`), then `tsc` writes the declarations to `dist/types`.
// The two apps' bins build with `scripts/build-package.mjs` instead (docs/decisions/0030).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { defineConfig } from 'tsdown';

interface Manifest {
  exports?: Record<string, { '@resume/source'?: string }>;
}

const packageDir = process.cwd();
const manifest: Manifest = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8'));

/** `{ 'config/index': './src/config/index.ts' }`: each entry lands where its `exports` target says. */
const entry = Object.fromEntries(
  Object.values(manifest.exports ?? {})
    .map((target) => target['@resume/source'])
    .filter((source): source is string => source !== undefined)
    .map((source) => [path.relative('src', source).replace(/\.tsx?$/, ''), source]),
);

export default defineConfig({
  // The package being built, not this file's folder: entries, `dist` and `package.json` are its own.
  cwd: packageDir,
  entry,
  outDir: 'dist',
  format: 'esm',
  platform: 'node',
  target: 'node22',
  // `"type": "module"` packages: `.js`, as the `exports` maps name them.
  fixedExtension: false,
  sourcemap: true,
  // Declarations come from `tsc` (`dist/types`, one file per module, as the `exports` maps name them).
  dts: false,
  // Every bare import stays an import: the workspace's packages and third-party ones alike.
  deps: { neverBundle: true },
  logLevel: 'warn',
  outputOptions: {
    chunkFileNames: 'chunks/[name]-[hash].js',
    // A class that names itself in its own body (`static code`, `X.code`) would otherwise be
    // renamed in the bundle: `constructor.name` and `console.log` of an error would read `_ReplayMismatchError`.
    keepNames: true,
  },
});
