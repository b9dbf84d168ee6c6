// The packages as npm users get them: `pnpm pack` of the built workspace packages (the
// tarballs `pnpm publish` would upload), and what is inside them.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

export const repositoryRoot = fileURLToPath(new URL('../../../../', import.meta.url));

const manifestSchema = z.looseObject({
  name: z.string(),
  version: z.string(),
  private: z.boolean().optional(),
  license: z.string().optional(),
  files: z.array(z.string()).optional(),
  scripts: z.record(z.string(), z.string()).optional(),
  exports: z.record(z.string(), z.unknown()).optional(),
  dependencies: z.record(z.string(), z.string()).optional(),
  peerDependencies: z.record(z.string(), z.string()).optional(),
  optionalDependencies: z.record(z.string(), z.string()).optional(),
});

export type Manifest = z.infer<typeof manifestSchema>;

export interface WorkspacePackage {
  name: string;
  /** Absolute directory of the package in the repository. */
  directory: string;
  manifest: Manifest;
}

/** Every package of the workspace that is published (not `private`). */
export function publishedPackages(): WorkspacePackage[] {
  return ['packages', 'apps'].flatMap((group) =>
    readdirSync(path.join(repositoryRoot, group))
      .map((name) => path.join(repositoryRoot, group, name))
      .filter((directory) => existsSync(path.join(directory, 'package.json')))
      .map((directory) => {
        const manifest = manifestSchema.parse(JSON.parse(readFileSync(path.join(directory, 'package.json'), 'utf8')));
        return { name: manifest.name, directory, manifest };
      })
      .filter((entry) => entry.manifest.private !== true),
  );
}

/**
 * Packs the named workspace packages into `destination` with the repository's pnpm (one
 * process for all of them) and returns each package's tarball path. The packages must be built.
 */
export function packPackages(names: string[], destination: string): Map<string, string> {
  for (const name of names) {
    const entry = publishedPackages().find((candidate) => candidate.name === name);
    if (!entry) throw new Error(`${name} is not a published package of this workspace`);
    if (!existsSync(path.join(entry.directory, 'dist'))) {
      throw new Error(`${name} is not built (no ${path.join(entry.directory, 'dist')}): run pnpm build first`);
    }
  }
  const output = execFileSync(
    path.join(repositoryRoot, 'bin', 'pnpm'),
    [...names.flatMap((name) => ['--filter', name]), 'pack', '--pack-destination', destination, '--json'],
    { cwd: repositoryRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const packed = z
    .union([
      z.array(z.object({ name: z.string(), filename: z.string() })),
      z.object({ name: z.string(), filename: z.string() }),
    ])
    .parse(JSON.parse(output));
  const tarballs = new Map<string, string>();
  for (const entry of Array.isArray(packed) ? packed : [packed]) {
    tarballs.set(entry.name, path.resolve(destination, entry.filename));
  }
  for (const name of names) if (!tarballs.has(name)) throw new Error(`pnpm pack did not report a tarball for ${name}`);
  return tarballs;
}

/** The paths inside a tarball, without the leading `package/`. */
export function tarballFiles(tarball: string): string[] {
  return execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .map((entry) => entry.replace(/^package\//, ''));
}

/** One file of a tarball, as text. */
export function tarballFile(tarball: string, file: string): string {
  return execFileSync('tar', ['-xzf', tarball, '-O', `package/${file}`], { encoding: 'utf8' });
}

/** The package.json inside a tarball: what npm users install. */
export function packedManifest(tarball: string): Manifest {
  return manifestSchema.parse(JSON.parse(tarballFile(tarball, 'package.json')));
}
