// Driving a session: hand it to its mode, then turn the outcome into a RunResult. An
// interrupt leaves a resumable journal; an uncertain step waits for a decision; anything
// else fails the session. The session is always released.
import type { Session } from '@resume/core';
import { InterruptedError, StepAbortedError, UncertainStepError } from '@resume/core/spec';
import type { Mode } from '../modes/mode.js';
import { modeRunContext } from './mode-setup.js';
import { resumeCommandFor } from './resume-command.js';
import type { RunConfig } from './run-config.js';
import type { RunnerScope } from './runner-scope.js';
import type { RunResult } from './runner-types.js';

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
  emit({ type: 'run-started', sessionId: session.id, mode: config.mode, resumed });
  try {
    const outcome = await mode.run(modeRunContext(scope, session, workspaceDir), config);
    await session.complete();
    emit({ type: 'usage', totals: session.state.usage });
    return result('completed', outcome.conclusion);
  } catch (error) {
    if (live.interruptRequested !== null || InterruptedError.isInstance(error) || session.signal.aborted) {
      await session.interrupt(live.interruptRequested ?? 'interrupted').catch(() => undefined);
      return result('interrupted', null);
    }
    if (UncertainStepError.isInstance(error) || StepAbortedError.isInstance(error)) {
      // Waiting for a decision is not a failure: the session stays resumable as it is.
      await session.interrupt('waiting for a decision on an uncertain step').catch(() => undefined);
      throw error;
    }
    await session.fail(error).catch(() => undefined);
    return result('failed', null, error instanceof Error ? error : new Error(String(error)));
  } finally {
    live.current = null;
    await session.close();
  }
}

/** Asks the session being driven to stop; a session not yet reached stops when it is. */
export async function interruptRun(scope: RunnerScope, reason: string): Promise<void> {
  scope.live.interruptRequested = reason;
  if (scope.live.current) await scope.live.current.interrupt(reason);
}
