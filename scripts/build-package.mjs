// Builds the app (a package with a `bin`) in the current directory: one bundle per bin, with the
// version injected and the start-up optimisations below, and its `exports` entries as ES modules.
// The library packages build with tsdown instead (`tsdown.config.ts`, docs/decisions/0030).
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { build } from 'esbuild';

const packageDir = process.cwd();
const manifest = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8'));

rmSync(path.join(packageDir, 'dist'), { recursive: true, force: true });

const entryPoints = Object.values(manifest.exports ?? {})
  .map((target) => target['@resume/source'])
  .filter(Boolean);

// The first lines of every bin output file after the shebang: a `require` for bundled CommonJS code.
const REQUIRE_BANNER = [
  "import { createRequire as __conclaveCreateRequire } from 'node:module';",
  'const require = __conclaveCreateRequire(import.meta.url);',
];

const common = {
  platform: 'node',
  target: 'node22',
  format: 'esm',
  sourcemap: true,
  logLevel: 'warning',
  conditions: ['@resume/source'],
  define: {
    __CONCLAVE_VERSION__: JSON.stringify(manifest.version),
  },
};

if (entryPoints.length > 0) {
  await build({
    ...common,
    entryPoints,
    outdir: 'dist',
    outbase: 'src',
    bundle: true,
    splitting: true,
    packages: 'external',
    chunkNames: 'chunks/[name]-[hash]',
    // A class that names itself in its own body (`static code`, `X.code`) is emitted as
    // `var X = class _X`: without this, `constructor.name` and `console.log` of a library's
    // errors would read `_ReplayMismatchError`.
    keepNames: true,
  });
}

// Apps: each bin is one self-contained bundle. Workspace packages are bundled in
// from source; third-party packages stay external unless listed in `conclave.bundle`.
for (const [name, target] of Object.entries(manifest.bin ?? {})) {
  const source = path.join('src', 'bin', `${name}.ts`);
  const sourceTsx = `${source}x`;
  const entry = existsSync(sourceTsx) ? sourceTsx : source;
  // `conclave.bundle`: third-party packages bundled in anyway (one file loads faster than
  // a package of many small ES modules, which matters for start-up).
  const bundled = manifest.conclave?.bundle ?? [];
  const external = Object.keys(manifest.dependencies ?? {}).filter(
    (dependency) =>
      (!dependency.startsWith('@resume/') && !bundled.includes(dependency)) ||
      (manifest.conclave?.external ?? []).includes(dependency),
  );
  // `conclave.lazyChunks`: modules the bin imports with `import()` go to chunks next to it,
  // so their dependencies (Ink, React, provider SDKs) load only when a command needs them;
  // in a single file esbuild would hoist every external import to the top.
  const lazyChunks = manifest.conclave?.lazyChunks === true;
  // `conclave.lazyBuiltins`: Node built-ins that a bundled third-party package imports at load
  // but uses only on paths a start-up never takes (commander imports child_process for
  // executable subcommands): `{ "node:child_process": ["commander"] }` makes them load on first
  // use inside those packages, saving their start-up cost on every run.
  const lazyBuiltins = manifest.conclave?.lazyBuiltins ?? {};
  // `conclave.lazyCommonJs`: CommonJS packages the workspace's code imports functions from,
  // bundled into a file of their own next to the chunks and loaded on the first call instead of
  // when an importing chunk loads (the YAML parser: a resume validates the spec's recorded data
  // and never parses YAML, so it neither reads nor compiles the parser's 270 KB). An ES module
  // package works too (`"default"` names its default export): `string-width` builds a grapheme
  // segmenter when it loads, which a run whose output is plain ASCII never needs. Bundled
  // packages that import the same package (Ink and `string-width`) share its file, so the TUI
  // builds its segmenter and compiles its patterns once.
  const lazyCommonJs = manifest.conclave?.lazyCommonJs ?? {};
  // `conclave.builtinsWithoutFacade`: built-ins the bundled code reads from their exports object
  // instead of importing them as ES modules. For an ES module Node reads every property of the
  // built-in, running its lazy getters: `node:util` then loads its argument parser, its diff and
  // worker threads, and `node:process` (whose public module is also what `getBuiltinModule`
  // loads) the diagnostic report: 16 modules at every start that no command uses. Each built-in
  // lists the names the bundle imports from it; a new one fails the build until it is listed.
  const builtinsWithoutFacade = manifest.conclave?.builtinsWithoutFacade ?? {};
  const lazyDirectory = lazyChunks ? path.join(path.dirname(target), 'bin-chunks') : path.dirname(target);
  await build({
    ...common,
    entryPoints: lazyChunks ? { [path.basename(target).replace(/\.m?js$/, '')]: entry } : [entry],
    ...(lazyChunks
      ? {
          outdir: path.dirname(target),
          splitting: true,
          outExtension: { '.js': '.mjs' },
          chunkNames: 'bin-chunks/[name]-[hash]',
        }
      : { outfile: target }),
    bundle: true,
    external: [...external, ...(manifest.conclave?.external ?? [])],
    // Bundled React and Ink run their production builds (the development ones check and warn
    // on every render, several times slower); only the bundled code sees this, not the environment.
    define: { ...common.define, 'process.env.NODE_ENV': '"production"' },
    plugins: [
      ...(Object.keys(lazyBuiltins).length > 0 ? [lazyBuiltinsPlugin(lazyBuiltins)] : []),
      ...(Object.keys(lazyCommonJs).length > 0 ? [lazyCommonJsPlugin(lazyCommonJs, lazyDirectory)] : []),
      ...(Object.keys(builtinsWithoutFacade).length > 0 ? [builtinsWithoutFacadePlugin(builtinsWithoutFacade)] : []),
      ...((manifest.conclave?.inlineWasm ?? []).length > 0 ? [inlineWasmPlugin(manifest.conclave.inlineWasm)] : []),
      ...(manifest.conclave?.zodLocales ? [zodLocalesPlugin(manifest.conclave.zodLocales)] : []),
    ],
    // CommonJS dependencies bundled into ESM call `require` for Node built-ins: give them one.
    banner: {
      js: `#!/usr/bin/env node\n${REQUIRE_BANNER.join('\n')}`,
    },
  });
  if (lazyChunks) {
    for (const file of [target, ...readdirSync(lazyDirectory).map((name) => path.join(lazyDirectory, name))]) {
      if (file.endsWith('.mjs')) dropUnusedRequire(file);
    }
  }
}

/**
 * `require` for the bundled CommonJS code, made in each output file by its banner. A chunk that
 * never names `require` does not need one, and making it (a module object from the file's URL)
 * is paid at every load of every chunk: the two lines become empty lines, so the source map's
 * line numbers still hold.
 */
function dropUnusedRequire(file) {
  const text = readFileSync(file, 'utf8');
  const banner = REQUIRE_BANNER.join('\n');
  const start = text.indexOf(banner);
  if (start === -1) return;
  const rest = text.slice(start + banner.length);
  if (/\brequire\b/.test(rest)) return;
  writeFileSync(file, `${text.slice(0, start)}\n${rest}`);
}

/** A built-in's name without its `node:` prefix, as both spellings import it. */
function bareBuiltin(name) {
  return name.replace(/^node:/, '');
}

/**
 * `conclave.builtinsWithoutFacade`: each listed built-in, wherever the bundle imports it, is a
 * module exporting the built-in's exports object as its default and the listed names read from
 * it (`process.getBuiltinModule`; for `node:process`, the global `process`, the very object it
 * exports). Reading only the listed names runs none of the built-in's other getters.
 */
function builtinsWithoutFacadePlugin(namesByBuiltin) {
  const wanted = new Map(Object.entries(namesByBuiltin).map(([name, names]) => [bareBuiltin(name), names]));
  return {
    name: 'builtins-without-facade',
    setup(pluginBuild) {
      // ES module imports only: a bundled CommonJS `require('node:util')` gets the whole built-in, as before.
      pluginBuild.onResolve({ filter: /^(node:)?[a-z_]+$/ }, (args) =>
        args.kind === 'import-statement' && wanted.has(bareBuiltin(args.path))
          ? { path: bareBuiltin(args.path), namespace: 'builtin-without-facade' }
          : undefined,
      );
      pluginBuild.onLoad({ filter: /.*/, namespace: 'builtin-without-facade' }, (args) => {
        const exportsObject =
          args.path === 'process' ? 'process' : `process.getBuiltinModule(${JSON.stringify(`node:${args.path}`)})`;
        const named = wanted.get(args.path).map((name) => `export const ${name} = builtin.${name};`);
        return {
          loader: 'js',
          contents: [`const builtin = ${exportsObject};`, 'export default builtin;', ...named, ''].join('\n'),
        };
      });
    },
  };
}

/**
 * `conclave.inlineWasm`: Emscripten loaders (by path inside node_modules) whose WebAssembly is
 * inline in the file. Such a loader still looks for `fetch` first, and in Node the first look at
 * `fetch` loads its whole HTTP client (undici, tens of milliseconds at every start of a screen);
 * the loader is told there is none, so it decodes the inline binary directly. A loader whose
 * text no longer has the expected test fails the build, so the change can never silently lapse.
 */
function inlineWasmPlugin(files) {
  const escaped = files.map((file) => file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'));
  const filter = new RegExp(`node_modules[\\\\/](?:${escaped.join('|')})$`);
  return {
    name: 'inline-wasm',
    setup(pluginBuild) {
      pluginBuild.onLoad({ filter }, async (args) => {
        const text = await readFile(args.path, 'utf8');
        const test = '"function"!=typeof fetch';
        if (!text.includes(test)) throw new Error(`${args.path}: no \`${test}\` to replace (conclave.inlineWasm)`);
        return { loader: 'js', contents: text.replaceAll(test, 'true') };
      });
    },
  };
}

/**
 * `conclave.zodLocales`: the zod locales the bundle keeps (`["en"]`). zod's `z` namespace
 * re-exports every locale (`z.locales`, about 60 files), so a bundle that imports `z` carries and
 * parses all of them at every start although only English (zod's default messages) is ever used.
 * The locales index is cut down to the listed ones: messages stay identical, `z.locales.<other>`
 * is absent from the bundle. An index that no longer re-exports a listed locale in the expected
 * form fails the build, so the cut can never silently drop a locale in use.
 */
function zodLocalesPlugin(locales) {
  return {
    name: 'zod-locales',
    setup(pluginBuild) {
      pluginBuild.onLoad({ filter: /node_modules[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, async (args) => {
        const text = await readFile(args.path, 'utf8');
        const lines = locales.map((locale) => {
          const line = `export { default as ${locale} } from "./${locale}.js";`;
          if (!text.includes(line)) throw new Error(`${args.path}: no \`${line}\` to keep (conclave.zodLocales)`);
          return line;
        });
        return { loader: 'js', contents: `${lines.join('\n')}\n` };
      });
    },
  };
}

/**
 * Replaces the workspace's imports of a CommonJS package by functions that load it on their first
 * call. The package is bundled into a CommonJS file of its own in `directory`
 * (`lazy-<package>.cjs`), which the functions `require` at run time: a chunk that imports them
 * neither reads nor compiles the package until one is called (bundled into the chunks, its code
 * would be read and compiled with them even when its body waits). Only the listed functions can
 * be imported: any other import of the package from the workspace fails the build ("No matching
 * export").
 */
function lazyCommonJsPlugin(functionsByPackage, directory) {
  const names = new Map(Object.entries(functionsByPackage));
  const written = new Map();
  const fileName = (name) => `lazy-${name.replace(/[^a-z0-9]+/gi, '-')}.cjs`;
  /** Bundles the package as the importer resolves it into its own file, once per build. */
  const writeFile = (name, resolveDir) => {
    if (!written.has(name)) {
      written.set(
        name,
        build({
          stdin: { contents: `module.exports = require(${JSON.stringify(name)});`, resolveDir, loader: 'js' },
          bundle: true,
          platform: 'node',
          target: 'node22',
          format: 'cjs',
          logLevel: 'warning',
          outfile: path.join(directory, fileName(name)),
        }),
      );
    }
    return written.get(name);
  };
  const escaped = [...names.keys()].map((name) => name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'));
  const filter = new RegExp(`^(?:${escaped.join('|')})$`);
  return {
    name: 'lazy-commonjs',
    setup(pluginBuild) {
      // Where a package resolves to, without this plugin: a bundled dependency (Ink imports
      // `string-width` too) shares the lazy file only when it resolves the very same package.
      const resolved = async (name, resolveDir) =>
        (await pluginBuild.resolve(name, { resolveDir, kind: 'import-statement', pluginData: { lazySkip: true } }))
          .path;
      pluginBuild.onResolve({ filter }, async (args) => {
        if (args.kind !== 'import-statement' || args.pluginData?.lazySkip) return undefined;
        if (args.importer.includes(`${path.sep}node_modules${path.sep}`)) {
          const [theirs, ours] = await Promise.all([
            resolved(args.path, args.resolveDir),
            resolved(args.path, packageDir),
          ]);
          if (theirs !== ours) return undefined;
          return { path: args.path, namespace: 'lazy-commonjs', pluginData: { resolveDir: packageDir } };
        }
        return { path: args.path, namespace: 'lazy-commonjs', pluginData: { resolveDir: args.resolveDir } };
      });
      pluginBuild.onLoad({ filter: /.*/, namespace: 'lazy-commonjs' }, async (args) => {
        await writeFile(args.path, args.pluginData.resolveDir);
        // The loader lands in the entry or in a chunk: the file is found from where it landed.
        const options = pluginBuild.initialOptions;
        const relative = path.relative(options.outdir ?? path.dirname(options.outfile), directory);
        const fromEntry = `./${[relative, fileName(args.path)].filter(Boolean).join('/')}`;
        return {
          loader: 'js',
          contents: `import { createRequire } from 'node:module';
let loaded;
const file = import.meta.url.includes('/bin-chunks/') ? ${JSON.stringify(`./${fileName(args.path)}`)} : ${JSON.stringify(fromEntry)};
const load = () => (loaded ??= createRequire(import.meta.url)(file));
${names
  .get(args.path)
  .map((name) =>
    name === 'default'
      ? 'export default (...args) => load().default(...args);'
      : `export const ${name} = (...args) => load().${name}(...args);`,
  )
  .join('\n')}
`,
        };
      });
    },
  };
}

/**
 * Replaces a built-in's default import inside node_modules by an object that loads the
 * built-in on its first property access. Only default (or namespace) use is supported: a
 * named import of a lazy built-in fails the build, so it can never silently break.
 */
function lazyBuiltinsPlugin(importersByBuiltin) {
  const wanted = new Map(Object.entries(importersByBuiltin).map(([name, packages]) => [bareBuiltin(name), packages]));
  const inPackage = (importer, name) => importer.includes(`${path.sep}node_modules${path.sep}${name}${path.sep}`);
  return {
    name: 'lazy-builtins',
    setup(pluginBuild) {
      pluginBuild.onResolve({ filter: /^(node:)?[a-z_]+$/ }, (args) => {
        const packages = wanted.get(bareBuiltin(args.path));
        if (!packages?.some((name) => inPackage(args.importer, name))) return undefined;
        return { path: bareBuiltin(args.path), namespace: 'lazy-builtin' };
      });
      pluginBuild.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, (args) => ({
        loader: 'js',
        contents: `let loaded;
const load = () => (loaded ??= process.getBuiltinModule(${JSON.stringify(`node:${args.path}`)}));
export default new Proxy({}, {
  get: (_target, key) => load()[key],
  has: (_target, key) => key in load(),
  ownKeys: () => Reflect.ownKeys(load()),
  getOwnPropertyDescriptor: (_target, key) => ({ ...Reflect.getOwnPropertyDescriptor(load(), key), configurable: true }),
});
`,
      }));
    },
  };
}
