import { ConclaveError, type ConclaveErrorOptions } from '@resume/core/spec';
import { describeDuration } from '../config/duration.js';

/**
 * An attempt of a workflow step took longer than its `timeout:`: a failure like any other (the
 * retry policy decides whether another attempt follows). A shell step's command was stopped,
 * its whole process group, before this was reported.
 */
export class StepTimedOutError extends ConclaveError {
  static override readonly code = 'step-timed-out';
  readonly timeoutMs: number;
  /** The signal that ended the command (a shell step's); null when it had ended or for a model call. */
  readonly stoppedWith: 'SIGTERM' | 'SIGKILL' | null;
  constructor(
    input: { what: string; timeoutMs: number; stoppedWith?: 'SIGTERM' | 'SIGKILL' | null },
    options: ConclaveErrorOptions = {},
  ) {
    const stopped = input.stoppedWith ? ` and was stopped (${input.stoppedWith} to its process group)` : '';
    super(StepTimedOutError.code, `${input.what} timed out after ${describeDuration(input.timeoutMs)}${stopped}.`, {
      hint: 'Find what makes it hang, or give it more time with timeout: on the step; resuming the session tries it again.',
      ...options,
    });
    this.name = 'StepTimedOutError';
    this.timeoutMs = input.timeoutMs;
    this.stoppedWith = input.stoppedWith ?? null;
  }
}
