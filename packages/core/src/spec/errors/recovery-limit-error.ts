import { ConclaveError, type ConclaveErrorOptions } from './conclave-error.js';

/**
 * A session whose process keeps dying at the same place (a poison step) is not resumed again
 * automatically. Only crashes without progress in between count: clean interrupts and
 * crashes after a step completed or a checkpoint was written do not. `force` opens it anyway.
 */
export class RecoveryLimitError extends ConclaveError {
  static override readonly code = 'recovery-limit';
  readonly sessionId: string;
  /** Crashes in a row without progress, this one included. */
  readonly recoveries: number;
  /** The configured limit that was exceeded. */
  readonly limit: number;
  /** The step that was running at the last crashes, when one was. */
  readonly stepKey: string | null;
  constructor(
    details: { sessionId: string; recoveries: number; limit: number; stepKey: string | null },
    options: ConclaveErrorOptions = {},
  ) {
    super(
      RecoveryLimitError.code,
      `Session ${details.sessionId} stopped its process ${details.recoveries} times in a row without progress${details.stepKey ? ` (at step "${details.stepKey}")` : ''}, more than the limit of ${details.limit}; it is not resumed again automatically.`,
      options,
    );
    this.name = 'RecoveryLimitError';
    this.sessionId = details.sessionId;
    this.recoveries = details.recoveries;
    this.limit = details.limit;
    this.stepKey = details.stepKey;
  }
}
