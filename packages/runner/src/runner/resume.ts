// `runner.resume`: an interrupted or failed session goes on in place, after the resume plan
// was shown and its decisions taken (files, models, the edited spec); from an earlier
// checkpoint it runs as a branch. Nothing is written before every check passed.
import type { SessionState } from '@resume/core';
import { FileNotFoundError, RecoveryLimitError, UsageError } from '@resume/core/spec';
import { buildResumeMessage } from '../resume/continuation.js';
import { describeSpecRule } from '../resume/spec-change.js';
import { parsePromptFile } from '../workflow/prompt-file.js';
import { checkWorkflow, hashText, parseWorkflowSpec } from '../workflow/workflow-spec.js';
import { branchFrom } from './branch.js';
import { drive } from './drive.js';
import { plan } from './plan.js';
import { prepareResume } from './resume-checks.js';
import { resumeCommandFor, specKindOf, specPathOf } from './resume-command.js';
import { isDirectory } from './resume-workspace.js';
import { type RunConfig, readRunConfig } from './run-config.js';
import { applyOverrides, replaceModels } from './run-config-building.js';
import { currentSpecText } from './run-spec.js';
import { checkRequestedTools } from './run-tools.js';
import type { RunnerScope } from './runner-scope.js';
import type { ResumeOptions, RunResult } from './runner-types.js';

export function cancelled(scope: RunnerScope, state: SessionState, config: RunConfig): RunResult {
  scope.emit({ type: 'notice', text: 'Resume cancelled; nothing was changed.' });
  return {
    sessionId: state.header.id,
    status: 'interrupted',
    conclusion: null,
    resumeCommand: resumeCommandFor(state.header.id, config.mode),
    usage: state.usage,
    error: null,
    cancelled: true,
  };
}

export async function resume(
  scope: RunnerScope,
  sessionId: string,
  resumeOptions: ResumeOptions = {},
): Promise<RunResult> {
  const { engine, options, emit } = scope;
  const id = await engine.resolveSessionId(sessionId);
  const state = await engine.readSession(id);
  if (state.status === 'completed') {
    throw new UsageError(`Session ${id} is already completed; there is nothing to resume.`, {
      hint: `Ask a follow-up instead: conclave --resume ${id} "your question"`,
    });
  }
  let config = applyOverrides(readRunConfig(state), resumeOptions);
  const useEditedSpec = resumeOptions.useEditedSpec ?? false;
  const resumePlan = await plan(scope, id, {
    ...(resumeOptions.startChunk !== undefined ? { startChunk: resumeOptions.startChunk } : {}),
    ...(resumeOptions.fromCheckpoint !== undefined ? { fromCheckpoint: resumeOptions.fromCheckpoint } : {}),
    ...(resumeOptions.workspaceDir !== undefined ? { workspaceDir: resumeOptions.workspaceDir } : {}),
    useEditedSpec,
  });
  const workspace = resumePlan.changes.workspace;
  const workspaceDir = workspace?.runsIn ?? options.workspaceDir;
  // A discussion reads and writes no files; every other mode works in its workspace.
  if (config.mode !== 'discussion' && (workspace?.missing || !isDirectory(workspaceDir))) {
    throw new FileNotFoundError(
      workspaceDir,
      `Session ${id} runs in ${workspaceDir}, which no longer exists; nothing was run.`,
      { hint: `Resume it in another directory: ${resumeCommandFor(id, config.mode)} --workspace <dir>` },
    );
  }
  // Checked before anything is written: an invalid edit is a usage error, not a half-started resume.
  const editedSpec = useEditedSpec ? await editedSpecText(scope, state, config, workspaceDir) : null;
  if (resumePlan.costWarning !== null) scope.emit({ type: 'notice', text: resumePlan.costWarning });
  const replacements = await prepareResume({
    plan: resumePlan,
    force: resumeOptions.force ?? false,
    decisions: options.decisions,
    emit,
    store: engine.store,
    workspaceDir,
  });
  if (replacements === null) return cancelled(scope, state, config);
  config = replaceModels(config, replacements);
  if (editedSpec?.config) config = editedSpec.config;
  if (resumePlan.checkpoint && resumeOptions.fromCheckpoint !== undefined) {
    // The journal is append-only: going back to an earlier checkpoint starts a branch from it.
    return branchFrom(
      scope,
      id,
      resumePlan.checkpoint.seq,
      `${state.title} (from ${resumePlan.checkpoint.label ?? `seq ${resumePlan.checkpoint.seq}`})`,
      null,
      config,
      workspaceDir,
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
      throw new RecoveryLimitError(
        { sessionId: error.sessionId, recoveries: error.recoveries, limit: error.limit, stepKey: error.stepKey },
        {
          hint: [
            `Resume it anyway with: ${resumeCommandFor(id, config.mode)} --force (the limit is resume.maxRecoveries in the config),`,
            `or inspect it with: conclave sessions show ${id} --transcript and branch from a good checkpoint (conclave checkpoints list ${id}).`,
          ].join('\n'),
        },
      );
    });
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
  return drive(scope, session, config, true, workspaceDir);
}

/**
 * The spec file as it is now when it differs from the recorded one, validated, with the run
 * configuration it implies (a prompt file's tools, model and iterations); null when unchanged.
 */
async function editedSpecText(scope: RunnerScope, state: SessionState, config: RunConfig, workspaceDir: string) {
  const kind = specKindOf(config);
  const specPath = specPathOf(config);
  const recorded = kind === null ? undefined : [...state.specs].reverse().find((entry) => entry.kind === kind);
  const text = await currentSpecText(scope, config, workspaceDir);
  if (!kind || !specPath || !recorded || text === null || hashText(text) === recorded.hash) return null;
  const record = { kind, path: specPath, hash: hashText(text), blob: null, content: text } as const;
  if (config.mode === 'chain') {
    const spec = parseWorkflowSpec(text, specPath);
    checkWorkflow(spec, specPath, Object.keys(config.variables));
    return { record, config: null };
  }
  if (config.mode !== 'prompt') return { record, config: null };
  const prompt = parsePromptFile(text, specPath);
  checkRequestedTools(scope, prompt.frontMatter.tools, specPath);
  const edited: RunConfig = {
    ...config,
    lead: {
      ...config.lead,
      ...(prompt.frontMatter.model ? { model: prompt.frontMatter.model } : {}),
      ...(prompt.frontMatter.provider ? { provider: prompt.frontMatter.provider } : {}),
    },
    tools: prompt.frontMatter.tools,
    maxIterations: prompt.frontMatter.max_iterations ?? config.maxIterations,
  };
  return { record, config: edited };
}
