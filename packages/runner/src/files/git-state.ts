// The git branch and HEAD of a workspace, read from `.git` directly (no `git` process, so
// it works where git is not installed and costs a few file reads), and the comparison with
// what a session recorded at start. Also the recorded workspace directory versus the current.
// The reads are made directly (decision 0018): a few small files, each cheaper read than a
// round trip through the thread pool, on the way to a resume's first step.
import { readFileSync, type Stats, statSync } from 'node:fs';
import path from 'node:path';
import type { GitState } from '@resume/core/spec';

function readText(filePath: string): string | null {
  try {
    return readFileSync(filePath, 'utf8');
  } catch {
    return null;
  }
}

function statusOf(filePath: string): Stats | null {
  try {
    return statSync(filePath, { throwIfNoEntry: false }) ?? null;
  } catch {
    return null;
  }
}

/** Finds the git directory for `dir` (walking up), following a `.git` file (worktrees, submodules). */
function findGitDirectory(dir: string): { gitDir: string; commonDir: string } | null {
  let current = path.resolve(dir);
  for (;;) {
    const candidate = path.join(current, '.git');
    const stats = statusOf(candidate);
    if (stats?.isDirectory()) return { gitDir: candidate, commonDir: candidate };
    if (stats?.isFile()) {
      const text = readText(candidate);
      const match = text === null ? null : /^gitdir:\s*(.+)\s*$/m.exec(text);
      if (match?.[1]) {
        const gitDir = path.resolve(current, match[1].trim());
        const common = readText(path.join(gitDir, 'commondir'));
        return { gitDir, commonDir: common === null ? gitDir : path.resolve(gitDir, common.trim()) };
      }
    }
    const parent = path.dirname(current);
    if (parent === current) return null;
    current = parent;
  }
}

function resolveRef(commonDir: string, gitDir: string, ref: string): string | null {
  for (const base of [gitDir, commonDir]) {
    const loose = readText(path.join(base, ref));
    if (loose !== null && /^[0-9a-f]{40,64}$/.test(loose.trim())) return loose.trim();
  }
  const packed = readText(path.join(commonDir, 'packed-refs'));
  if (packed !== null) {
    for (const line of packed.split('\n')) {
      const [hash, name] = line.trim().split(' ');
      if (name === ref && hash !== undefined && /^[0-9a-f]{40,64}$/.test(hash)) return hash;
    }
  }
  return null;
}

/**
 * Branch and HEAD of the repository containing `dir`, or null when it is not in a git
 * repository. A detached HEAD has branch null; a new repository without commits has head null.
 */
export async function readGitState(dir: string): Promise<GitState | null> {
  const found = findGitDirectory(dir);
  if (found === null) return null;
  const headText = readText(path.join(found.gitDir, 'HEAD'));
  if (headText === null) return null;
  const head = headText.trim();
  const symbolic = /^ref:\s*(.+)$/.exec(head);
  if (symbolic?.[1]) {
    const ref = symbolic[1].trim();
    const branch = ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : ref;
    return { branch, head: resolveRef(found.commonDir, found.gitDir, ref) };
  }
  return { branch: null, head: /^[0-9a-f]{40,64}$/.test(head) ? head : null };
}

export interface GitComparison {
  changed: boolean;
  branchChanged: boolean;
  headChanged: boolean;
  recorded: GitState | null;
  current: GitState | null;
  /** One line for the plan, e.g. "git branch changed: main → feature (HEAD 1a2b3c4 → 5d6e7f8)". */
  message: string;
}

function shortHead(head: string | null): string {
  return head === null ? 'none' : head.slice(0, 7);
}

/** Compares the git state recorded at start with the current one. */
export function compareGitState(recorded: GitState | null, current: GitState | null): GitComparison {
  // With a repository on one side only, there is no branch or HEAD to compare: all of it changed.
  const whole = (changed: boolean, message: string): GitComparison => ({
    changed,
    branchChanged: changed,
    headChanged: changed,
    recorded,
    current,
    message,
  });
  if (recorded === null && current === null) return whole(false, 'not a git repository');
  if (recorded === null)
    return whole(true, 'the workspace is a git repository now but was not when the session started');
  if (current === null) {
    return whole(true, `the workspace is no longer a git repository (was on ${recorded.branch ?? 'a detached HEAD'})`);
  }
  const branchChanged = recorded.branch !== current.branch;
  const headChanged = recorded.head !== current.head;
  const parts: string[] = [];
  if (branchChanged) parts.push(`branch ${recorded.branch ?? '(detached)'} → ${current.branch ?? '(detached)'}`);
  if (headChanged) parts.push(`HEAD ${shortHead(recorded.head)} → ${shortHead(current.head)}`);
  const message =
    parts.length === 0
      ? `git unchanged (${current.branch ?? 'detached'} at ${shortHead(current.head)})`
      : `git changed since the session started: ${parts.join(', ')}`;
  return { changed: branchChanged || headChanged, branchChanged, headChanged, recorded, current, message };
}

export interface WorkspaceComparison {
  /** Whether the resume runs in the directory the session recorded. */
  same: boolean;
  recorded: string | null;
  /** Where the command was given (the current directory). */
  current: string;
  /** Where the resume runs: shell steps, tools and file comparisons use this directory. */
  runsIn: string;
  /** The recorded directory no longer exists (a resume there is refused; `--workspace` moves it). */
  missing: boolean;
  message: string;
}

/**
 * Where a resume runs and how that relates to the recorded workspace: the recorded one unless
 * `chosen` (`--workspace`) names another, whatever the current directory is.
 */
export function compareWorkspaceDirectory(
  recorded: string | null,
  current: string,
  options: { chosen?: string | null; exists?: (directory: string) => boolean } = {},
): WorkspaceComparison {
  const resolvedCurrent = path.resolve(current);
  const chosen = options.chosen ? path.resolve(options.chosen) : null;
  if (recorded === null) {
    const runsIn = chosen ?? resolvedCurrent;
    return {
      same: true,
      recorded,
      current: resolvedCurrent,
      runsIn,
      missing: false,
      message: `the session recorded no workspace directory; it runs in ${runsIn}`,
    };
  }
  const resolvedRecorded = path.resolve(recorded);
  const runsIn = chosen ?? resolvedRecorded;
  const missing = chosen === null && options.exists !== undefined && !options.exists(resolvedRecorded);
  const same = runsIn === resolvedRecorded;
  let message: string;
  if (missing)
    message = `the session's workspace ${resolvedRecorded} no longer exists (choose one with --workspace <dir>)`;
  else if (!same) message = `the session ran in ${resolvedRecorded}; resuming in ${runsIn} (--workspace)`;
  else if (resolvedCurrent !== resolvedRecorded)
    message = `the session runs in its workspace ${resolvedRecorded} (you are in ${resolvedCurrent})`;
  else message = `workspace ${resolvedRecorded}`;
  return { same, recorded, current: resolvedCurrent, runsIn, missing, message };
}
