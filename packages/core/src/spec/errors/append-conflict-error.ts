import { ConclaveError, type ConclaveErrorOptions } from './conclave-error.js';

/** An append whose expected last seq did not match the journal (optimistic concurrency). */
export class AppendConflictError extends ConclaveError {
  static override readonly code = 'append-conflict';
  readonly sessionId: string;
  readonly expectedSeq: number;
  readonly actualSeq: number;
  constructor(sessionId: string, expectedSeq: number, actualSeq: number, options: ConclaveErrorOptions = {}) {
    super(
      AppendConflictError.code,
      `Session ${sessionId} was written by someone else: expected last event ${expectedSeq}, found ${actualSeq}.`,
      { hint: 'Only one process may write a session at a time; reopen it to continue.', ...options },
    );
    this.name = 'AppendConflictError';
    this.sessionId = sessionId;
    this.expectedSeq = expectedSeq;
    this.actualSeq = actualSeq;
  }
}
