// A map step's items in git worktrees of their own (`map.worktree: true`, Prodigy's agent per
// item): each item works on its own branch, made from the workspace's HEAD when the item first
// runs (a retried item finds its worktree again), and once its steps passed, what it left is
// committed and its branch merged into the workspace, one item at a time; a conflict sends the
// item to the dead-letter list with the files named. The worktree and the branch are removed
// after the merge.
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from '@resume/core/spec';
import { commitLeftovers, git, gitIdentity, gitOrRefuse, mergeConflicts, worktreeExists } from '../files/worktree.js';
import { WorktreeRefusedError } from '../files/worktree-refused-error.js';

export interface ItemWorktree {
  /** The worktree's directory and the branch checked out in it. */
  path: string;
  branch: string;
  /** Where the item works inside it (the workspace's place in the repository). */
  workspace: string;
}

/** Runs git operations on one repository one after the other: items run at once. */
export function oneGitAtATime(): <T>(operation: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return (operation) => {
    const next = tail.then(operation, operation);
    tail = next.catch(() => undefined);
    return next;
  };
}

const shortHash = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 8);

/** The item's worktree, made on its first run (on `conclave/<session>-<map>-<item hash>`) or found again. */
export async function openItemWorktree(
  workspaceDir: string,
  names: { sessionId: string; mapId: string; itemId: string },
  serial: ReturnType<typeof oneGitAtATime>,
): Promise<ItemWorktree> {
  return serial(async () => {
    const top = await git(['rev-parse', '--show-toplevel'], workspaceDir);
    if (top.code !== 0) {
      throw new UsageError(
        `map.worktree runs each item in a git worktree, and ${workspaceDir} is not in a git repository.`,
        {
          hint: 'Run the workflow inside a git repository (git init && git add -A && git commit -m start), or remove map.worktree.',
        },
      );
    }
    const repo = top.stdout.trim();
    const name = `${names.sessionId}-${names.mapId}-${shortHash(names.itemId)}`;
    const commonDir = path.resolve(
      repo,
      await gitOrRefuse(['rev-parse', '--git-common-dir'], repo, 'Finding the git directory'),
    );
    const worktree = path.join(commonDir, 'conclave-worktrees', name);
    const branch = `conclave/${name}`;
    if (!worktreeExists(worktree)) {
      const known = await git(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], repo);
      await git(['worktree', 'prune'], repo);
      const add = known.code === 0 ? [worktree, branch] : ['-b', branch, worktree, 'HEAD'];
      await gitOrRefuse(['worktree', 'add', '--quiet', ...add], repo, `Creating the worktree of item ${names.itemId}`);
    }
    const relative = path.relative(realpathSync(repo), realpathSync(workspaceDir));
    return { path: worktree, branch, workspace: path.join(worktree, relative) };
  });
}

/** Commits what the item left, merges its branch into the workspace's, removes the worktree; returns the new HEAD. */
export async function mergeItemWorktree(
  workspaceDir: string,
  worktree: ItemWorktree,
  message: string,
  serial: ReturnType<typeof oneGitAtATime>,
): Promise<string> {
  await commitLeftovers(worktree.path, message);
  return serial(async () => {
    const files = await mergeConflicts(workspaceDir, worktree.branch);
    if (files.length > 0) {
      throw new WorktreeRefusedError(
        `Its branch ${worktree.branch} conflicts with the workspace's in ${files.length} file${files.length === 1 ? '' : 's'}: ${files.join(', ')}; nothing was merged.`,
        `Its work is kept in ${worktree.path}: merge it by hand (git merge ${worktree.branch}), or fix the conflict and retry the item.`,
      );
    }
    await gitOrRefuse(
      [...(await gitIdentity(workspaceDir)), 'merge', '--quiet', '-m', message, worktree.branch],
      workspaceDir,
      `Merging ${worktree.branch}`,
    );
    await gitOrRefuse(['worktree', 'remove', '--force', worktree.path], workspaceDir, 'Removing the item worktree');
    await gitOrRefuse(['branch', '-d', worktree.branch], workspaceDir, 'Deleting the merged item branch');
    return gitOrRefuse(['rev-parse', 'HEAD'], workspaceDir, 'Reading the merged HEAD');
  });
}
