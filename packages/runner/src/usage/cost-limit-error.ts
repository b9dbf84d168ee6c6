import { ConclaveError, type ConclaveErrorOptions } from '@resume/core/spec';
import { formatUsd } from './cost.js';

export interface CostLimitDetails {
  sessionId: string;
  /** Which limit: this session's own cost, or the cost summed over its lineage. */
  scope: 'session' | 'lineage';
  limitUsd: number;
  /** Known cost so far in that scope (calls of unknown price are not counted). */
  spentUsd: number;
  /** Estimated cost of calls running in parallel that have not reported yet. */
  reservedUsd: number;
  /** Estimated cost of the call that was not made. */
  estimateUsd: number;
  /** The step key of that call. */
  stepKey: string;
}

/**
 * A model call would have taken the run past its cost limit, so it was not made: the run
 * stopped at a checkpoint (interrupted, reason `cost-limit`) and can be resumed with a
 * higher limit. The CLI exits 130, as for every stop that leaves a resumable checkpoint.
 */
export class CostLimitError extends ConclaveError {
  static override readonly code = 'cost-limit';
  readonly details: CostLimitDetails;
  constructor(details: CostLimitDetails, options: ConclaveErrorOptions = {}) {
    const what = details.scope === 'session' ? 'this session' : 'the lineage';
    super(
      CostLimitError.code,
      `Stopped before ${details.stepKey}: its estimated ${formatUsd(details.estimateUsd)} would take ${what} past its cost limit (${formatUsd(details.spentUsd)} spent${details.reservedUsd > 0 ? `, ${formatUsd(details.reservedUsd)} in flight` : ''} of ${formatUsd(details.limitUsd)}). Everything so far is checkpointed.`,
      options,
    );
    this.name = 'CostLimitError';
    this.details = details;
  }
}
