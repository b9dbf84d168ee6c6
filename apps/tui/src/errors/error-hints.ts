// What a person should do next after an error, in Conclave's own commands and flags. The
// libraries' errors carry a stable code and data for programs; the front ends (the
// `conclave` CLI and the session browser) word the next step from them, here, once. No
// Ink or React: the CLI imports this on its error path without loading any screen.
import {
  ConclaveError,
  IncompatibleSessionError,
  JournalCorruptedError,
  RecoveryLimitError,
  ReplayMismatchError,
  SessionDeletedError,
  SessionNotFoundError,
  type SessionSummary,
  StepAbortedError,
  UncertainStepError,
} from '@resume/core/spec';

const LIST_SESSIONS = 'conclave sessions list';

/** The hint the thrower attached, else one worded from the error's code and data (undefined when there is none). */
export function hintFor(error: ConclaveError): string | undefined {
  return error.hint ?? wordedHint(error);
}

function wordedHint(error: ConclaveError): string | undefined {
  if (SessionNotFoundError.isInstance(error)) return sessionNotFoundHint(error.recent ?? null);
  if (UncertainStepError.isInstance(error)) {
    return 'Choose with --on-uncertain rerun|skip|abort (rerun runs the step again, skip goes on without it, abort stops before it).';
  }
  if (StepAbortedError.isInstance(error)) {
    return `Resume again and choose rerun or skip: conclave --resume ${error.sessionId} --on-uncertain rerun|skip`;
  }
  if (JournalCorruptedError.isInstance(error)) {
    return error.sessionId
      ? `Salvage the valid prefix with: conclave sessions repair ${error.sessionId}`
      : 'The file cannot be read; restore it from a backup or export.';
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
