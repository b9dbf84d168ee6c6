import { ConclaveError, type ConclaveErrorOptions } from './conclave-error.js';

/** The run was interrupted (SIGINT/SIGTERM or an abort); everything up to the last checkpoint is saved. */
export class InterruptedError extends ConclaveError {
  static override readonly code = 'interrupted';
  readonly sessionId: string | null;
  constructor(sessionId: string | null, message = 'Interrupted.', options: ConclaveErrorOptions = {}) {
    super(InterruptedError.code, message, options);
    this.name = 'InterruptedError';
    this.sessionId = sessionId;
  }
}
