// Workflow runs in a git worktree of their own (`worktree: true`, `conclave run --worktree`):
// the worktree is made on a new branch `conclave/<session>` before the session exists, recorded
// in its header, checked before a resume (gone, or moved to a commit the session did not make),
// and merged back with `conclave run merge <id>`. Git runs as a process (`git` must be installed
// for these runs only; reading HEAD elsewhere needs no git, see git-state.ts).
import { execFile } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import type { SessionState } from '@resume/core';
import { lazySchema } from '@resume/core/lazy-schema';
import { ConclaveError, type JsonValue, UsageError } from '@resume/core/spec';
import { z } from 'zod';
import { withNextStep } from '../runner/next-step.js';
import { readGitState } from './git-state.js';
import { WorktreeRefusedError } from './worktree-refused-error.js';

/** Where a worktree run's worktree is recorded in the session header's options. */
export const WORKTREE_KEY = 'worktree';

export const worktreeRecordSchema = lazySchema(() =>
  z.object({
    /** The worktree's directory. */
    path: z.string(),
    branch: z.string(),
    /** The repository's main working directory, where `run merge` merges the branch. */
    repo: z.string(),
    /** The commit the worktree started from. */
    base: z.string(),
    /** Where the run works inside the worktree (the start directory's place in the repository). */
    workspace: z.string(),
  }),
);
export type WorktreeRecord = z.infer<typeof worktreeRecordSchema>;

/** The worktree a session runs in, or null (a run without a worktree, or a record this version cannot read). */
export function recordedWorktree(state: SessionState): WorktreeRecord | null {
  const parsed = worktreeRecordSchema.safeParse(state.header.options?.[WORKTREE_KEY]);
  return parsed.success ? parsed.data : null;
}

interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs git; resolves whatever its exit code (a missing git is a typed error). */
export function git(args: string[], cwd: string): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      if (code === null) {
        reject(
          new UsageError('A worktree run needs git, and it could not be started.', {
            hint: 'Install git (and check it is on PATH), or run the workflow without a worktree.',
            cause: error,
          }),
        );
        return;
      }
      resolve({ code, stdout, stderr });
    });
  });
}

async function gitOrThrow(args: string[], cwd: string, what: string): Promise<string> {
  const result = await git(args, cwd);
  if (result.code !== 0) {
    throw new ConclaveError('git-failed', `${what} failed: git ${args.join(' ')}: ${result.stderr.trim()}`, {
      hint: 'Fix what git reports and run the same command again.',
    });
  }
  return result.stdout.trim();
}

/** Git's identity for the commits Conclave makes, when the repository has none configured. */
export async function gitIdentity(cwd: string): Promise<string[]> {
  const email = await git(['config', 'user.email'], cwd);
  return email.stdout.trim() === '' ? ['-c', 'user.name=Conclave', '-c', 'user.email=conclave@localhost'] : [];
}

/** Runs git, or refuses (65) with what git said: `what` names the operation. */
export async function gitOrRefuse(args: string[], cwd: string, what: string): Promise<string> {
  const result = await git(args, cwd);
  if (result.code !== 0) {
    throw new WorktreeRefusedError(
      `${what} failed: ${(result.stderr || result.stdout).trim()}`,
      'Fix what git reports in the repository, then run the same command again.',
    );
  }
  return result.stdout.trim();
}

/** Commits everything a run left uncommitted in a worktree on its branch; returns how many files. */
export async function commitLeftovers(worktree: string, message: string): Promise<number> {
  const status = await gitOrRefuse(['status', '--porcelain'], worktree, 'Reading the worktree');
  const count = status.split('\n').filter(Boolean).length;
  if (count === 0) return 0;
  await gitOrRefuse(['add', '-A'], worktree, 'Adding the files the run left');
  await gitOrRefuse(
    [...(await gitIdentity(worktree)), 'commit', '--quiet', '-m', message],
    worktree,
    'Committing the files the run left',
  );
  return count;
}

/** The files merging `branch` into the repository's HEAD would conflict in (found without touching them). */
export async function mergeConflicts(repo: string, branch: string): Promise<string[]> {
  const preview = await git(['merge-tree', '--write-tree', '--name-only', '--no-messages', 'HEAD', branch], repo);
  return preview.code === 1 ? preview.stdout.split('\n').slice(1).filter(Boolean) : [];
}

/** Whether a worktree directory is there (its `.git` file; reading upwards would find the repository). */
export const worktreeExists = (directory: string) => existsSync(path.join(directory, '.git'));

export const worktreeBranch = (sessionId: string) => `conclave/${sessionId}`;

/**
 * Makes the worktree of a new run: on branch `conclave/<session>` from the repository's HEAD,
 * under the repository's git directory (`.git/conclave-worktrees/<session>`), so the main
 * working tree never sees it as untracked files.
 */
export async function createWorktree(
  workspaceDir: string,
  sessionId: string,
): Promise<{ record: WorktreeRecord; uncommitted: boolean }> {
  const top = await git(['rev-parse', '--show-toplevel'], workspaceDir);
  if (top.code !== 0) {
    throw new UsageError(`A worktree run needs a git repository, and ${workspaceDir} is not in one.`, {
      hint: 'Run it inside a git repository (git init && git add -A && git commit -m start), or without a worktree.',
    });
  }
  const repo = top.stdout.trim();
  const base = await git(['rev-parse', '--verify', '--quiet', 'HEAD'], repo);
  if (base.code !== 0) {
    throw new UsageError(`A worktree run starts from a commit, and the repository ${repo} has none yet.`, {
      hint: 'Commit something first (git add -A && git commit -m start), then run again.',
    });
  }
  const commonDir = path.resolve(
    repo,
    await gitOrThrow(['rev-parse', '--git-common-dir'], repo, 'Finding the git directory'),
  );
  const worktreePath = path.join(commonDir, 'conclave-worktrees', sessionId);
  const branch = worktreeBranch(sessionId);
  await gitOrThrow(['worktree', 'add', '--quiet', '-b', branch, worktreePath, 'HEAD'], repo, 'Creating the worktree');
  const relative = path.relative(realpathSync(repo), realpathSync(workspaceDir));
  const status = await git(['status', '--porcelain', '--untracked-files=no'], repo);
  return {
    record: {
      path: worktreePath,
      branch,
      repo,
      base: base.stdout.trim(),
      workspace: path.join(worktreePath, relative),
    },
    uncommitted: status.stdout.trim() !== '',
  };
}

/** Removes a worktree made for a session that could not be created after all. */
export async function discardWorktree(record: WorktreeRecord): Promise<void> {
  await git(['worktree', 'remove', '--force', record.path], record.repo);
  await git(['branch', '-D', record.branch], record.repo);
}

export function worktreeAsJson(record: WorktreeRecord): JsonValue {
  return { ...record };
}

/**
 * Whether a resume may run in the session's worktree: it exists, is on the session's branch, and
 * its HEAD is a commit the session made (the start, or a commit made while the session ran; one
 * made after it stopped only when a shell step was interrupted mid-run, which may have made it).
 * Returns a notice for commits accepted that way; throws WorktreeRefusedError (65) otherwise.
 */
export async function checkWorktreeForResume(
  state: SessionState,
  record: WorktreeRecord,
  /** `--force`: run on whatever the worktree holds, as long as it exists. */
  force = false,
): Promise<string | null> {
  const id = state.header.id;
  // Looked for in the worktree itself: reading upwards would find the repository it lives in.
  const current = worktreeExists(record.path) ? await readGitState(record.path) : null;
  const reattach = `git -C ${record.repo} worktree prune && git -C ${record.repo} worktree add ${record.path} ${record.branch}`;
  const refuse = (message: string, gitCommand: string, gone = false): never => {
    throw withNextStep(new WorktreeRefusedError(message, gitCommand), {
      kind: 'fix-worktree',
      sessionId: id,
      gitCommand,
      gone,
    });
  };
  if (current === null) {
    refuse(
      `Session ${id} runs in the git worktree ${record.path} (branch ${record.branch}), which no longer exists; nothing was run.`,
      reattach,
      true,
    );
  }
  if (force) return null;
  const backTo = `git -C ${record.path} checkout ${record.branch}`;
  if (current?.branch !== record.branch) {
    refuse(
      `Session ${id}'s worktree ${record.path} is on ${current?.branch ?? `a detached HEAD (${current?.head?.slice(0, 7) ?? 'none'})`}, not on its branch ${record.branch}; nothing was run.`,
      backTo,
    );
  }
  const head = current?.head ?? '';
  if (head === record.base) return null;
  const descends = await git(['merge-base', '--is-ancestor', record.base, head], record.path);
  const log = await git(['log', '--format=%H %ct %s', `${record.base}..${head}`], record.path);
  const commits = log.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [hash = '', time = '0', ...subject] = line.split(' ');
      return { hash, time: Number(time) * 1000, subject: subject.join(' ') };
    });
  // Committer times have a resolution of a second.
  const lastWritten = Date.parse(state.updatedAt) + 1000;
  const later = commits.filter((commit) => commit.time > lastWritten);
  const resetTo = `git -C ${record.path} reset --hard ${record.base.slice(0, 12)}`;
  if (descends.code !== 0) {
    refuse(
      `Session ${id}'s worktree ${record.path} is at ${head.slice(0, 7)}, a commit this session did not make (its branch no longer contains the start ${record.base.slice(0, 7)}); nothing was run.`,
      resetTo,
    );
  }
  if (later.length === 0) return null;
  const shown = later
    .slice(0, 5)
    .map((commit) => `${commit.hash.slice(0, 7)} ${commit.subject}`)
    .join('; ');
  // Only a command can have committed: a model's turn that was interrupted made nothing.
  const interrupted = state.steps.some((step) => step.status === 'started' && step.key.endsWith('/shell'));
  if (interrupted) {
    return `The worktree has ${later.length} commit${later.length === 1 ? '' : 's'} made after the session stopped (${shown}), by the step that was interrupted or by hand; the resume goes on from them.`;
  }
  const keep = commits.find((commit) => commit.time <= lastWritten)?.hash ?? record.base;
  return refuse(
    `Session ${id}'s worktree ${record.path} moved to ${head.slice(0, 7)}: ${later.length} commit${later.length === 1 ? '' : 's'} this session did not make (${shown}); nothing was run.`,
    `git -C ${record.path} reset --hard ${keep.slice(0, 12)}`,
  );
}
