import type { SessionStatus } from '../events.js';
import { ConclaveError, type ConclaveErrorOptions } from './conclave-error.js';

/**
 * A write to a session that has completed or failed. A finished session replays what it
 * recorded but takes nothing new; reopen a failed one to retry it, fork a completed one to
 * go on from it.
 */
export class SessionFinishedError extends ConclaveError {
  static override readonly code = 'session-finished';
  readonly sessionId: string;
  readonly status: Extract<SessionStatus, 'completed' | 'failed'>;
  /** What the code tried to write, e.g. `step "publish"`. */
  readonly operation: string;
  constructor(
    details: { sessionId: string; status: Extract<SessionStatus, 'completed' | 'failed'>; operation: string },
    options: ConclaveErrorOptions = {},
  ) {
    super(
      SessionFinishedError.code,
      `Session ${details.sessionId} has ${details.status}; it does not take new writes (${details.operation}). ${details.status === 'failed' ? 'Open it again to retry it' : 'Fork it to go on from it'}.`,
      options,
    );
    this.name = 'SessionFinishedError';
    this.sessionId = details.sessionId;
    this.status = details.status;
    this.operation = details.operation;
  }
}
