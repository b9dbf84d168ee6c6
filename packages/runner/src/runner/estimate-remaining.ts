// "What is left, and what it may cost": the model calls a resume can still make, from the
// mode's own bounds (rounds, chunks, steps, iterations), times the session's average cost
// per call so far. Shown in the resume plan next to the cost so far.
import type { SessionState } from '@resume/core';
import type { WorkflowSpec } from '../workflow/workflow-spec.js';
import type { RunConfig } from './run-config.js';

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

const completedCount = (state: SessionState, pattern: RegExp) =>
  state.steps.filter((step) => step.status === 'completed' && pattern.test(step.key)).length;

function remainingCalls(state: SessionState, config: RunConfig, spec: WorkflowSpec | null) {
  switch (config.mode) {
    case 'discussion': {
      const speakers = config.agents.length + 1;
      return { calls: Math.max(0, config.maxRounds * speakers - completedCount(state, /^round-\d+\//)), atMost: true };
    }
    case 'iterative': {
      const progress = state.data.iterative as { chunk?: number; totalChunks?: number } | undefined;
      if (typeof progress?.totalChunks !== 'number') return { calls: null, atMost: false };
      const done = typeof progress.chunk === 'number' ? progress.chunk : 0;
      return { calls: Math.max(0, progress.totalChunks - done) * config.agents.length, atMost: false };
    }
    case 'orchestrated':
    case 'prompt': {
      const turns = completedCount(state, /^turn-\d+\/[^/]+$/);
      return { calls: Math.max(0, config.maxIterations - turns), atMost: true };
    }
    case 'chain': {
      if (!spec) return { calls: null, atMost: false };
      const progress = state.data.chain as { step?: number } | undefined;
      const done = typeof progress?.step === 'number' ? progress.step : 0;
      const agentSteps = spec.steps.slice(done).filter((step) => 'agent' in step).length;
      // on_failure fixes run only when a shell step fails: not counted.
      return { calls: agentSteps, atMost: false };
    }
  }
}

/** The average known cost per call of the session's own calls, or null when none is priced. */
export function averageCallCost(state: SessionState): number | null {
  const priced = state.usageRecords.filter((record) => !record.inherited && record.costUsd !== null);
  if (priced.length === 0) return null;
  return priced.reduce((sum, record) => sum + (record.costUsd ?? 0), 0) / priced.length;
}

export function estimateRemaining(
  state: SessionState,
  config: RunConfig,
  spec: WorkflowSpec | null,
): RemainingEstimate {
  const { calls, atMost } = remainingCalls(state, config, spec);
  const averageUsd = averageCallCost(state);
  return {
    calls,
    atMost,
    averageUsd,
    costUsd: calls === null || averageUsd === null ? null : calls * averageUsd,
  };
}
