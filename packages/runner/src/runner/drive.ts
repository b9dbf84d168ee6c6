// Driving a session: hand it to its mode, then turn the outcome into a RunResult. An
// interrupt leaves a resumable journal; an uncertain step waits for a decision; anything
// else fails the session. The session is always released.
import type { Session } from '@resume/core';
import {
  InterruptedError,
  SessionDeletedError,
  StepAbortedError,
  UncertainStepError,
  WaitingForInputError,
} from '@resume/core/spec';
import { McpServerError } from '../mcp/mcp-server-error.js';
import { MapItemsQueuedError } from '../modes/map-items-queued-error.js';
import type { Mode } from '../modes/mode.js';
import { lineageUsage } from '../resume/lineage.js';
import { type CostGuard, createCostGuard } from '../usage/cost-guard.js';
import { CostLimitError } from '../usage/cost-limit-error.js';
import type { RequestInbox } from './checkpoint-requests.js';
import { modeRunContext } from './mode-setup.js';
import { withNextStep } from './next-step.js';
import { resumeCommandFor, startsFromOf } from './resume-command.js';
import type { RunConfig } from './run-config.js';
import type { RunnerScope } from './runner-scope.js';
import type { RunnerOptions, RunResult } from './runner-types.js';

/** The run's cost guard, or null without limits (the ancestors' cost is fixed for the run). */
async function costGuardFor(scope: RunnerScope, session: Session): Promise<CostGuard | null> {
  const { options } = scope;
  const limits = {
    maxCostUsd: options.limits?.maxCostUsd ?? null,
    maxLineageCostUsd: options.limits?.maxLineageCostUsd ?? null,
    budgets: await budgetsOf(options.budgets),
  };
  if (limits.maxCostUsd === null && limits.maxLineageCostUsd === null && limits.budgets.length === 0) return null;
  let ancestorsUsd = 0;
  if (limits.maxLineageCostUsd !== null && session.state.header.parentId !== null) {
    const lineage = await lineageUsage(scope.engine, session.state.header.parentId);
    ancestorsUsd = lineage.sessions.reduce((sum, entry) => sum + (entry.usage.costUsd ?? 0), 0);
  }
  return createCostGuard({
    limits,
    state: () => session.state,
    sessionId: session.id,
    ancestorsUsd,
    onUnknownPrice: (model) =>
      scope.emit({
        type: 'notice',
        text: `The price of model ${model} is unknown: its calls cannot be counted towards the cost limit.`,
      }),
  });
}

/** The daily and monthly budgets with what every session spent in their period so far (local time). */
async function budgetsOf(budgets: RunnerOptions['budgets']) {
  const now = budgets?.now?.() ?? new Date();
  const periods = [
    {
      period: 'day' as const,
      limitUsd: budgets?.dailyUsd ?? null,
      since: new Date(now.getFullYear(), now.getMonth(), now.getDate()),
    },
    {
      period: 'month' as const,
      limitUsd: budgets?.monthlyUsd ?? null,
      since: new Date(now.getFullYear(), now.getMonth(), 1),
    },
  ];
  const set = periods.filter((period) => period.limitUsd !== null);
  if (!budgets || set.length === 0) return [];
  return Promise.all(
    set.map(async ({ period, limitUsd, since }) => ({
      period,
      limitUsd: limitUsd as number,
      spentUsd: await budgets.spentSince(since),
    })),
  );
}

/** The cost limit that stopped a run, also when it surfaced inside a step (an on_failure fix). */
function costLimitIn(error: unknown): CostLimitError | null {
  for (let current = error, depth = 0; current && depth < 5; depth += 1) {
    if (CostLimitError.isInstance(current)) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}

/** Drives a session's mode to an outcome; always releases the session. */
export async function drive(
  scope: RunnerScope,
  session: Session,
  mode: Mode,
  config: RunConfig,
  resumed: boolean,
  workspaceDir = scope.options.workspaceDir,
): Promise<RunResult> {
  const { live, emit } = scope;
  live.current = session;
  live.interruptRequested = null;
  const result = (
    status: RunResult['status'],
    conclusion: string | null,
    error: RunResult['error'] = null,
  ): RunResult => ({
    sessionId: session.id,
    status,
    conclusion,
    resumeCommand: status === 'completed' ? null : resumeCommandFor(session.id, config.mode, scope.modes),
    usage: session.state.usage,
    error,
  });
  emit({
    type: 'run-started',
    sessionId: session.id,
    mode: config.mode,
    resumed,
    roundUnit: mode.roundUnit ?? 'round',
  });
  let requests: RequestInbox | null = null;
  try {
    const context = modeRunContext(scope, session, workspaceDir, await costGuardFor(scope, session));
    requests = context.requests ?? null;
    const outcome = await mode.run(context, config);
    await session.complete();
    emit({ type: 'usage', totals: session.state.usage });
    return result('completed', outcome.conclusion);
  } catch (error) {
    const costLimit = costLimitIn(error);
    if (costLimit && live.interruptRequested === null) {
      // A clean stop before a call that would pass the limit: what ran is checkpointed,
      // the session is resumable (with a higher limit).
      await session.checkpoint('cost limit').catch(() => undefined);
      await session.interrupt('cost-limit').catch(() => undefined);
      emit({ type: 'notice', text: costLimit.message });
      return { ...result('interrupted', null, costLimit), stopReason: 'cost-limit' };
    }
    const serverFailure = scope.mcp?.failure ?? (McpServerError.isInstance(error) ? error : null);
    if (serverFailure !== null && live.interruptRequested === null) {
      // The call in flight stays uncertain (the session is interrupted, not failed): a resume
      // once the server is back decides about it like about any interrupted call.
      await session.interrupt(serverFailure.message).catch(() => undefined);
      return result('failed', null, serverFailure);
    }
    if (live.interruptRequested !== null || InterruptedError.isInstance(error) || session.signal.aborted) {
      await session.interrupt(live.interruptRequested ?? 'interrupted').catch(() => undefined);
      return result('interrupted', null);
    }
    if (MapItemsQueuedError.isInstance(error)) {
      // Its items run on the queue: the session waits for them without holding this worker.
      await session.interrupt(error.message).catch(() => undefined);
      return { ...result('interrupted', null), stopReason: 'map-items-queued' };
    }
    if (WaitingForInputError.isInstance(error)) {
      // The agent asked the user (ask_user): the session is `waiting` for the answer, not failed.
      emit({ type: 'usage', totals: session.state.usage });
      return { ...result('waiting', null), waitingFor: { key: error.key, prompt: error.prompt } };
    }
    if (UncertainStepError.isInstance(error) || StepAbortedError.isInstance(error)) {
      // Waiting for a decision is not a failure: the session stays resumable as it is.
      await session.interrupt('waiting for a decision on an uncertain step').catch(() => undefined);
      if (StepAbortedError.isInstance(error)) {
        const startsFrom = startsFromOf(config.mode, scope.modes);
        throw withNextStep(error, { kind: 'decide-uncertain-step', sessionId: session.id, startsFrom });
      }
      throw error;
    }
    await session.fail(error).catch(() => undefined);
    // A session deleted while it ran keeps nothing: there is no command that resumes it.
    if (SessionDeletedError.isInstance(error)) return { ...result('failed', null, error), resumeCommand: null };
    return result('failed', null, error instanceof Error ? error : new Error(String(error)));
  } finally {
    requests?.stop();
    live.current = null;
    // Everything the run did is already durable; a lease that cannot be released (the store went
    // away) expires on its own. The run's own outcome or error is what the user needs to see.
    await session.close().catch((closeError: unknown) =>
      emit({
        type: 'notice',
        text: `The session's lease could not be released (${closeError instanceof Error ? closeError.message : String(closeError)}); another process can take it over once it expires.`,
      }),
    );
  }
}

/** Asks the session being driven to stop; a session not yet reached stops when it is. */
export async function interruptRun(scope: RunnerScope, reason: string): Promise<void> {
  scope.live.interruptRequested = reason;
  if (scope.live.current) await scope.live.current.interrupt(reason);
}
