import type { ErrorInfo, JsonValue, StepProcess, StepSafety } from '../events.js';
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
  /**
   * The tool call the step runs, when it is one (the runner adds it): its name as the model
   * called it, its arguments, and for an MCP tool the server and the tool's own name.
   */
  toolCall?: { name: string; args: JsonValue; server?: string; tool?: string };
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
