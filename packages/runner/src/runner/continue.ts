// `runner.continue`: a follow-up on a finished session starts a child session whose models
// see the parent's history (compacted to a budget) or, with resetDiscussion, only its conclusion.
import path from 'node:path';
import { type EventInput, type MessageInput, UsageError } from '@resume/core/spec';
import { checkCompatibility } from '../resume/compatibility.js';
import {
  buildContinuationMessages,
  CONTINUATION_TAG,
  continuationPrompt,
  FOLLOW_UP_TAG,
} from '../resume/continuation.js';
import { lineageUsage, parentLineageRecord } from '../resume/lineage.js';
import { hashText } from '../workflow/spec-hash.js';
import { drive } from './drive.js';
import { applyOverrides, replaceModels } from './mode-overrides.js';
import { withNextStep } from './next-step.js';
import { cancelled } from './resume.js';
import { decideUnavailableModels } from './resume-checks.js';
import { isDirectory } from './resume-workspace.js';
import { RUN_OPTIONS_KEY, readRunConfig } from './run-config.js';
import { DEFAULT_BUDGET_TOKENS } from './run-config-building.js';
import type { RunnerScope } from './runner-scope.js';
import type { ContinueOptions, RunResult } from './runner-types.js';
import { createRunSession } from './session-setup.js';

export async function continueSession(
  scope: RunnerScope,
  sessionId: string,
  followUp: string,
  continueOptions: ContinueOptions = {},
): Promise<RunResult> {
  const { engine } = scope;
  const question = followUp.trim();
  if (question === '') throw withNextStep(new UsageError('The follow-up is empty.'), { kind: 'give-a-follow-up' });
  const id = await engine.resolveSessionId(sessionId);
  const parent = await engine.readSession(id);
  const parentRun = readRunConfig(parent, scope.modes);
  let messages: MessageInput[];
  if (continueOptions.resetDiscussion) {
    const conclusion = typeof parent.data.conclusion === 'string' ? parent.data.conclusion : null;
    const task = parent.messages.find((message) => message.tags?.includes('task'))?.content ?? null;
    messages = [
      {
        role: 'system',
        content: continuationPrompt({
          sessionId: id,
          title: parent.title,
          previousTask: task,
          previousConclusion: conclusion,
          followUp: question,
        }),
        speaker: null,
        round: null,
        tags: [CONTINUATION_TAG],
      },
      { role: 'user', content: question, speaker: 'user', round: null, tags: [FOLLOW_UP_TAG, 'task'] },
    ];
  } else {
    messages = buildContinuationMessages(parent, question, {
      budgetTokens: continueOptions.budgetTokens ?? DEFAULT_BUDGET_TOKENS,
      speaker: 'user',
      ...(parentRun.mode.roundUnit ? { roundUnit: parentRun.mode.roundUnit } : {}),
    }).messages;
  }
  // The parent's mode says what a follow-up runs as (itself, or e.g. a discussion of a workflow).
  const followUpConfig = parentRun.mode.followUp(parentRun.config, question, parent);
  const mode = scope.modes.get(followUpConfig.mode);
  let config = applyOverrides(mode, mode.configSchema.parse(followUpConfig), { ...continueOptions, newSession: true });
  // The child calls the parent's models (unless --models replaced them): check they are still offered.
  const { options } = scope;
  const availableModels = options.availableModels ? await options.availableModels().catch(() => null) : null;
  if (availableModels !== null) {
    const { findings } = checkCompatibility({
      state: parent,
      availableModels,
      ...(continueOptions.models?.length ? { modelsUsed: continueOptions.models } : {}),
    });
    const replacements = await decideUnavailableModels(findings, options.decisions);
    if (replacements === null) return cancelled(scope, parent, parentRun.config);
    config = replaceModels(mode, config, replacements);
  }
  const workspaceDir = followUpWorkspace(
    scope.options.workspaceDir,
    parent.header.workspaceDir,
    continueOptions.workspaceDir,
  );
  const session = await createRunSession(scope, {
    title: continueOptions.title ?? question.split('\n')[0]!.slice(0, 80),
    workspaceDir,
    config,
    record: {
      ...Object.fromEntries(Object.entries(parent.header.options).filter(([key]) => key !== RUN_OPTIONS_KEY)),
      ...parentLineageRecord((await lineageUsage(scope.engine, id)).total),
    },
    parentId: id,
    specHash: hashText(question),
    initialEvents: messages.map((message) => ({ type: 'message-added', message }) as EventInput),
  });
  return drive(scope, session, mode, config, false, workspaceDir);
}

/**
 * Where a follow-up works: the directory asked for, else the parent's recorded workspace while it
 * exists (a follow-up asked from another directory must not act there), else the runner's.
 */
export function followUpWorkspace(runnerWorkspaceDir: string, recorded: string | null, chosen?: string): string {
  if (chosen !== undefined) return path.resolve(runnerWorkspaceDir, chosen);
  return recorded !== null && isDirectory(recorded) ? recorded : runnerWorkspaceDir;
}
