// Resolution of file conflicts found at resume: per file keep the current content or
// restore the snapshot. Never destructive by default (keep), and even a restore keeps the
// replaced content as a blob so it can be recovered. Cancelling is the caller's choice.
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { SessionStore } from '@resume/core/spec';
import { createTwoFilesPatch } from 'diff';
import { withNextStep } from '../runner/next-step.js';
import { type FileChange, hashContent, readWorkspaceFile } from './file-snapshots.js';
import { WorkspaceAccessError } from './workspace-access-error.js';
import { resolveWorkspacePath } from './workspace-path.js';

export type FileConflictChoice = 'keep' | 'restore';

export interface ResolveFileConflictsInput {
  changes: readonly FileChange[];
  /** Per workspace-relative path; a path without a choice is kept. */
  choices: Readonly<Record<string, FileConflictChoice>>;
  store: Pick<SessionStore, 'getBlob' | 'putBlob'>;
  workspaceDir: string;
}

export interface FileResolution {
  path: string;
  /** `restored` wrote the snapshot back; `removed` deleted a file the snapshot says was absent. */
  action: 'kept' | 'restored' | 'removed' | 'unchanged';
  /** Blob holding the content that a restore replaced, so nothing is lost. */
  replacedBlob: string | null;
  /** sha256 and size of that replaced content (null with replacedBlob). */
  replacedHash?: string | null;
  replacedSize?: number | null;
}

/** Writes a file atomically: temp file in the same directory, fsync, rename, directory fsync. */
export async function writeFileAtomically(absolutePath: string, content: Uint8Array | string): Promise<void> {
  const directory = path.dirname(absolutePath);
  await mkdir(directory, { recursive: true });
  const temporary = path.join(directory, `.${path.basename(absolutePath)}.${randomBytes(6).toString('hex')}.tmp`);
  // A replaced file keeps its permissions (an executable script stays executable).
  const existingMode = await stat(absolutePath).then(
    (stats) => stats.mode & 0o7777,
    () => null,
  );
  const handle = await open(temporary, 'wx', existingMode ?? 0o644);
  try {
    if (existingMode !== null) await handle.chmod(existingMode);
    await handle.writeFile(content);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temporary, absolutePath);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  const directoryHandle = await open(directory, 'r');
  try {
    await directoryHandle.sync();
  } catch {
    // Some platforms cannot fsync a directory; the rename is still atomic there.
  } finally {
    await directoryHandle.close();
  }
}

/**
 * Applies the choices. Every restore is checked first (the blob exists, the file still has
 * the content the user saw), so a problem with one file leaves every file untouched.
 */
export async function resolveFileConflicts(input: ResolveFileConflictsInput): Promise<FileResolution[]> {
  interface PendingRestore {
    change: FileChange;
    absolute: string;
    content: Uint8Array | null;
    current: Uint8Array | null;
  }
  const restores: PendingRestore[] = [];
  const resolutions = new Map<string, FileResolution>();

  for (const change of input.changes) {
    const choice = input.choices[change.path] ?? 'keep';
    if (change.status === 'unchanged') {
      resolutions.set(change.path, { path: change.path, action: 'unchanged', replacedBlob: null });
      continue;
    }
    if (choice === 'keep') {
      resolutions.set(change.path, { path: change.path, action: 'kept', replacedBlob: null });
      continue;
    }
    const resolved = await resolveWorkspacePath(input.workspaceDir, change.path);
    const { content: current } = await readWorkspaceFile(input.workspaceDir, change.path);
    const currentHash = current === null ? null : hashContent(current);
    if (currentHash !== change.currentHash) {
      throw new WorkspaceAccessError(
        'file-changed',
        change.path,
        `${change.path} changed again after it was compared; nothing was restored.`,
        { hint: 'Run the resume again to see the current state of the files.' },
      );
    }
    let content: Uint8Array | null = null;
    if (change.snapshot.hash !== null) {
      const blob = change.snapshot.blob ?? change.snapshot.hash;
      content = await input.store.getBlob(blob);
      if (content === null || hashContent(content) !== change.snapshot.hash) {
        throw withNextStep(
          new WorkspaceAccessError(
            'snapshot-missing',
            change.path,
            `The snapshot of ${change.path} (blob ${blob}) is missing from the store or damaged; nothing was restored.`,
          ),
          { kind: 'keep-current-file', path: change.path },
        );
      }
    }
    restores.push({ change, absolute: resolved.absolute, content, current });
  }

  for (const restore of restores) {
    const replacedBlob = restore.current === null ? null : await input.store.putBlob(restore.current);
    const replaced = {
      replacedBlob,
      replacedHash: restore.current === null ? null : hashContent(restore.current),
      replacedSize: restore.current === null ? null : restore.current.byteLength,
    };
    if (restore.content === null) {
      await unlink(restore.absolute).catch((error: unknown) => {
        if (!(typeof error === 'object' && error !== null && 'code' in error && error.code === 'ENOENT')) throw error;
      });
      resolutions.set(restore.change.path, { path: restore.change.path, action: 'removed', ...replaced });
    } else {
      await writeFileAtomically(restore.absolute, restore.content);
      resolutions.set(restore.change.path, { path: restore.change.path, action: 'restored', ...replaced });
    }
  }
  return input.changes.map((change) => resolutions.get(change.path) as FileResolution);
}

/** A unified diff from `before` to `after` (empty hunks when equal). */
export function unifiedDiff(filePath: string, before: string, after: string): string {
  return createTwoFilesPatch(`a/${filePath}`, `b/${filePath}`, before, after, 'snapshot', 'workspace');
}

/** The diff between a change's snapshot and the file now, for the conflict screen's `d`. */
export async function diffFileChange(input: {
  change: FileChange;
  store: Pick<SessionStore, 'getBlob'>;
  workspaceDir: string;
}): Promise<string> {
  const decoder = new TextDecoder();
  const { change } = input;
  let before = '';
  if (change.snapshot.hash !== null) {
    const blob = await input.store.getBlob(change.snapshot.blob ?? change.snapshot.hash);
    if (blob === null) {
      throw new WorkspaceAccessError(
        'snapshot-missing',
        change.path,
        `The snapshot of ${change.path} is missing from the store; no diff can be shown.`,
      );
    }
    before = decoder.decode(blob);
  }
  const { content } = await readWorkspaceFile(input.workspaceDir, change.path);
  return unifiedDiff(change.path, before, content === null ? '' : decoder.decode(content));
}
