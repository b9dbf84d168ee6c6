import { ConclaveError, type ConclaveErrorOptions } from '@resume/core/spec';

/**
 * A validate step's checks ran out below its threshold, or a check or scorer printed no number
 * to read. Every check and attempt so far is journaled: a resume continues the loop.
 */
export class ScoredStepFailedError extends ConclaveError {
  static override readonly code = 'scored-step-failed';
  constructor(message: string, options: ConclaveErrorOptions = {}) {
    super(ScoredStepFailedError.code, message, {
      hint: 'Fix the cause and resume the session: the checks and attempts that ran are not run again.',
      ...options,
    });
    this.name = 'ScoredStepFailedError';
  }
}
