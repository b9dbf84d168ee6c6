// Confinement of paths to a workspace directory. Every file the workspace tools or the
// snapshot/restore code touch goes through `resolveWorkspacePath`, so no `..`, absolute
// path or symlink can reach outside the workspace.
import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';
import { WorkspaceAccessError } from './workspace-access-error.js';

export interface ResolvedWorkspacePath {
  /** The workspace root with symlinks resolved. */
  root: string;
  /** Path relative to the workspace, forward slashes (`.` for the root itself). */
  relative: string;
  /** Absolute path inside the real workspace root (symlinks in existing parts resolved). */
  absolute: string;
  /** Whether something exists at that path now. */
  exists: boolean;
}

function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

function toPosix(relative: string): string {
  return relative.split(path.sep).join('/');
}

function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;
}

/** The workspace root with symlinks resolved; a missing root is a clear error. */
export async function realWorkspaceRoot(root: string): Promise<string> {
  try {
    return await realpath(path.resolve(root));
  } catch (error) {
    throw new WorkspaceAccessError(
      'workspace-missing',
      root,
      `The workspace directory ${root} does not exist or cannot be read.`,
      { cause: error, hint: 'Run from an existing directory, or pass the workspace directory explicitly.' },
    );
  }
}

/**
 * Resolves a workspace-relative path. Refuses absolute paths, paths that climb out with
 * `..`, and paths whose existing part resolves (through symlinks) outside the workspace.
 * A dangling symlink is refused too: writing through it could create a file anywhere.
 */
export async function resolveWorkspacePath(root: string, requested: string): Promise<ResolvedWorkspacePath> {
  if (typeof requested !== 'string' || requested.length === 0) {
    throw new WorkspaceAccessError('invalid-path', String(requested), 'A file path is required.');
  }
  if (requested.includes('\0')) {
    throw new WorkspaceAccessError(
      'invalid-path',
      requested,
      `The path ${JSON.stringify(requested)} contains a NUL byte.`,
    );
  }
  if (path.isAbsolute(requested) || path.win32.isAbsolute(requested)) {
    throw new WorkspaceAccessError(
      'outside-workspace',
      requested,
      `The path ${requested} is absolute; only paths relative to the workspace are allowed.`,
      { hint: 'Use a path relative to the workspace directory.' },
    );
  }
  const realRoot = await realWorkspaceRoot(root);
  const lexical = path.resolve(realRoot, requested);
  if (!isInside(realRoot, lexical)) {
    throw new WorkspaceAccessError(
      'outside-workspace',
      requested,
      `The path ${requested} points outside the workspace ${realRoot}.`,
      { hint: 'Use a path inside the workspace directory.' },
    );
  }

  // Walk down from the root: resolve the longest existing prefix through realpath, so a
  // symlinked directory anywhere along the way is checked, not only the final component.
  const parts = path
    .relative(realRoot, lexical)
    .split(path.sep)
    .filter((part) => part.length > 0);
  let current = realRoot;
  let exists = true;
  for (let index = 0; index < parts.length; index += 1) {
    const next = path.join(current, parts[index] as string);
    let stats: Awaited<ReturnType<typeof lstat>>;
    try {
      stats = await lstat(next);
    } catch (error) {
      if (errorCode(error) !== 'ENOENT' && errorCode(error) !== 'ENOTDIR') throw error;
      // The rest does not exist yet: it will be created under `current`, which is inside.
      current = path.join(current, ...parts.slice(index));
      exists = false;
      break;
    }
    if (stats.isSymbolicLink()) {
      let target: string;
      try {
        target = await realpath(next);
      } catch {
        throw new WorkspaceAccessError(
          'symlink-escape',
          requested,
          `The path ${requested} goes through a symlink whose target does not exist; it is refused.`,
          { hint: 'Remove the dangling symlink or use another path.' },
        );
      }
      if (!isInside(realRoot, target)) {
        throw new WorkspaceAccessError(
          'symlink-escape',
          requested,
          `The path ${requested} goes through a symlink to ${target}, outside the workspace ${realRoot}.`,
          { hint: 'Only files inside the workspace can be used.' },
        );
      }
      current = target;
    } else {
      current = next;
    }
  }
  return { root: realRoot, relative: toPosix(path.relative(realRoot, lexical)) || '.', absolute: current, exists };
}
