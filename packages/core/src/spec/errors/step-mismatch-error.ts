import { ConclaveError, type ConclaveErrorOptions, ExitCode } from './conclave-error.js';

/** On replay the code asked for a different step than the journal recorded at that point. */
export class StepMismatchError extends ConclaveError {
  static override readonly code = 'step-mismatch';
  readonly sessionId: string;
  readonly expectedKey: string;
  readonly requestedKey: string;
  readonly position: number;
  constructor(
    details: { sessionId: string; expectedKey: string; requestedKey: string; position: number },
    options: ConclaveErrorOptions = {},
  ) {
    super(
      StepMismatchError.code,
      ExitCode.corrupted,
      `Session ${details.sessionId} recorded step "${details.expectedKey}" at position ${details.position} but the workflow now asks for "${details.requestedKey}"; the recorded output will not be reused for a different step.`,
      {
        hint: 'The workflow changed since the session ran. Start a new session, or branch from an earlier checkpoint.',
        ...options,
      },
    );
    this.name = 'StepMismatchError';
    this.sessionId = details.sessionId;
    this.expectedKey = details.expectedKey;
    this.requestedKey = details.requestedKey;
    this.position = details.position;
  }
}
