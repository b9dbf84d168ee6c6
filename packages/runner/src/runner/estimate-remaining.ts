// "What is left, and what it may cost": the model calls a resume can still make, as the
// mode counts them (rounds, chunks, steps, iterations), times the session's average cost
// per call so far. Shown in the resume plan next to the cost so far.
import type { SessionState } from '@resume/core';
import type { RemainingCalls } from '../modes/mode.js';

export interface RemainingEstimate {
  /** Model calls still to make (an upper bound where the mode can end early), or null if unknown. */
  calls: number | null;
  /** Whether `calls` is an upper bound (a discussion may reach consensus sooner). */
  atMost: boolean;
  /** `calls` × the average cost per call so far; null before any priced call. */
  costUsd: number | null;
  /** The average cost per call it is based on. */
  averageUsd: number | null;
}

/** The average known cost per call of the session's own calls, or null when none is priced. */
export function averageCallCost(state: SessionState): number | null {
  const priced = state.usageRecords.filter((record) => !record.inherited && record.costUsd !== null);
  if (priced.length === 0) return null;
  return priced.reduce((sum, record) => sum + (record.costUsd ?? 0), 0) / priced.length;
}

export function estimateRemaining(state: SessionState, remaining: RemainingCalls): RemainingEstimate {
  const { calls, atMost } = remaining;
  const averageUsd = averageCallCost(state);
  return {
    calls,
    atMost,
    averageUsd,
    costUsd: calls === null || averageUsd === null ? null : calls * averageUsd,
  };
}
