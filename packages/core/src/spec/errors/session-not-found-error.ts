import { ConclaveError, type ConclaveErrorOptions, ExitCode } from './conclave-error.js';

export class SessionNotFoundError extends ConclaveError {
  static override readonly code = 'session-not-found';
  readonly sessionRef: string;
  constructor(sessionRef: string, message = `No session matches "${sessionRef}".`, options: ConclaveErrorOptions = {}) {
    super(SessionNotFoundError.code, ExitCode.notFound, message, {
      hint: 'List sessions with: conclave sessions list',
      ...options,
    });
    this.name = 'SessionNotFoundError';
    this.sessionRef = sessionRef;
  }
}
