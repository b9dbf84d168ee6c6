import { ConclaveError, type ConclaveErrorOptions } from '@resume/core/spec';
import type { NextStep } from '../runner/next-step.js';

/**
 * Items of a map step failed after their retries and went to the dead-letter list. The
 * items that passed are kept (and the reduce step saw every result); the run stops here
 * as failed, so the steps after the map do not run on partial results.
 */
export class MapItemsFailedError extends ConclaveError {
  static override readonly code = 'map-items-failed';
  readonly sessionId: string;
  readonly stepId: string;
  readonly failed: string[];
  readonly completed: number;
  /** List the failed items, and retry them once fixed. */
  readonly nextStep: NextStep;
  constructor(
    input: { sessionId: string; stepId: string; failed: string[]; completed: number; total: number },
    options: ConclaveErrorOptions = {},
  ) {
    const shown = input.failed.slice(0, 5).join(', ') + (input.failed.length > 5 ? ', …' : '');
    super(
      MapItemsFailedError.code,
      `${input.failed.length} of ${input.total} items of map step "${input.stepId}" failed after their retries (${shown}); ${input.completed} completed and are kept.`,
      options,
    );
    this.name = 'MapItemsFailedError';
    this.sessionId = input.sessionId;
    this.stepId = input.stepId;
    this.failed = input.failed;
    this.completed = input.completed;
    this.nextStep = { kind: 'retry-failed-items', sessionId: input.sessionId };
  }
}
