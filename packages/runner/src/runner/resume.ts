// `runner.resume`: an interrupted or failed session goes on in place, after the resume plan
// was shown and its decisions taken (files, models, the edited spec); from an earlier
// checkpoint it runs as a branch. Nothing is written before every check passed.
import type { Session, SessionState } from '@resume/core';
import { FileNotFoundError, RecoveryLimitError, UsageError } from '@resume/core/spec';
import type { Mode } from '../modes/mode.js';
import { buildResumeMessage } from '../resume/continuation.js';
import { describeSpecRule } from '../resume/spec-change.js';
import { hashText } from '../workflow/spec-hash.js';
import { branchFrom } from './branch.js';
import { drive } from './drive.js';
import { applyOverrides, replaceModels } from './mode-overrides.js';
import { modeSetup } from './mode-setup.js';
import { withNextStep } from './next-step.js';
import { planFor } from './plan.js';
import { keepReplacedFiles, prepareResume } from './resume-checks.js';
import { resumeCommandFor, startsFromOf } from './resume-command.js';
import { isDirectory } from './resume-workspace.js';
import { type RunConfig, readRunConfig } from './run-config.js';
import { currentSpecText } from './run-spec.js';
import type { RunnerScope } from './runner-scope.js';
import type { ResumeOptions, RunResult } from './runner-types.js';
import { announceMerge, checkResumeWorktree } from './worktree-run.js';

export function cancelled(scope: RunnerScope, state: SessionState, config: RunConfig): RunResult {
  scope.emit({ type: 'notice', text: 'Resume cancelled; nothing was changed.' });
  return {
    sessionId: state.header.id,
    status: 'interrupted',
    conclusion: null,
    resumeCommand: resumeCommandFor(state.header.id, config.mode, scope.modes),
    usage: state.usage,
    error: null,
    cancelled: true,
  };
}

export async function resume(
  scope: RunnerScope,
  sessionId: string,
  resumeOptions: ResumeOptions = {},
  /** Journals what the caller asked for once the session is open, before its mode runs (a map item retry). */
  beforeRun?: (session: Session) => void,
): Promise<RunResult> {
  const { engine, options, emit } = scope;
  const id = await engine.resolveSessionId(sessionId);
  const state = await engine.readSession(id);
  if (state.status === 'completed') {
    throw withNextStep(new UsageError(`Session ${id} is already completed; there is nothing to resume.`), {
      kind: 'ask-follow-up',
      sessionId: id,
    });
  }
  const recorded = readRunConfig(state, scope.modes);
  const { mode } = recorded;
  // The mode's modules load while the plan is made and the session opened (their disk waits).
  mode.preload?.();
  let config = applyOverrides(mode, recorded.config, resumeOptions);
  const useEditedSpec = resumeOptions.useEditedSpec ?? false;
  const resumePlan = await planFor(scope, state, {
    ...(resumeOptions.startChunk !== undefined ? { startChunk: resumeOptions.startChunk } : {}),
    ...(resumeOptions.fromCheckpoint !== undefined ? { fromCheckpoint: resumeOptions.fromCheckpoint } : {}),
    ...(resumeOptions.workspaceDir !== undefined ? { workspaceDir: resumeOptions.workspaceDir } : {}),
    useEditedSpec,
  });
  const workspace = resumePlan.changes.workspace;
  const workspaceDir = workspace?.runsIn ?? options.workspaceDir;
  // A worktree run goes on only in its worktree as the session left it (nothing is written before).
  const worktree = await checkResumeWorktree(scope, state, {
    force: resumeOptions.force ?? false,
    otherWorkspace: resumeOptions.workspaceDir !== undefined,
  });
  // A discussion reads and writes no files; every other built-in mode works in its workspace.
  if (mode.usesWorkspace && (workspace?.missing || !isDirectory(workspaceDir))) {
    throw withNextStep(
      new FileNotFoundError(
        workspaceDir,
        `Session ${id} runs in ${workspaceDir}, which no longer exists; nothing was run.`,
      ),
      { kind: 'resume-in-another-workspace', sessionId: id, startsFrom: startsFromOf(config.mode, scope.modes) },
    );
  }
  // Checked before anything is written: an invalid edit is a usage error, not a half-started resume.
  const editedSpec = useEditedSpec ? await editedSpecText(scope, state, mode, config, workspaceDir) : null;
  if (resumePlan.costWarning !== null) scope.emit({ type: 'notice', text: resumePlan.costWarning });
  const prepared = await prepareResume({
    plan: resumePlan,
    force: resumeOptions.force ?? false,
    decisions: options.decisions,
    emit,
    store: engine.store,
    workspaceDir,
  });
  if (prepared === null) return cancelled(scope, state, config);
  config = replaceModels(mode, config, prepared.replacements);
  if (editedSpec?.config) config = editedSpec.config;
  if (resumePlan.checkpoint && resumeOptions.fromCheckpoint !== undefined) {
    // The journal is append-only: going back to an earlier checkpoint starts a branch from it.
    return branchFrom(
      scope,
      id,
      resumePlan.checkpoint.seq,
      `${state.title} (from ${resumePlan.checkpoint.label ?? `seq ${resumePlan.checkpoint.seq}`})`,
      null,
      mode,
      config,
      workspaceDir,
      (child) => keepReplacedFiles(child, prepared.replacedFiles, emit),
    );
  }
  const session = await engine
    .openSession(id, {
      replay: 'keyed',
      ...(scope.options.maxRecoveries !== undefined ? { maxRecoveries: scope.options.maxRecoveries } : {}),
      ...(resumeOptions.force ? { force: true } : {}),
    })
    .catch((error: unknown) => {
      if (!RecoveryLimitError.isInstance(error)) throw error;
      throw withNextStep(error, {
        kind: 'resume-past-recovery-limit',
        sessionId: id,
        startsFrom: startsFromOf(config.mode, scope.modes),
      });
    });
  await keepReplacedFiles(session, prepared.replacedFiles, emit);
  if (editedSpec) {
    // The edited spec runs from here on (asked for, and the compatibility check let it
    // through); the models are told their context changed.
    session.record({ type: 'spec-recorded', ...editedSpec.record });
    session.addMessage(buildResumeMessage(session.state, 'workflow-changed'));
    emit({
      type: 'notice',
      text: `${editedSpec.record.path} changed since the session started; resuming with the edited version (--use-edited-spec).`,
    });
  } else if (resumePlan.spec?.changed) {
    emit({ type: 'notice', text: `${describeSpecRule(resumePlan.spec)}.` });
  }
  beforeRun?.(session);
  const result = await drive(scope, session, mode, config, true, workspaceDir);
  if (worktree) announceMerge(scope, id, worktree, result);
  return result;
}

/**
 * The spec file as it is now when it differs from the recorded one, checked by its mode,
 * with the run configuration it implies (a prompt file's tools, model and iterations; null:
 * unchanged); null when the file did not change.
 */
async function editedSpecText(
  scope: RunnerScope,
  state: SessionState,
  mode: Mode,
  config: RunConfig,
  workspaceDir: string,
) {
  const specFile = mode.spec;
  const specPath = specFile?.path(config) ?? null;
  const recorded = specFile ? [...state.specs].reverse().find((entry) => entry.kind === specFile.kind) : undefined;
  const text = await currentSpecText(scope, mode, config, workspaceDir);
  if (!specFile || !specPath || !recorded || text === null || hashText(text) === recorded.hash) return null;
  const record = { kind: specFile.kind, path: specPath, hash: hashText(text), blob: null, content: text } as const;
  return { record, config: await specFile.adoptEdited(text, config, modeSetup(scope)) };
}
