// Cost limits (per session and per lineage): before each new model call the guard
// estimates the call's cost from the price table and refuses it, with a CostLimitError,
// when the known cost so far plus the estimates of calls still in flight plus this one
// would pass a limit. Replayed calls cost nothing and are never checked.

import type { SessionState } from '@resume/core';
import type { ChatMessage } from '@resume/core/spec';
import { estimateTokens } from '../resume/compaction.js';
import { type ModelPrice, type PriceTable, priceOf } from './cost.js';
import { CostLimitError } from './cost-limit-error.js';

export interface CostLimits {
  /** This session's own cost at most (USD); null: no limit. */
  maxCostUsd: number | null;
  /** The cost summed over the session's lineage (its parents included) at most; null: no limit. */
  maxLineageCostUsd: number | null;
  /**
   * Budgets over every session for a period (today, this month): `spentUsd` is what every
   * session had spent in the period when the run started; this session's calls since are added.
   */
  budgets?: Array<{ period: 'day' | 'month'; limitUsd: number; spentUsd: number }>;
}

/** Output tokens assumed for a call before the session has any to average (a medium answer). */
export const DEFAULT_OUTPUT_TOKENS_ESTIMATE = 500;

export interface CallEstimateInput {
  model: string;
  /** The call's provider is free (its factory says so): the estimate is 0. */
  free?: boolean;
  /** The price the model itself carries (a provider's configured price): before `free` and the table. */
  price?: ModelPrice | undefined;
  system?: string;
  messages: readonly Pick<ChatMessage, 'content'>[];
  /** Output tokens to assume (default: the session's average, else 500). */
  outputTokens?: number;
  /**
   * Input tokens the provider counted for a like call before (see `lastInputTokens`): the
   * estimate from the text alone misses what the provider adds, so it never assumes fewer.
   */
  inputTokensAtLeast?: number;
  table?: PriceTable;
}

/** Estimated USD of one call, or null when the model's price is unknown. */
export function estimateCallCost(input: CallEstimateInput): number | null {
  if (input.free && !input.price) return 0;
  const price = input.price ?? priceOf(input.model, input.table);
  if (!price) return null;
  const inputTokens = Math.max(
    input.inputTokensAtLeast ?? 0,
    estimateTokens(input.system ?? '') +
      input.messages.reduce((sum, message) => sum + estimateTokens(message.content) + 4, 0),
  );
  const outputTokens = input.outputTokens ?? DEFAULT_OUTPUT_TOKENS_ESTIMATE;
  return (inputTokens * price.input + outputTokens * price.output) / 1_000_000;
}

/** The session's average output tokens per call (its own calls), or the default when it has none. */
export function averageOutputTokens(state: SessionState): number {
  const own = state.usageRecords.filter((record) => !record.inherited);
  if (own.length === 0) return DEFAULT_OUTPUT_TOKENS_ESTIMATE;
  return Math.ceil(own.reduce((sum, record) => sum + record.outputTokens, 0) / own.length);
}

/**
 * The input tokens the provider counted for the session's last own call of this agent (else of
 * any agent; 0 before the first): a discussion's prompts only grow, a workflow's agents repeat.
 */
export function lastInputTokens(state: SessionState, agent: string): number {
  const own = state.usageRecords.filter((record) => !record.inherited);
  return (own.findLast((record) => record.agent === agent) ?? own.at(-1))?.inputTokens ?? 0;
}

/** The known cost of the session's own calls (calls of unknown price count 0). */
export function knownCost(state: SessionState): number {
  return state.usageRecords.reduce(
    (sum, record) => (record.inherited || record.costUsd === null ? sum : sum + record.costUsd),
    0,
  );
}

export interface CostGuard {
  /**
   * Reserves the call's estimate, or throws CostLimitError when it would pass a limit.
   * Returns the release to call once the call finished (its real cost is then journaled).
   */
  admit(call: { stepKey: string; estimateUsd: number | null; model: string }): () => void;
}

export interface CostGuardInput {
  limits: CostLimits;
  state: () => SessionState;
  sessionId: string;
  /** The known cost of the lineage's other sessions (the parents), fixed for this run. */
  ancestorsUsd: number;
  /** Told once per model whose price is unknown (its calls cannot be counted). */
  onUnknownPrice?: (model: string) => void;
}

export function createCostGuard(input: CostGuardInput): CostGuard | null {
  const { limits } = input;
  const budgets = limits.budgets ?? [];
  if (limits.maxCostUsd === null && limits.maxLineageCostUsd === null && budgets.length === 0) return null;
  // The session's own cost when the run started: what it spends from here adds to the budgets' periods.
  const ownAtStart = knownCost(input.state());
  const inFlight = new Map<number, number>();
  const unknown = new Set<string>();
  let next = 0;
  return {
    admit(call) {
      if (call.estimateUsd === null) {
        if (!unknown.has(call.model)) {
          unknown.add(call.model);
          input.onUnknownPrice?.(call.model);
        }
        return () => undefined;
      }
      const own = knownCost(input.state());
      const reserved = [...inFlight.values()].reduce((sum, value) => sum + value, 0);
      const checks: Array<{ scope: CostLimitError['details']['scope']; limit: number | null; spent: number }> = [
        { scope: 'session', limit: limits.maxCostUsd, spent: own },
        { scope: 'lineage', limit: limits.maxLineageCostUsd, spent: own + input.ancestorsUsd },
        ...budgets.map((budget) => ({
          scope: budget.period,
          limit: budget.limitUsd,
          spent: budget.spentUsd + own - ownAtStart,
        })),
      ];
      for (const check of checks) {
        if (check.limit === null) continue;
        if (check.spent + reserved + call.estimateUsd > check.limit) {
          throw new CostLimitError({
            sessionId: input.sessionId,
            scope: check.scope,
            limitUsd: check.limit,
            spentUsd: check.spent,
            reservedUsd: reserved,
            estimateUsd: call.estimateUsd,
            stepKey: call.stepKey,
          });
        }
      }
      const id = next++;
      inFlight.set(id, call.estimateUsd);
      return () => {
        inFlight.delete(id);
      };
    },
  };
}
