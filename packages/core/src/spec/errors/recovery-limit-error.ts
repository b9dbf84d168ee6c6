import { ConclaveError, type ConclaveErrorOptions, ExitCode } from './conclave-error.js';

/** A session that keeps crashing the process is stopped instead of being resumed forever. */
export class RecoveryLimitError extends ConclaveError {
  static override readonly code = 'recovery-limit';
  readonly sessionId: string;
  readonly recoveries: number;
  constructor(sessionId: string, recoveries: number, options: ConclaveErrorOptions = {}) {
    super(
      RecoveryLimitError.code,
      ExitCode.failed,
      `Session ${sessionId} has already been resumed ${recoveries} times after interruptions; it is not resumed again automatically.`,
      options,
    );
    this.name = 'RecoveryLimitError';
    this.sessionId = sessionId;
    this.recoveries = recoveries;
  }
}
