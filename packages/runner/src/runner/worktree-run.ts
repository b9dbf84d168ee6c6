// A worktree run's ends: the resume's check of its worktree, the note at its end on how to
// merge it, and `conclave run merge <id>` (fast-forward or a merge commit, refused on conflicts
// with the files named; the worktree and its branch removed after, unless kept).
import type { Engine, SessionState } from '@resume/core';
import { UsageError } from '@resume/core/spec';
import { readGitState } from '../files/git-state.js';
import {
  checkWorktreeForResume,
  commitLeftovers,
  git,
  gitIdentity,
  gitOrRefuse,
  mergeConflicts,
  recordedWorktree,
  type WorktreeRecord,
  worktreeExists,
} from '../files/worktree.js';
import { WorktreeRefusedError } from '../files/worktree-refused-error.js';
import { withNextStep } from './next-step.js';
import type { RunnerScope } from './runner-scope.js';
import type { RunResult } from './runner-types.js';

/** Tells the user of a finished worktree run where its work is and how to merge it. */
export function announceMerge(scope: RunnerScope, sessionId: string, record: WorktreeRecord, result: RunResult): void {
  if (result.status !== 'completed') return;
  scope.emit({
    type: 'notice',
    text: `The work is on branch ${record.branch} in ${record.path}. Merge it into the repository with: conclave run merge ${sessionId}`,
  });
}

/**
 * Before a resume runs anything: the session's worktree (when it has one and runs there) must be
 * as the session left it. Returns the worktree, or null for a run without one.
 */
export async function checkResumeWorktree(
  scope: RunnerScope,
  state: SessionState,
  options: { force: boolean; otherWorkspace: boolean },
): Promise<WorktreeRecord | null> {
  const record = recordedWorktree(state);
  if (record === null || options.otherWorkspace) return null;
  const note = await checkWorktreeForResume(state, record, options.force);
  if (note !== null) scope.emit({ type: 'notice', text: note });
  return record;
}

export interface WorktreeMerge {
  sessionId: string;
  branch: string;
  /** The repository's branch the work went into (null: a detached HEAD). */
  into: string | null;
  outcome: 'fast-forward' | 'merge-commit' | 'up-to-date';
  /** The repository's HEAD after the merge. */
  head: string;
  /** Files the run left uncommitted in the worktree, committed on its branch before the merge. */
  committedLeftovers: number;
  /** The worktree and its branch were removed after the merge. */
  removed: boolean;
}

/** Merges a worktree run's branch into the repository it was made from (`conclave run merge <id>`). */
export async function mergeWorktreeRun(
  engine: Engine,
  sessionId: string,
  options: { force?: boolean; keep?: boolean } = {},
): Promise<WorktreeMerge> {
  const id = await engine.resolveSessionId(sessionId);
  const state = await engine.readSession(id);
  const record = recordedWorktree(state);
  if (record === null) {
    throw withNextStep(new UsageError(`Session ${id} did not run in a git worktree; there is nothing to merge.`), {
      kind: 'start-worktree-run',
    });
  }
  if (state.status !== 'completed' && !options.force) {
    throw withNextStep(
      new UsageError(`Session ${id} is ${state.status}: its work is not finished, so it is not merged.`),
      { kind: 'finish-before-merge', sessionId: id },
    );
  }
  const { repo, branch } = record;
  const exists = await git(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], repo);
  if (exists.code !== 0) {
    throw new WorktreeRefusedError(
      `Session ${id}'s branch ${branch} no longer exists in ${repo}; there is nothing to merge.`,
      'It was merged or deleted already: git branch lists the conclave/ branches that are left.',
    );
  }
  // What the run wrote and did not commit goes on its branch first, so the merge carries it.
  const committedLeftovers = worktreeExists(record.path)
    ? await commitLeftovers(record.path, `Conclave session ${id}: ${state.title}`)
    : 0;
  const target = await readGitState(repo);
  if (await isAncestor(repo, branch, 'HEAD')) {
    return finish(record, id, target?.branch ?? null, 'up-to-date', committedLeftovers, options.keep ?? false);
  }
  // Conflicts are found without touching the repository's files: nothing is left half-merged.
  const files = await mergeConflicts(repo, branch);
  if (files.length > 0) {
    const into = target?.branch ?? 'HEAD';
    throw withNextStep(
      new WorktreeRefusedError(
        `Branch ${branch} conflicts with ${into} in ${repo}, in ${files.length} file${files.length === 1 ? '' : 's'}: ${files.join(', ')}. Nothing was merged.`,
        `Merge it by hand and resolve them: cd ${repo} && git merge ${branch}`,
      ),
      { kind: 'merge-by-hand', sessionId: id, repo, worktree: record.path, branch, target: into },
    );
  }
  const fastForward = await isAncestor(repo, 'HEAD', branch);
  if (fastForward) await gitOrRefuse(['merge', '--quiet', '--ff-only', branch], repo, `Fast-forwarding to ${branch}`);
  else {
    const message = `Merge ${branch}: ${state.title}`;
    await gitOrRefuse(
      [...(await gitIdentity(repo)), 'merge', '--quiet', '--no-ff', '-m', message, branch],
      repo,
      `Merging ${branch}`,
    );
  }
  return finish(
    record,
    id,
    target?.branch ?? null,
    fastForward ? 'fast-forward' : 'merge-commit',
    committedLeftovers,
    options.keep ?? false,
  );
}

async function isAncestor(repo: string, ancestor: string, of: string): Promise<boolean> {
  return (await git(['merge-base', '--is-ancestor', ancestor, of], repo)).code === 0;
}

async function finish(
  record: WorktreeRecord,
  sessionId: string,
  into: string | null,
  outcome: WorktreeMerge['outcome'],
  committedLeftovers: number,
  keep: boolean,
): Promise<WorktreeMerge> {
  const head = await gitOrRefuse(['rev-parse', 'HEAD'], record.repo, 'Reading the merged HEAD');
  if (!keep) {
    if (worktreeExists(record.path)) {
      await gitOrRefuse(['worktree', 'remove', record.path], record.repo, 'Removing the worktree');
    }
    await gitOrRefuse(['branch', '-d', record.branch], record.repo, 'Deleting the merged branch');
  }
  return { sessionId, branch: record.branch, into, outcome, head, committedLeftovers, removed: !keep };
}
