// The steps a chain runs: agent steps keep a per-agent conversation; shell steps are one
// durable unsafe step whose attempts follow the spec's retry policy, with the `on_failure`
// agent step run between attempts. Shared by the workflow's main line and map items.

import type { RetryContext, StepContext, StepRecord } from '@resume/core';
import { type ChatMessage, ConfigError, type JsonValue } from '@resume/core/spec';
import { z } from 'zod';
import { RESUME_MESSAGE_TAG } from '../resume/continuation.js';
import type { StepKeyScheme } from '../workflow/step-ids.js';
import { renderTemplate, type TemplateScope } from '../workflow/template.js';
import type { WorkflowShellStep, WorkflowSpec } from '../workflow/workflow-spec.js';
import type { AgentSpec } from './agent-spec.js';
import { runAgentTurn, toChatMessage } from './agent-turn.js';
import { checkpoint, ensureStepMessage, type ModeContext } from './mode-context.js';
import { runShellCommand, ShellCommandFailedError } from './shell-command.js';

export interface ChainOptions {
  spec: WorkflowSpec;
  /** The spec's file, for error messages. */
  file: string | null;
  variables: Record<string, string>;
  /** How the session keys its steps (recorded at its start; by position before step ids). */
  stepKeys: StepKeyScheme;
}

const shellOutputSchema = z.object({
  /** Null when the step was skipped (an uncertain run the user chose not to repeat). */
  exitCode: z.number().int().nullable(),
  stdoutTail: z.string(),
  stderrTail: z.string(),
  /** 0 when skipped. */
  attempt: z.number().int().nonnegative(),
  skipped: z.boolean().optional(),
});
/** What a skipped shell step returns: its command may or may not have run, so nothing is known of it. */
const SKIPPED_SHELL_OUTPUT: ShellOutput = { exitCode: null, stdoutTail: '', stderrTail: '', attempt: 0, skipped: true };
export type ShellOutput = z.infer<typeof shellOutputSchema>;

/** A declared agent as the model resolver takes it, with its prompt rendered. */
function agentFor(options: ChainOptions, agentName: string): AgentSpec {
  const declared = options.spec.agents[agentName];
  if (!declared) {
    // checkWorkflow catches this before a run starts; kept for specs built in code.
    throw new ConfigError({
      file: options.file,
      key: 'agents',
      problem: `unknown agent "${agentName}"`,
      fix: 'Declare it under agents:.',
    });
  }
  return {
    name: agentName,
    systemPrompt: renderTemplate(
      declared.prompt,
      { variables: options.variables },
      { file: options.file, key: `agents.${agentName}.prompt` },
    ),
    ...(declared.model ? { model: declared.model } : {}),
    ...(declared.provider ? { provider: declared.provider } : {}),
  };
}

/** Where the context is not exact (the workflow changed on resume) the resume message says so. */
export function resumeNotes(context: ModeContext): string[] {
  return context.session.state.messages
    .filter((message) => message.role === 'system' && message.tags?.includes(RESUME_MESSAGE_TAG))
    .map((message) => message.content);
}

export async function runAgentStep(
  context: ModeContext,
  options: ChainOptions,
  key: string,
  agentName: string,
  input: string,
  round: number,
): Promise<string> {
  const { session } = context;
  const agent = agentFor(options, agentName);
  const agentTag = `agent:${agentName}`;
  // Each agent continues its own conversation (the Strands model): its earlier inputs and answers.
  // This step's own input is left out: a crash after it was journaled must not show it twice.
  const ownTags = [`step:${key}/input`, `step:${key}`];
  const history: ChatMessage[] = session.state.messages
    .filter((message) => message.tags?.includes(agentTag) && !ownTags.some((tag) => message.tags?.includes(tag)))
    .map(toChatMessage);
  const notes = resumeNotes(context);
  ensureStepMessage(context, `${key}/input`, {
    role: 'user',
    content: input,
    speaker: 'workflow',
    round,
    tags: [agentTag],
  });
  const output = await runAgentTurn(context, {
    key,
    agent,
    system: [agent.systemPrompt, ...notes].join('\n\n'),
    messages: [...history, { role: 'user', content: input, speaker: 'workflow' }],
    round,
    metadata: { role: 'agent', round },
    // Keyed by stable id: a step inserted by an edit runs before the recorded ones after it.
    inserted: options.stepKeys === 'id',
  });
  ensureStepMessage(context, key, {
    role: 'assistant',
    content: output.content,
    speaker: agentName,
    round,
    tags: [agentTag],
  });
  return output.content;
}

/** What an agent step of a map item says: its input and answer, published in item order. */
export interface ItemTurn {
  key: string;
  input: string;
  answer: string;
  agent: string;
}

/**
 * An agent step of a map item: the agent sees only this item's earlier turns (items run
 * concurrently, so another item's turns would make its input depend on timing); its
 * messages are returned, not journaled, so the transcript lists items in item order.
 */
export async function runItemAgentStep(
  context: ModeContext,
  options: ChainOptions,
  turn: {
    key: string;
    agentName: string;
    input: string;
    /** This item's earlier turns of the same agent. */
    history: ChatMessage[];
    round: number;
    branch: string;
    completionLabel?: ((attempt: number) => string) | undefined;
  },
): Promise<ItemTurn> {
  const agent = agentFor(options, turn.agentName);
  const output = await runAgentTurn(context, {
    key: turn.key,
    agent,
    system: [agent.systemPrompt, ...resumeNotes(context)].join('\n\n'),
    messages: [...turn.history, { role: 'user', content: turn.input, speaker: 'workflow' }],
    round: turn.round,
    metadata: { role: 'agent', round: turn.round },
    inserted: options.stepKeys === 'id',
    quiet: true,
    branch: turn.branch,
    ...(turn.completionLabel ? { checkpointOnCompletion: turn.completionLabel } : {}),
  });
  return { key: turn.key, input: turn.input, answer: output.content, agent: turn.agentName };
}

/**
 * Where a step runs: in the workflow's main line, or for an item of a map step (in the
 * item's branch, with its environment and labels).
 */
export interface StepPlace {
  /** The journal key prefix of the step (`step[tests]`, `step[review]/item/a.ts/lint`). */
  prefix: string;
  /** Where the step stands in the spec, for template errors (`steps[2]`, `steps[2].map.do[0]`). */
  specKey: string;
  /** How checkpoint labels name the step (`step 3`, `step 3 item a.ts, do 1`). */
  label: string;
  /** `CONCLAVE_STEP` of a shell step. */
  stepName: string;
  round: number;
  /** The concurrent branch (a map item); absent in the main line. */
  branch?: string;
  /** More environment for shell steps (a map item's CONCLAVE_ITEM_*). */
  env?: Record<string, string>;
  /** The checkpoint marked with the step's completion (main line: `step N shell, passed at attempt K`). */
  completionLabel?: (attempt: number) => string;
  /** Runs an on_failure fixer turn under this key. */
  fixer: (key: string, agentName: string, input: string) => Promise<unknown>;
  /** No attempt progress events (map items report their own progress). */
  quiet?: boolean;
}

/** The running attempt's place in its retry budget: a failure resumed later starts a new budget. */
function attemptInBudget(step: StepRecord): number {
  let start = step.attempts[0]?.attempt ?? 1;
  for (const attempt of step.attempts) {
    if (attempt.error !== null && !attempt.willRetry) start = attempt.attempt + 1;
  }
  return (step.attempts.at(-1)?.attempt ?? start) - start + 1;
}

export function passedLabel(index: number, attempt: number): string {
  return `step ${index + 1} shell, passed at attempt ${attempt}`;
}

export async function runShellStep(
  context: ModeContext,
  options: ChainOptions,
  place: StepPlace,
  step: WorkflowShellStep,
  scope: TemplateScope,
): Promise<ShellOutput> {
  const { prefix } = place;
  const key = `${prefix}/shell`;
  const command = renderTemplate(step.shell, scope, { file: options.file, key: `${place.specKey}.shell` });
  const attempts = step.retry?.attempts ?? 1;
  const backoffMs = step.retry?.backoff ?? 0;
  const fixerKey = (number: number) => `${prefix}/on-failure-${number}`;
  const fixersCalled = new Set<number>();
  const runFixer = async (number: number, error: string) => {
    if (!step.on_failure) return;
    fixersCalled.add(number);
    const fixInput = renderTemplate(
      step.on_failure.input,
      { ...scope, error },
      { file: options.file, key: `${place.specKey}.on_failure.input` },
    );
    await place.fixer(fixerKey(number), step.on_failure.agent, fixInput);
  };
  // Between a failed attempt and the next one, before the next attempt is journaled as
  // started: an interrupt during the fixer or the wait leaves the step failed-and-retrying,
  // never an uncertain attempt that did not run, and the checkpoint is a clean place to resume
  // or branch from.
  const beforeRetry = async (retry: RetryContext) => {
    const lastFailure = retry.previousFailures.at(-1);
    if (step.on_failure && lastFailure) {
      // A resume can start at a later attempt: the fixer steps recorded before it are replayed
      // first (their outputs come from the journal), so the journal's step order is kept.
      for (let number = 1; number < retry.attempt - 1; number += 1) {
        const recorded = context.session.state.steps.some((recordedStep) => recordedStep.key === fixerKey(number));
        if (recorded && !fixersCalled.has(number)) {
          await runFixer(number, retry.previousFailures[number - 1]?.message ?? lastFailure.message);
        }
      }
      // Its own durable step: a resume after it does not ask the fixer twice.
      if (!fixersCalled.has(retry.attempt - 1)) await runFixer(retry.attempt - 1, lastFailure.message);
    }
    // Marks "attempt 3/5 of step 2 is next": the failures before it are durable and addressable.
    await checkpoint(context, `${place.label} shell, attempt ${retry.attemptInBudget}/${retry.maxAttempts}`);
  };
  const attemptFn = async (stepContext: StepContext): Promise<ShellOutput> => {
    if (!place.quiet) {
      const record = context.session.state.steps.find((recorded) => recorded.key === key);
      context.emit({ type: 'progress', label: 'attempt', done: record ? attemptInBudget(record) : 1, total: attempts });
    }
    const result = await runShellCommand({
      command,
      cwd: context.workspaceDir,
      env: {
        ...context.env,
        ...place.env,
        CONCLAVE_SESSION_ID: context.session.id,
        CONCLAVE_STEP: place.stepName,
        CONCLAVE_ATTEMPT: String(stepContext.attempt),
      },
      signal: stepContext.signal,
    });
    if (result.exitCode !== 0) throw new ShellCommandFailedError(command, result);
    return { ...result, attempt: stepContext.attempt };
  };
  return context.session.step(key, attemptFn, {
    safety: 'unsafe',
    retry: {
      attempts,
      backoff: { initialMs: backoffMs, factor: 1, maxMs: backoffMs },
      retryOn: (error) => ShellCommandFailedError.isInstance(error),
    },
    codec: { encode: (value: ShellOutput) => value as JsonValue, decode: (value) => shellOutputSchema.parse(value) },
    skipValue: SKIPPED_SHELL_OUTPUT,
    beforeRetry,
    // The step's checkpoint goes in the same durable append as its completion.
    ...(place.completionLabel ? { checkpointOnCompletion: place.completionLabel } : {}),
    inserted: options.stepKeys === 'id',
    ...(place.branch !== undefined ? { branch: place.branch } : {}),
    ...(context.onUncertain ? { onUncertain: context.onUncertain } : {}),
    ...(context.sleep ? { sleep: context.sleep } : {}),
  });
}
