import { ConclaveError, type ConclaveErrorOptions } from './conclave-error.js';

export class SessionExistsError extends ConclaveError {
  static override readonly code = 'session-exists';
  readonly sessionId: string;
  constructor(sessionId: string, options: ConclaveErrorOptions = {}) {
    super(SessionExistsError.code, `A session with id ${sessionId} already exists.`, options);
    this.name = 'SessionExistsError';
    this.sessionId = sessionId;
  }
}
