// What a person should do next after an error, in Conclave's own commands and flags. The
// libraries' errors carry a stable code and data for programs; the front ends (the
// `conclave` CLI and the session browser) word the next step from them, here, once. No
// Ink or React: the CLI imports this on its error path without loading any screen.
import {
  ConclaveError,
  EncryptionKeyUnavailableError,
  IncompatibleSessionError,
  JournalCorruptedError,
  RecoveryLimitError,
  ReplayMismatchError,
  SessionDeletedError,
  SessionNameTakenError,
  SessionNotFoundError,
  type SessionSummary,
  StepAbortedError,
  StoreQuotaError,
  UncertainStepError,
} from '@resume/core/spec';
import type { NextStep, StartsFrom } from '@resume/runner';

const LIST_SESSIONS = 'conclave sessions list';

/** How a LangGraph thread goes on: in the app that runs its graph, not from the command line. */
export function continueThreadAdvice(threadId: string): string {
  return `Continue it from your app: run the graph again with thread_id ${JSON.stringify(threadId)} and the same checkpointer store.`;
}

/** How the app lists a LangGraph thread's checkpoints: its graph's state history. */
export function graphCheckpointsAdvice(threadId: string): string {
  return `in your app: graph.getStateHistory({ configurable: { thread_id: ${JSON.stringify(threadId)} } })`;
}

/**
 * The next step a runner error carries, worded; else the hint the thrower attached; else one
 * worded from the error's code and data (undefined when there is none).
 */
export function hintFor(error: ConclaveError): string | undefined {
  const next = (error as { nextStep?: NextStep }).nextStep;
  return (next ? nextStepHint(next) : undefined) ?? error.hint ?? wordedHint(error);
}

const resumeCommand = (sessionId: string, startsFrom: StartsFrom): string =>
  startsFrom === 'file' ? `conclave run --resume ${sessionId}` : `conclave --resume ${sessionId}`;

/** A runner's next step in Conclave's commands and flags. */
function nextStepHint(next: NextStep): string {
  switch (next.kind) {
    case 'ask-follow-up':
      return `Ask a follow-up instead: conclave --resume ${next.sessionId} "your question"`;
    case 'resume-in-another-workspace':
      return `Resume it in another directory: ${resumeCommand(next.sessionId, next.startsFrom)} --workspace <dir>`;
    case 'resume-past-recovery-limit':
      return [
        `Resume it anyway with: ${resumeCommand(next.sessionId, next.startsFrom)} --force (the limit is resume.maxRecoveries in the config),`,
        `or inspect it with: conclave sessions show ${next.sessionId} --transcript and branch from a good checkpoint (conclave checkpoints list ${next.sessionId}).`,
      ].join('\n');
    case 'resume-unfinished-items':
      return `Unfinished items run when the session resumes: ${resumeCommand(next.sessionId, next.startsFrom)}`;
    case 'continue-in-its-program':
      return [
        next.threadId === null
          ? 'The program that wrote it continues it; conclave run cannot, with --force or without.'
          : continueThreadAdvice(next.threadId),
        `See what it holds: conclave sessions show ${next.sessionId}`,
      ].join('\n');
    case 'list-checkpoints':
      return `List them: conclave checkpoints list ${next.sessionId}`;
    case 'see-last-checkpoint':
      return `A session that is not running is already at its last checkpoint: conclave checkpoints list ${next.sessionId}`;
    case 'resume-without-start-chunk':
      return `Resume it without --start-chunk, or go back to a checkpoint: conclave --resume ${next.sessionId} --from-checkpoint <seq|label> (see: conclave checkpoints list ${next.sessionId}).`;
    case 'go-on-at-chunk':
      return `Start a new session, or resume without --start-chunk to go on at chunk ${next.chunk}.`;
    case 'redo-from-checkpoint':
      return `Redo from chunk ${next.chunk} as a branch: conclave --resume ${next.sessionId} --from-checkpoint "${next.checkpoint}"`;
    case 'list-map-items':
      return next.andResume
        ? `See its items with: conclave run dlq ${next.sessionId} --all. An interrupted run goes on with: conclave run --resume ${next.sessionId}`
        : `See its items and their ids with: conclave run dlq ${next.sessionId} --all`;
    case 'decide-uncertain-step':
      return `Resume again and choose rerun or skip: ${resumeCommand(next.sessionId, next.startsFrom)} --on-uncertain rerun|skip`;
    case 'retry-failed-items':
      return `List them: conclave run dlq ${next.sessionId}. Retry them: conclave run retry ${next.sessionId} --items failed`;
    case 'run-a-file':
      return 'conclave run <file>';
    case 'give-a-task':
      return 'Say what the session should work on: conclave "Evaluate my idea"';
    case 'give-a-follow-up':
      return 'conclave --continue "your follow-up"';
    case 'give-a-project-file':
      return 'Pass --project <file>.';
    case 'keep-current-file':
      return 'Keep the current file instead (--on-conflict keep).';
    case 'set-home-elsewhere':
      return 'Set it with --home, $CONCLAVE_HOME or in a workspace .conclave.yaml.';
    case 'fix-worktree':
      return next.gone
        ? `Make it again from its branch: ${next.gitCommand}   (or run the rest elsewhere: conclave run --resume ${next.sessionId} --workspace <dir>)`
        : `Put it back as the session left it: ${next.gitCommand}   (or go on from what it holds: conclave run --resume ${next.sessionId} --force)`;
    case 'start-worktree-run':
      return 'A worktree run starts with conclave run <spec.yaml> --worktree, or worktree: true in the spec.';
    case 'finish-before-merge':
      return `Finish it first (conclave run --resume ${next.sessionId}), or merge what it did so far: conclave run merge ${next.sessionId} --force`;
    case 'merge-by-hand':
      return `Merge it by hand and resolve them (cd ${next.repo} && git merge ${next.branch}), or rebase the branch in its worktree (cd ${next.worktree} && git rebase ${next.target}) and run conclave run merge ${next.sessionId} again.`;
  }
}

function wordedHint(error: ConclaveError): string | undefined {
  if (SessionNotFoundError.isInstance(error)) return sessionNotFoundHint(error.recent ?? null);
  if (SessionNameTakenError.isInstance(error)) {
    return `Choose another name, or rename that session first: conclave sessions rename ${error.holderId} "another name"`;
  }
  if (UncertainStepError.isInstance(error)) {
    return 'Choose with --on-uncertain rerun|skip|abort (rerun runs the step again, skip goes on without it, abort stops before it).';
  }
  if (StepAbortedError.isInstance(error)) {
    return `Resume again and choose rerun or skip: conclave --resume ${error.sessionId} --on-uncertain rerun|skip`;
  }
  if (EncryptionKeyUnavailableError.isInstance(error)) {
    return [
      `Supply key ${error.keyId}: its text in $CONCLAVE_ENCRYPTION_KEY, a file holding it in $CONCLAVE_ENCRYPTION_KEY_FILE,`,
      `a command that prints it in $CONCLAVE_ENCRYPTION_KEY_COMMAND (or encryption.keyFile / encryption.keyCommand in the config),`,
      `or its file ${error.keyId}.key in the data home's keys/data/`,
      '(conclave keys list shows the keys held). Without the key the data cannot be read: there is no recovery.',
    ].join('\n');
  }
  if (JournalCorruptedError.isInstance(error)) {
    return error.sessionId
      ? `Salvage the valid prefix with: conclave sessions repair ${error.sessionId}`
      : 'The file cannot be read; restore it from a backup or export.';
  }
  if (StoreQuotaError.isInstance(error)) {
    return [
      'See what uses the space: conclave sessions du. Free it: conclave sessions cleanup, conclave sessions trash --empty,',
      `conclave sessions delete <id> --now; or raise limits.${error.limit} in the config.`,
      error.sessionId
        ? `Then resume: conclave --resume ${error.sessionId} (it goes on where it stopped).`
        : 'Then run the same command again.',
    ].join('\n');
  }
  if (IncompatibleSessionError.isInstance(error)) return 'Pass --force to resume anyway, or start a new session.';
  if (SessionDeletedError.isInstance(error)) {
    return 'Start the task again as a new session. Delete sessions with `conclave sessions delete` (it refuses one that is running), not by removing their folders.';
  }
  if (ReplayMismatchError.isInstance(error)) {
    return 'The code that resumed the session asks for different work than the journal recorded: run the version that wrote it, or branch from a checkpoint before the change.';
  }
  if (RecoveryLimitError.isInstance(error)) {
    return [
      `Resume it anyway with: conclave --resume ${error.sessionId} --force (the limit is resume.maxRecoveries in the config),`,
      `or inspect it with: conclave sessions show ${error.sessionId} --transcript`,
      `then branch from a good checkpoint: conclave --branch-from ${error.sessionId} --from-checkpoint <seq|label> "…"`,
      `(its checkpoints: conclave checkpoints list ${error.sessionId}).`,
    ].join('\n');
  }
  return undefined;
}

/** `recent`: the newest sessions when the thrower looked them up, null when it did not. */
function sessionNotFoundHint(recent: readonly SessionSummary[] | null): string {
  if (recent === null) return `List sessions with: ${LIST_SESSIONS}`;
  if (recent.length === 0) return 'There are no sessions yet. Start one with: conclave "your task"';
  const lines = recent.map((summary) => `  ${summary.id}  ${summary.status.padEnd(11)} ${summary.title}`);
  return `Recent sessions:\n${lines.join('\n')}\nList all with: ${LIST_SESSIONS}`;
}

/** An error as one text for a screen's status line: the message, then the next step when there is one. */
export function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const hint = ConclaveError.isInstance(error) ? hintFor(error) : undefined;
  return hint ? `${error.message} ${hint}` : error.message;
}
