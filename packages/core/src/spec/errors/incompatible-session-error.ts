import { ConclaveError, type ConclaveErrorOptions } from './conclave-error.js';

/** A resume was blocked by the compatibility check, or replay found different steps than recorded. */
export class IncompatibleSessionError extends ConclaveError {
  static override readonly code = 'session-incompatible';
  readonly sessionId: string;
  readonly reasons: string[];
  constructor(sessionId: string, reasons: string[], options: ConclaveErrorOptions = {}) {
    super(
      IncompatibleSessionError.code,
      `Session ${sessionId} cannot be resumed as it is: ${reasons.join('; ')}.`,
      options,
    );
    this.name = 'IncompatibleSessionError';
    this.sessionId = sessionId;
    this.reasons = reasons;
  }
}
