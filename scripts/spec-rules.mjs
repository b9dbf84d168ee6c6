// The fingerprint of the workflow spec's validation rules: a hash of the source of
// packages/runner/src/workflow/workflow-spec.ts and of every module it imports (workspace
// packages' sources followed through their `@resume/source` exports, each third-party
// package by its name and version). A session records it with the spec it validated; a
// resume trusts that validated spec only when this build's fingerprint is the same
// (docs/decisions/0019-recorded-validated-spec.md). The build injects it as
// `__CONCLAVE_SPEC_RULES__` (scripts/build-package.mjs), and so does vitest.config.ts.
//
// `node scripts/spec-rules.mjs` prints the fingerprint; `--files` lists what it covers.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ENTRY = 'packages/runner/src/workflow/workflow-spec.ts';

/** Workspace packages by name: their folder and manifest. */
function workspacePackages() {
  const found = new Map();
  for (const group of ['packages', 'apps']) {
    for (const name of readdirSync(path.join(root, group))) {
      const manifestPath = path.join(root, group, name, 'package.json');
      if (!existsSync(manifestPath)) continue;
      const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
      found.set(manifest.name, { dir: path.join(root, group, name), manifest });
    }
  }
  return found;
}

// Static imports and re-exports (type-only ones change no rule) and dynamic imports of a literal.
const IMPORT =
  /^\s*(?:import|export)\s+(?!type\s)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm;

function importsOf(source) {
  const specifiers = [];
  for (const match of source.matchAll(IMPORT)) specifiers.push(match[1] ?? match[2]);
  return specifiers;
}

function resolveRelative(from, specifier) {
  const base = path.resolve(path.dirname(from), specifier);
  const candidates = [
    base.replace(/\.js$/, '.ts'),
    base.replace(/\.js$/, '.tsx'),
    `${base}.ts`,
    path.join(base, 'index.ts'),
    base,
  ];
  const found = candidates.find((candidate) => existsSync(candidate));
  if (!found) throw new Error(`${path.relative(root, from)}: cannot resolve ${specifier}`);
  return found;
}

function packageName(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** The files and third-party packages the spec's validation is made of. */
export function specRulesSources() {
  const packages = workspacePackages();
  const files = new Set();
  const external = new Map();
  const pending = [path.join(root, ENTRY)];
  while (pending.length > 0) {
    const file = pending.pop();
    if (files.has(file)) continue;
    files.add(file);
    for (const specifier of importsOf(readFileSync(file, 'utf8'))) {
      if (specifier.startsWith('node:')) continue;
      if (specifier.startsWith('.')) {
        pending.push(resolveRelative(file, specifier));
        continue;
      }
      const name = packageName(specifier);
      const workspace = packages.get(name);
      if (workspace) {
        const subpath = `.${specifier.slice(name.length)}`;
        const target = workspace.manifest.exports?.[subpath]?.['@resume/source'];
        if (!target) throw new Error(`${path.relative(root, file)}: ${specifier} has no @resume/source export`);
        pending.push(path.join(workspace.dir, target));
        continue;
      }
      if (!external.has(name)) {
        const require = createRequire(file);
        let dir = path.dirname(require.resolve(specifier));
        while (!existsSync(path.join(dir, 'package.json')) || !isManifestOf(path.join(dir, 'package.json'), name)) {
          const parent = path.dirname(dir);
          if (parent === dir) throw new Error(`${path.relative(root, file)}: no package.json for ${specifier}`);
          dir = parent;
        }
        external.set(name, JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')).version);
      }
    }
  }
  return {
    files: [...files].map((file) => path.relative(root, file).split(path.sep).join('/')).sort(),
    packages: [...external].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, version]) => `${name}@${version}`),
  };
}

function isManifestOf(manifestPath, name) {
  return JSON.parse(readFileSync(manifestPath, 'utf8')).name === name;
}

/** `sha256:<hex>` of every covered file (path and content) and package (name and version). */
export function specRulesFingerprint() {
  const { files, packages } = specRulesSources();
  const hash = createHash('sha256');
  for (const file of files) {
    const content = readFileSync(path.join(root, file));
    hash.update(`file ${file} ${content.length}\n`).update(content).update('\n');
  }
  for (const entry of packages) hash.update(`package ${entry}\n`);
  return `sha256:${hash.digest('hex')}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--files')) {
    const { files, packages } = specRulesSources();
    console.log([...files, ...packages].join('\n'));
  } else {
    console.log(specRulesFingerprint());
  }
}
