import type { ErrorInfo, StepProcess, StepSafety } from '../events.js';
import { ConclaveError, type ConclaveErrorOptions } from './conclave-error.js';

export interface UncertainStepInfo {
  sessionId: string;
  key: string;
  occurrence: number;
  attempt: number;
  safety: StepSafety;
  idempotencyKey: string;
  /** ISO time the uncertain attempt started. */
  startedAt: string;
  previousFailures: ErrorInfo[];
  /** The process the attempt ran its command in, when its start recorded one (it may still be running). */
  process?: StepProcess;
}

/**
 * An unsafe step started but never recorded an outcome (the process died during it).
 * It may or may not have had its effect; front ends ask the user: rerun, skip or abort, and
 * pass the answer as the engine's uncertain-step decision.
 */
export class UncertainStepError extends ConclaveError {
  static override readonly code = 'step-uncertain';
  readonly step: UncertainStepInfo;
  constructor(step: UncertainStepInfo, options: ConclaveErrorOptions = {}) {
    super(
      UncertainStepError.code,
      `Step "${step.key}" (attempt ${step.attempt}) of session ${step.sessionId} started at ${step.startedAt} but never finished; it has side effects, so it is not re-run without a decision.`,
      options,
    );
    this.name = 'UncertainStepError';
    this.step = step;
  }
}
