// What a person can do about a runner error, as data. The runner's errors speak to programs:
// a code, an exit code and structured data, never a `conclave` command or a flag. A front end
// words the next step in its own terms (the CLI and the session browser share that wording).
import type { ConclaveError } from '@resume/core/spec';

/** How the session's mode starts: from a task, or from a file (a workflow spec, a prompt file). */
export type StartsFrom = 'task' | 'file';

export type NextStep =
  /** The session is completed: a follow-up continues it. */
  | { kind: 'ask-follow-up'; sessionId: string }
  /** The session's workspace is gone: resume it in another directory. */
  | { kind: 'resume-in-another-workspace'; sessionId: string; startsFrom: StartsFrom }
  /** The session kept crashing: resume it anyway (forced), or inspect it and branch from a good checkpoint. */
  | { kind: 'resume-past-recovery-limit'; sessionId: string; startsFrom: StartsFrom }
  /** The resume stopped before an uncertain step (abort): resume again and choose to re-run or skip it. */
  | { kind: 'decide-uncertain-step'; sessionId: string; startsFrom: StartsFrom }
  /** Unfinished work runs when the session resumes. */
  | { kind: 'resume-unfinished-items'; sessionId: string; startsFrom: StartsFrom }
  /**
   * The session was written by a program using the library, not started by the runner: that
   * program continues it (`threadId`: a LangGraph thread's id, else null). Forcing does not help.
   */
  | { kind: 'continue-in-its-program'; sessionId: string; threadId: string | null }
  /** A checkpoint was named that the session does not have: list its checkpoints. */
  | { kind: 'list-checkpoints'; sessionId: string }
  /** A session that is not running is at its last checkpoint already: list its checkpoints. */
  | { kind: 'see-last-checkpoint'; sessionId: string }
  /** A start chunk was given for a session that has no chunks: resume without it, or from a checkpoint. */
  | { kind: 'resume-without-start-chunk'; sessionId: string }
  /** The start chunk is done already (chunk 1): start anew, or go on at the next chunk. */
  | { kind: 'go-on-at-chunk'; sessionId: string; chunk: number }
  /** The start chunk is done already: redo from it as a branch from the checkpoint before it. */
  | { kind: 'redo-from-checkpoint'; sessionId: string; chunk: number; checkpoint: string }
  /** See the map items of the session (`andResume`: an interrupted run goes on by resuming). */
  | { kind: 'list-map-items'; sessionId: string; andResume: boolean }
  /** Map items failed after their retries: list them, and retry them once fixed. */
  | { kind: 'retry-failed-items'; sessionId: string }
  /** The mode runs a file, not a task. */
  | { kind: 'run-a-file' }
  /** The task is empty. */
  | { kind: 'give-a-task' }
  /** The follow-up is empty. */
  | { kind: 'give-a-follow-up' }
  /** The iterative mode needs the project file it works through. */
  | { kind: 'give-a-project-file' }
  /** A file's snapshot cannot be restored: keep the current file instead. */
  | { kind: 'keep-current-file'; path: string }
  /** The data home was set where it cannot be: set it another way. */
  | { kind: 'set-home-elsewhere' }
  /**
   * A worktree run's worktree is not as the session left it: the git command that puts it right,
   * else resume on what it holds (forced) or, when it is gone, in another directory.
   */
  | { kind: 'fix-worktree'; sessionId: string; gitCommand: string; gone: boolean }
  /** The session did not run in a worktree: a worktree run starts with one. */
  | { kind: 'start-worktree-run' }
  /** A worktree run that is not completed: finish it, or merge what it did (forced). */
  | { kind: 'finish-before-merge'; sessionId: string }
  /** Merging the run's branch conflicts: merge by hand, or rebase the branch and merge again. */
  | { kind: 'merge-by-hand'; sessionId: string; repo: string; worktree: string; branch: string; target: string };

/** `error` with its next step as data (`error.nextStep`). */
export function withNextStep<E extends ConclaveError>(
  error: E,
  nextStep: NextStep,
): E & { readonly nextStep: NextStep } {
  return Object.assign(error, { nextStep });
}

/** The next step a runner error carries, or null. */
export function nextStepOf(error: unknown): NextStep | null {
  const nextStep = (error as { nextStep?: unknown } | null | undefined)?.nextStep;
  return typeof nextStep === 'object' && nextStep !== null && 'kind' in nextStep ? (nextStep as NextStep) : null;
}
