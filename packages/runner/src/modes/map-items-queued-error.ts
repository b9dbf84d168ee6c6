import { ConclaveError, type ConclaveErrorOptions } from '@resume/core/spec';

/**
 * A queued run's map step put its items on the queue and waits for them: the run stops here
 * (the session `interrupted`, this message its reason) without holding a worker, and is run
 * again when an item finishes. Not a failure.
 */
export class MapItemsQueuedError extends ConclaveError {
  static override readonly code = 'map-items-queued';
  readonly stepId: string;
  readonly waiting: number;
  constructor(input: { stepId: string; waiting: number; total: number }, options: ConclaveErrorOptions = {}) {
    super(
      MapItemsQueuedError.code,
      `waiting for ${input.waiting} queued items of map step "${input.stepId}" (${input.total} in all)`,
      options,
    );
    this.name = 'MapItemsQueuedError';
    this.stepId = input.stepId;
    this.waiting = input.waiting;
  }
}
