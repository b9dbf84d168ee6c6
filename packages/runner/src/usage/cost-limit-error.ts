import { ConclaveError, type ConclaveErrorOptions } from '@resume/core/spec';
import { formatUsd } from './cost.js';

export interface CostLimitDetails {
  sessionId: string;
  /**
   * Which limit: this session's own cost, the cost summed over its lineage, or every session's
   * cost today or this month (`limits.dailyCost`, `limits.monthlyCost`).
   */
  scope: 'session' | 'lineage' | 'day' | 'month';
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
    const inFlight = details.reservedUsd > 0 ? `, ${formatUsd(details.reservedUsd)} in flight` : '';
    const budget = details.scope === 'day' || details.scope === 'month';
    const what = budget
      ? `what every session spent ${details.scope === 'day' ? 'today' : 'this month'} past the ${details.scope === 'day' ? 'daily' : 'monthly'} budget, limits.${details.scope === 'day' ? 'dailyCost' : 'monthlyCost'} (${formatUsd(details.spentUsd)} spent${inFlight} of ${formatUsd(details.limitUsd)})`
      : `${details.scope === 'session' ? 'this session' : 'the lineage'} past its cost limit (${formatUsd(details.spentUsd)} spent${inFlight} of ${formatUsd(details.limitUsd)})`;
    super(
      CostLimitError.code,
      `Stopped before ${details.stepKey}: its estimated ${formatUsd(details.estimateUsd)} would take ${what}. Everything so far is checkpointed.`,
      options,
    );
    this.name = 'CostLimitError';
    this.details = details;
  }
}
