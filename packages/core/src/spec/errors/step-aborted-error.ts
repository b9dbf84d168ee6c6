import { ConclaveError, type ConclaveErrorOptions } from './conclave-error.js';

/** The user chose to abort at an uncertain step; nothing was run and the session stays resumable. */
export class StepAbortedError extends ConclaveError {
  static override readonly code = 'step-aborted';
  readonly sessionId: string;
  readonly key: string;
  constructor(sessionId: string, key: string, options: ConclaveErrorOptions = {}) {
    super(StepAbortedError.code, `Stopped before re-running step "${key}" of session ${sessionId}.`, options);
    this.name = 'StepAbortedError';
    this.sessionId = sessionId;
    this.key = key;
  }
}
