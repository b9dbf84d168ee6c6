// What `npm install @resume/<package>` delivers: every published package is packed as
// `pnpm publish` would pack it, and its tarball is checked the way a user outside this
// repository meets it (license, README, manifest, export map, dependency ranges).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Manifest,
  packedManifest,
  packPackages,
  publishedPackages,
  repositoryRoot,
  tarballFile,
  tarballFiles,
} from '../support/packed-packages.js';

const packages = publishedPackages();
const rootManifest = JSON.parse(readFileSync(path.join(repositoryRoot, 'package.json'), 'utf8')) as {
  repository: { type: string; url: string };
  bugs: { url: string };
};
/** The repository's public address, as the root manifest records it (`git+https://…/name.git`). */
const repositoryUrl = rootManifest.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
const licenseFile = path.join(repositoryRoot, 'LICENSE');
const rootLicense = existsSync(licenseFile) ? readFileSync(licenseFile, 'utf8') : '';

let packDirectory: string;
let tarballs: Map<string, string>;
beforeAll(() => {
  packDirectory = mkdtempSync(path.join(tmpdir(), 'conclave-packed-'));
  tarballs = packPackages(
    packages.map((entry) => entry.name),
    packDirectory,
  );
}, 120_000);
afterAll(() => {
  if (packDirectory) rmSync(packDirectory, { recursive: true, force: true });
});

/** Every file an `exports` map points at (all conditions, all subpaths). */
function exportTargets(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value && typeof value === 'object') return Object.values(value).flatMap(exportTargets);
  return [];
}

function dependencyRanges(manifest: Manifest): Array<[string, string]> {
  return [
    ...Object.entries(manifest.dependencies ?? {}),
    ...Object.entries(manifest.peerDependencies ?? {}),
    ...Object.entries(manifest.optionalDependencies ?? {}),
  ];
}

describe('published packages', () => {
  it('the repository has an MIT license', () => {
    expect(rootLicense).toMatch(/^MIT License/);
    expect(rootLicense).toContain('Permission is hereby granted, free of charge');
  });

  it('a library error from the built code prints under its own name', async () => {
    const core = packages.find((entry) => entry.name === '@resume/core');
    if (!core) throw new Error('@resume/core is not a published package');
    const built = (await import(pathToFileURL(path.join(core.directory, 'dist', 'index.js')).href)) as {
      ReplayMismatchError: new (details: Record<string, unknown>) => Error;
    };
    const error = new built.ReplayMismatchError({
      sessionId: 'session-1',
      position: 2,
      expected: 'step "fetch" #1',
      requested: 'step "charge" #1',
      expectedKey: 'fetch',
      requestedKey: 'charge',
    });
    expect(error.constructor.name).toBe('ReplayMismatchError');
    expect(String(error)).toMatch(/^ReplayMismatchError: /);
    expect(inspect(error)).toMatch(/^ReplayMismatchError: /);
  });

  describe.each(packages.map((entry) => [entry.name, entry] as const))('%s', (name, entry) => {
    const tarball = () => {
      const file = tarballs.get(name);
      if (!file) throw new Error(`no tarball for ${name}`);
      return file;
    };

    it('ships the MIT license and declares it', () => {
      expect(entry.manifest.license).toBe('MIT');
      expect(entry.manifest.files).toContain('LICENSE');
      expect(tarballFiles(tarball())).toContain('LICENSE');
      expect(tarballFile(tarball(), 'LICENSE')).toBe(rootLicense);
    });

    it('ships a README with the install command, an example and a link to the docs', () => {
      expect(entry.manifest.files).toContain('README.md');
      const readme = tarballFile(tarball(), 'README.md');
      expect(readme).toMatch(new RegExp(`npm install [^\\n]*${name.replace('/', '\\/')}(\\s|$)`));
      const example = /```(?:ts|typescript|sh)\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf('## Example')));
      expect(example, 'an "## Example" section with a code block').not.toBeNull();
      const links = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1] ?? '');
      // On npm a relative link leads nowhere: every link is absolute, into this repository or elsewhere.
      expect(
        links.filter((link) => !/^https?:\/\//.test(link) && !link.startsWith('#')),
        'relative links',
      ).toEqual([]);
      const docsLinks = links.filter((link) => link.startsWith(`${repositoryUrl}/blob/main/docs/`));
      expect(docsLinks.length, 'links to the documentation').toBeGreaterThan(0);
      for (const link of links.filter((candidate) => candidate.startsWith(`${repositoryUrl}/`))) {
        const inRepository = link.slice(repositoryUrl.length + 1).replace(/^(blob|tree)\/main\//, '');
        expect(existsSync(path.join(repositoryRoot, inRepository.replace(/#.*$/, ''))), link).toBe(true);
      }
    });

    it('says where its source, home page and issue tracker are', () => {
      const manifest = packedManifest(tarball());
      const directory = path.relative(repositoryRoot, entry.directory).split(path.sep).join('/');
      expect(manifest.repository).toEqual({ ...rootManifest.repository, directory });
      expect(manifest.homepage).toBe(`${repositoryUrl}/tree/main/${directory}#readme`);
      expect(manifest.bugs).toEqual(rootManifest.bugs);
    });

    it('keeps the names of its error classes in the built code (what console.log and constructor.name show)', async () => {
      const modules = Object.values(entry.manifest.exports ?? {}).flatMap((conditions) =>
        typeof conditions === 'object' && conditions !== null && 'import' in conditions && !entry.manifest.bin
          ? [String(conditions.import)]
          : [],
      );
      const renamed: string[] = [];
      for (const target of modules) {
        const exported = (await import(pathToFileURL(path.join(entry.directory, target)).href)) as Record<
          string,
          unknown
        >;
        for (const [name, value] of Object.entries(exported)) {
          if (typeof value === 'function' && value.prototype instanceof Error && value.name !== name) {
            renamed.push(`${target}: ${name} is named ${value.name}`);
          }
        }
      }
      expect(renamed).toEqual([]);
    });

    it('has no scripts that point outside the package', () => {
      const scripts = Object.entries(packedManifest(tarball()).scripts ?? {});
      expect(scripts.filter(([, command]) => command.includes('..'))).toEqual([]);
    });

    it('depends on ranges, never on exact versions or the workspace', () => {
      const ranges = dependencyRanges(packedManifest(tarball()));
      expect(ranges.filter(([, range]) => !/^\^\d+\.\d+\.\d+$/.test(range))).toEqual([]);
    });

    it('every export has a default condition (types first where shipped), and points at shipped files', () => {
      const manifest = packedManifest(tarball());
      const files = new Set(tarballFiles(tarball()));
      for (const [subpath, conditions] of Object.entries(manifest.exports ?? {})) {
        const keys = Object.keys(conditions as object);
        // Declarations are built for the libraries; the apps ship their entry without them.
        if (keys.includes('types')) expect(keys[0], `${subpath}: types first`).toBe('types');
        expect(keys.at(-1), `${subpath}: default last`).toBe('default');
        for (const target of exportTargets(conditions)) {
          expect(files.has(path.posix.normalize(target)), `${subpath} → ${target} is in the tarball`).toBe(true);
        }
      }
    });
  });
});
