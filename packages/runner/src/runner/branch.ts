// `runner.branch` and resumes from an earlier checkpoint: a new session forked from the
// parent's journal at a checkpoint (the journal is append-only), optionally with a follow-up.
import type { Session, SessionState } from '@resume/core';
import { UsageError } from '@resume/core/spec';
import type { Mode } from '../modes/mode.js';
import { buildResumeMessage, FOLLOW_UP_TAG } from '../resume/continuation.js';
import { lineageUsage, parentLineageRecord } from '../resume/lineage.js';
import { findCheckpointSeq } from './describe-next.js';
import { drive } from './drive.js';
import { withNextStep } from './next-step.js';
import { RUN_OPTIONS_KEY, type RunConfig, readRunConfig, runConfigAsJson } from './run-config.js';
import type { RunnerScope } from './runner-scope.js';
import type { BranchInput, RunResult } from './runner-types.js';

/** Steps attempted and messages written: what tells a session that did something from one that did not. */
function workDone(state: SessionState): number {
  return (
    state.messages.length +
    state.steps.reduce((sum, step) => sum + step.attempts.length + (step.status === 'skipped' ? 1 : 0), 0)
  );
}

export async function branchFrom(
  scope: RunnerScope,
  id: string,
  at: number,
  title: string,
  followUp: string | null,
  mode: Mode,
  config: RunConfig,
  workspaceDir = scope.options.workspaceDir,
  /** Writes to the new branch before it runs (files a restore replaced). */
  beforeRun?: (child: Session) => Promise<void>,
): Promise<RunResult> {
  const { engine } = scope;
  const { total } = await lineageUsage(engine, id);
  const parent = await engine.openSession(id, { countRecovery: false, replay: 'keyed' });
  let child: Session;
  try {
    child = await parent.fork({
      at,
      title,
      options: { [RUN_OPTIONS_KEY]: runConfigAsJson(config), ...parentLineageRecord(total) },
    });
  } finally {
    await parent.close();
  }
  if (followUp !== null) {
    // A branch's models lack the context of why it exists: say so, then ask.
    child.addMessage(buildResumeMessage(child.state, 'branch'));
    child.addMessage({ role: 'user', content: followUp, speaker: 'user', round: null, tags: [FOLLOW_UP_TAG] });
    await child.checkpoint('branch follow-up');
  }
  await beforeRun?.(child);
  const startedWith = workDone(child.state);
  try {
    return await drive(scope, child, mode, config, false, workspaceDir);
  } catch (error) {
    // A branch that stopped before doing anything of its own (it needs a decision first) is
    // not kept: the same command, with the decision, starts it again from the parent.
    const stopped = await engine.readSession(child.id).catch(() => null);
    if (stopped && workDone(stopped) === startedWith)
      await engine.deleteSession(child.id, { force: true }).catch(() => undefined);
    throw error;
  }
}

export async function branch(scope: RunnerScope, sessionId: string, input: BranchInput): Promise<RunResult> {
  const { engine } = scope;
  const id = await engine.resolveSessionId(sessionId);
  const state = await engine.readSession(id);
  const { mode, config } = readRunConfig(state, scope.modes);
  const at = findCheckpointSeq(state, input.at);
  if (at === null) {
    throw withNextStep(new UsageError(`Session ${id} has no checkpoint "${input.at}".`), {
      kind: 'list-checkpoints',
      sessionId: id,
    });
  }
  return branchFrom(scope, id, at, input.title ?? `${state.title} (branch)`, input.followUp ?? null, mode, config);
}
