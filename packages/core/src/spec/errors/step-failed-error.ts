import type { ErrorInfo } from '../events.js';
import { ConclaveError, type ConclaveErrorOptions } from './conclave-error.js';

export interface FailedAttempt {
  attempt: number;
  error: ErrorInfo;
}

/**
 * A durable step failed for good: its retry policy allowed no further attempt. Carries every
 * attempt of the step with its error (oldest first) and, when the failure happened in this
 * process, the last error as `cause`; a replayed failure has only the journaled errors. The
 * front ends exit as the last error would when it is a Conclave error (a refused API key stays 69).
 */
export class StepFailedError extends ConclaveError {
  static override readonly code = 'step-failed';
  readonly sessionId: string;
  readonly key: string;
  readonly occurrence: number;
  readonly attempts: FailedAttempt[];
  /** True when the failure was read back from the journal instead of happening now. */
  readonly replayed: boolean;
  constructor(
    details: { sessionId: string; key: string; occurrence: number; attempts: FailedAttempt[]; replayed?: boolean },
    options: ConclaveErrorOptions = {},
  ) {
    const last = details.attempts.at(-1);
    const count = details.attempts.length;
    super(
      StepFailedError.code,
      `Step "${details.key}" of session ${details.sessionId} failed after ${count} attempt${count === 1 ? '' : 's'}${last ? `: ${last.error.message}` : ''}`,
      options,
    );
    this.name = 'StepFailedError';
    this.sessionId = details.sessionId;
    this.key = details.key;
    this.occurrence = details.occurrence;
    this.attempts = details.attempts;
    this.replayed = details.replayed ?? false;
  }
}
