// Chain mode: a workflow spec's steps in order. Agent steps keep a per-agent
// conversation; shell steps are one durable unsafe step whose attempts follow the
// spec's retry policy, with the `on_failure` agent step run between attempts.

import type { AttemptStart, RetryContext, StepContext, StepRecord } from '@resume/core';
import {
  type ChatMessage,
  ConfigError,
  type JsonValue,
  type MessageInput,
  type StoppedStepProcess,
} from '@resume/core/spec';
import { describeDuration } from '../config/duration.js';
import { RESUME_MESSAGE_TAG } from '../resume/continuation.js';
import { DEFAULT_MAX_ITERATIONS } from '../runner/run-config-building.js';
import { DEFAULT_MAX_PARALLEL } from '../workflow/map-limits.js';
import { memberKeyPrefix, stepIdOfKey, stepKeyPrefix, stepLabel, workflowStepTree } from '../workflow/step-ids.js';
import { renderTemplate, type StepResult, type TemplateScope } from '../workflow/template.js';
import {
  isGoalSeekStep,
  isMapStep,
  isParallelStep,
  isShellStep,
  isSleepStep,
  isValidateStep,
  type WorkflowAgentStep,
  type WorkflowLeafStep,
  type WorkflowShellStep,
} from '../workflow/workflow-spec.js';
import { runAgentTurn, toChatMessage } from './agent-turn.js';
import { runMapStep } from './chain-map.js';
import { type BranchRun, type GroupMember, runParallelGroup } from './chain-parallel.js';
import { runGoalSeekStep, runValidateStep } from './chain-scored.js';
import {
  type ChainOptions,
  type LeafRunner,
  type ShellOutput,
  type StepPlace,
  shellOutputSchema,
} from './chain-step.js';
import {
  type CheckpointAnnouncer,
  checkpoint,
  checkpointAnnouncer,
  ensureStepMessage,
  type ModeContext,
  type ModeResult,
  recordProgress,
  setData,
} from './mode-context.js';
import { runToolCall } from './orchestrated.js';
import { PARALLEL_GROUP_KEY } from './parallel-group-state.js';
import { commandAwareDecision } from './running-command.js';
import { type HeldShellCommand, holdShellCommand, ShellCommandFailedError } from './shell-command.js';
import { shellStepEnvironment } from './shell-environment.js';
import { StepTimedOutError } from './step-timed-out-error.js';
import { writeOutputFiles } from './workspace-output.js';

/** What a skipped shell step returns: its command may or may not have run, so nothing is known of it. */
const SKIPPED_SHELL_OUTPUT: ShellOutput = { exitCode: null, stdoutTail: '', stderrTail: '', attempt: 0, skipped: true };

async function runAgentStep(
  context: ModeContext,
  options: ChainOptions,
  key: string,
  agentName: string,
  input: string,
  round: number,
  branch: BranchRun | null = null,
  /** A checkpoint marked with the answer, in the same append (a map item's last step). */
  completionLabel?: (attempt: number) => string,
  /** How long one model call may take. */
  timeoutMs?: number,
): Promise<string> {
  const { session } = context;
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
  const agent = {
    name: agentName,
    systemPrompt: renderTemplate(
      declared.prompt,
      { variables: options.variables },
      { file: options.file, key: `agents.${agentName}.prompt` },
    ),
    ...(declared.model ? { model: declared.model } : {}),
    ...(declared.provider ? { provider: declared.provider } : {}),
  };
  const agentTag = `agent:${agentName}`;
  // Each agent continues its own conversation (the Strands model): its earlier inputs and answers.
  // This step's own messages (its input, tool calls and answer) are left out: a crash after they
  // were journaled must not show them twice.
  const ownStep = (tag: string) => tag === `step:${key}` || tag.startsWith(`step:${key}/`);
  // A branch of a parallel group writes its messages at the join (in the group's order, so the
  // transcript does not depend on which branch finished first); until then it sees its own.
  const ownConversation = (message: Pick<MessageInput, 'tags'>) =>
    message.tags?.includes(agentTag) === true && !(message.tags ?? []).some(ownStep);
  const kept: ChatMessage[] = (branch?.messages ?? [])
    .map(({ stepKey, message }) => stepMessage(stepKey, message))
    .filter(ownConversation)
    .map((message) => ({ role: message.role, content: message.content, speaker: message.speaker ?? null }));
  const history: ChatMessage[] = [...session.state.messages.filter(ownConversation).map(toChatMessage), ...kept];
  // Where the context is not exact (the workflow changed on resume) the resume message says so.
  const notes = session.state.messages
    .filter((message) => message.role === 'system' && message.tags?.includes(RESUME_MESSAGE_TAG))
    .map((message) => message.content);
  const write = (stepKey: string, message: MessageInput) =>
    branch ? branch.messages.push({ stepKey, message }) : ensureStepMessage(context, stepKey, message);
  write(`${key}/input`, { role: 'user', content: input, speaker: 'workflow', round, tags: [agentTag] });
  const tools = options.tools ?? [];
  const toolsByName = new Map(tools.map((tool) => [tool.definition.name, tool]));
  // The calls this step made and their results, rebuilt from the journal on a replay.
  const exchange: ChatMessage[] = [];
  for (let turn = 1; ; turn += 1) {
    // The first turn keeps the step's key: a step without tools is keyed as before.
    const turnKey = turn === 1 ? key : `${key}/turn-${turn}`;
    const lastTurn = turn >= DEFAULT_MAX_ITERATIONS;
    const output = await runAgentTurn(context, {
      key: turnKey,
      agent,
      system: [agent.systemPrompt, ...notes].join('\n\n'),
      messages: [...history, { role: 'user', content: input, speaker: 'workflow' }, ...exchange],
      ...(tools.length > 0 && !lastTurn ? { tools: tools.map((tool) => tool.definition) } : {}),
      round,
      metadata: { role: 'agent', round },
      // Keyed by stable id: a step inserted by an edit runs before the recorded ones after it.
      inserted: options.stepKeys === 'id',
      ...(branch ? { branch: branch.name } : {}),
      ...(completionLabel && (tools.length === 0 || lastTurn) ? { checkpointOnCompletion: completionLabel } : {}),
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    });
    if (output.toolCalls.length === 0 || lastTurn || tools.length === 0) {
      write(key, { role: 'assistant', content: output.content, speaker: agentName, round, tags: [agentTag] });
      return output.content;
    }
    const asked: ChatMessage = {
      role: 'assistant',
      content: output.content,
      speaker: agentName,
      toolCalls: output.toolCalls,
    };
    exchange.push(asked);
    write(`${key}/turn-${turn}/calls`, { ...asked, round, tags: [agentTag] });
    for (const [index, call] of output.toolCalls.entries()) {
      const toolKey = `${key}/turn-${turn}/tool-${index + 1}/${call.name}`;
      const outcome = await runToolCall(context, toolKey, call, toolsByName.get(call.name), branch?.name);
      const answer: ChatMessage = { role: 'tool', content: outcome.content, speaker: call.name, toolCallId: call.id };
      exchange.push(answer);
      write(toolKey, { ...answer, round, tags: [agentTag, ...(outcome.isError ? ['tool-error'] : [])] });
      // The outcome is durable before the next call: a crash never makes a finished call uncertain.
      await context.session.flush();
    }
  }
}

/** A message tagged with its step, as `ensureStepMessage` writes it (a branch keeps it until the join). */
function stepMessage(stepKey: string, message: MessageInput): MessageInput {
  return { ...message, tags: [...(message.tags ?? []), `step:${stepKey}`] };
}

/** The running attempt's place in its retry budget: a failure resumed later starts a new budget. */
function attemptInBudget(step: StepRecord): number {
  let start = step.attempts[0]?.attempt ?? 1;
  for (const attempt of step.attempts) {
    if (attempt.error !== null && !attempt.willRetry) start = attempt.attempt + 1;
  }
  return (step.attempts.at(-1)?.attempt ?? start) - start + 1;
}

function passedLabel(label: string, attempt: number): string {
  return `${label}, passed at attempt ${attempt}`;
}

async function runShellStep(
  context: ModeContext,
  options: ChainOptions,
  place: StepPlace,
  prefix: string,
  step: WorkflowShellStep,
  scope: TemplateScope,
  /** Main-line steps only: their completion goes with the next append (group commit). */
  announcer?: CheckpointAnnouncer,
): Promise<ShellOutput> {
  const { index, branch } = place;
  const key = `${prefix}/shell`;
  const stepId = stepIdOfKey(key) ?? place.number;
  const command = renderTemplate(step.shell, scope, { file: options.file, key: `${place.path}.shell` });
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
      { file: options.file, key: `${place.path}.on_failure.input` },
    );
    await runAgentStep(context, options, fixerKey(number), step.on_failure.agent, fixInput, index + 1, branch);
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
    // Inside a parallel group other steps are still running: no place to resume from, just durable.
    if (branch) await context.session.flush();
    else await checkpoint(context, `${place.label}, attempt ${retry.attemptInBudget}/${retry.maxAttempts}`);
  };
  // Each attempt's command is started held before its start is journaled, so the start records
  // its process; it runs once that start is durable (and never, if this process dies before).
  let held: HeldShellCommand | null = null;
  let stopped: StoppedStepProcess | null = null;
  const prepareAttempt = async ({ attempt }: { attempt: number }): Promise<AttemptStart> => {
    held?.cancel();
    held = holdShellCommand({
      command,
      cwd: context.workspaceDir,
      env: {
        ...shellStepEnvironment(context.env, step.env),
        CONCLAVE_SESSION_ID: context.session.id,
        // Steps are numbered from 1 wherever a number is shown ("step 2 of 3"); steps[1] in templates.
        ...place.env,
        CONCLAVE_STEP: place.stepName ?? step.name ?? step.id ?? place.number,
        CONCLAVE_ATTEMPT: String(attempt),
      },
      // The main line's command is the one thing running: live views show what it prints.
      ...(place.branch === null
        ? { onOutput: (text: string) => context.emit({ type: 'shell-output', step: stepId, text }) }
        : {}),
    });
    const start: AttemptStart = {
      ...(held.process ? { process: held.process } : {}),
      ...(stopped ? { stoppedProcess: stopped } : {}),
    };
    stopped = null;
    return start;
  };
  const attemptFn = async (stepContext: StepContext): Promise<ShellOutput> => {
    // This attempt's start is durable, and with it the completion of the step before.
    announcer?.now();
    // The step that just started is the last one recorded (or close to it): looked for from the end,
    // so a long workflow does not scan every step before it on each step.
    const record = context.session.state.steps.findLast((recorded) => recorded.key === key);
    context.emit({ type: 'progress', label: 'attempt', done: record ? attemptInBudget(record) : 1, total: attempts });
    const prepared = held;
    held = null;
    if (!prepared) throw new Error(`The command of step "${key}" was not prepared before its attempt.`);
    const result = await prepared.run(stepContext.signal, stepTimeout(context, options, step));
    if (result.exitCode !== 0) throw new ShellCommandFailedError(command, result);
    return { ...result, attempt: stepContext.attempt };
  };
  const onUncertain = context.onUncertain
    ? commandAwareDecision(context, place.label, context.onUncertain, (process) => {
        stopped = process;
      })
    : undefined;
  try {
    return await context.session.step(key, attemptFn, {
      prepareAttempt,
      safety: 'unsafe',
      retry: {
        attempts,
        backoff: { initialMs: backoffMs, factor: 1, maxMs: backoffMs },
        retryOn: (error) => ShellCommandFailedError.isInstance(error) || StepTimedOutError.isInstance(error),
      },
      codec: { encode: (value: ShellOutput) => value as JsonValue, decode: (value) => shellOutputSchema.parse(value) },
      skipValue: SKIPPED_SHELL_OUTPUT,
      beforeRetry,
      // The step's checkpoint goes in the same durable append as its completion, and on the main
      // line that append is the next step's start (or the one after the last step): one durable
      // write per step. A group's steps are checkpointed together at the join.
      ...(branch
        ? { branch: branch.name, ...(place.completionLabel ? { checkpointOnCompletion: place.completionLabel } : {}) }
        : {
            checkpointOnCompletion: (attempt: number) => passedLabel(place.label, attempt),
            ...(announcer ? { completionWithNextAppend: true } : {}),
          }),
      inserted: options.stepKeys === 'id',
      ...(onUncertain ? { onUncertain } : {}),
      ...(context.sleep ? { sleep: context.sleep } : {}),
    });
  } finally {
    // An attempt prepared and never run (its start could not be written, the run stopped): its held shell ends.
    (held as HeldShellCommand | null)?.cancel();
  }
}

/** How long one attempt of `step` may take: its `timeout:`, else the run's, else the spec's `defaults.timeout`. */
function stepTimeout(context: ModeContext, options: ChainOptions, step: WorkflowLeafStep): number | undefined {
  return step.timeout ?? context.stepTimeoutMs ?? options.spec.defaults?.timeout;
}

/** Whether the recorded chain progress is already at (or past) `step` of the same `total` steps. */
function reachedBefore(context: ModeContext, step: number, total: number): boolean {
  const recorded = context.session.state.data.chain;
  if (typeof recorded !== 'object' || recorded === null || Array.isArray(recorded)) return false;
  return recorded.totalSteps === total && typeof recorded.step === 'number' && recorded.step >= step;
}

/** Runs one agent or shell step (on the main line, as a member of a parallel group, for a map item). */
export const runLeafStep: LeafRunner = async (context, options, place, prefix, step, scope, announcer) => {
  if (isShellStep(step)) {
    const result = await runShellStep(context, options, place, prefix, step, scope, announcer);
    return { response: result.stdoutTail, exitCode: result.exitCode, skipped: result.skipped === true, shell: result };
  }
  const agentStep: WorkflowAgentStep = step;
  const input = renderTemplate(agentStep.input, scope, { file: options.file, key: `${place.path}.input` });
  const key = `${prefix}/${agentStep.agent}`;
  const response = await runAgentStep(
    context,
    options,
    key,
    agentStep.agent,
    input,
    place.index + 1,
    place.branch,
    place.completionLabel,
    stepTimeout(context, options, agentStep),
  );
  return { response, shell: null };
};

export async function runChain(context: ModeContext, options: ChainOptions): Promise<ModeResult> {
  const { spec } = options;
  const stepsById = new Map<string, StepResult>();
  const scope: TemplateScope & { steps: StepResult[] } = {
    variables: options.variables,
    steps: [],
    stepsById,
    lastResponse: null,
  };
  const total = spec.steps.length;
  // Steps are found in the journal by their stable id (position only in sessions recorded before ids).
  const tree = workflowStepTree(spec.steps);
  // Shell steps' checkpoints go in the next append (group commit): announced once durable.
  const announcer = checkpointAnnouncer(context);
  for (const [index, step] of spec.steps.entries()) {
    announcer.now();
    // Live views count the step that starts (`steps 3/4` while step 3 runs), from where the
    // journal left off: a resume does not count again through the steps it replays.
    if (!reachedBefore(context, index + 1, total))
      context.emit({ type: 'progress', label: 'steps', done: index + 1, total });
    recordProgress(context, 'steps', index, total);
    const ids = tree[index] ?? { id: String(index), members: null };
    const prefix = stepKeyPrefix(options.stepKeys, index, ids.id);
    if (isParallelStep(step)) {
      const members: GroupMember[] = step.parallel.map((member, at) => {
        const id = ids.members?.[at] ?? `${ids.id}.${at + 1}`;
        return {
          id,
          kind: isShellStep(member) ? 'shell' : 'agent',
          run: (branch, branchContext) =>
            runLeafStep(
              branchContext,
              options,
              {
                index,
                number: `${index + 1}.${at + 1}`,
                path: `steps[${index}].parallel[${at}]`,
                label: stepLabel(options.stepLabels, index, id, isShellStep(member) ? 'shell' : member.agent),
                branch,
              },
              memberKeyPrefix(options.stepKeys, index, at, id),
              member,
              scope,
              announcer,
            ),
          keys: isShellStep(member)
            ? [`${memberKeyPrefix(options.stepKeys, index, at, id)}/shell`]
            : [`${memberKeyPrefix(options.stepKeys, index, at, id)}/${member.agent}`],
        };
      });
      // What the resume plan shows of a group stopped halfway: its steps, found by branch
      // (written when the chain first reaches it; a replay of an earlier group writes nothing).
      if (!reachedBefore(context, index + 1, total)) {
        setData(context, PARALLEL_GROUP_KEY, {
          step: index + 1,
          totalSteps: total,
          id: ids.id,
          members: members.map((member) => member.id),
        });
      }
      const results = await runParallelGroup(context, {
        id: ids.id,
        number: index + 1,
        label: stepLabel(options.stepLabels, index, ids.id, 'parallel'),
        members,
        maxConcurrency:
          context.parallel === undefined
            ? (step.max_concurrency ?? members.length)
            : Math.min(context.parallel, context.maxParallel ?? DEFAULT_MAX_PARALLEL),
      });
      scope.steps.push({ response: null, group: true });
      for (const [at, result] of results.entries()) {
        const member = members[at];
        if (!member) continue;
        stepsById.set(member.id, result);
        if (member.kind === 'agent') scope.lastResponse = result.response;
      }
      stepsById.set(ids.id, { response: null, group: true });
    } else if (isMapStep(step)) {
      const result = await runMapStep(context, options, {
        index,
        id: ids.id,
        prefix,
        step,
        scope,
        runLeaf: runLeafStep,
      });
      scope.steps.push(result);
      stepsById.set(ids.id, result);
      if (result.lastResponse !== undefined) scope.lastResponse = result.lastResponse;
      await checkpoint(context, stepLabel(options.stepLabels, index, ids.id, 'map'), undefined, announcer);
    } else if (isValidateStep(step) || isGoalSeekStep(step)) {
      const label = stepLabel(options.stepLabels, index, ids.id, isValidateStep(step) ? 'validate' : 'goal_seek');
      const loop = { index, id: ids.id, prefix, label, scope, runLeaf: runLeafStep };
      const result = isValidateStep(step)
        ? await runValidateStep(context, options, step, loop)
        : await runGoalSeekStep(context, options, step, loop);
      scope.steps.push(result);
      stepsById.set(ids.id, result);
      if ('agent' in result && result.agent) scope.lastResponse = result.response;
      await checkpoint(context, label, undefined, announcer);
    } else if (isSleepStep(step)) {
      const label = stepLabel(options.stepLabels, index, ids.id, 'sleep');
      const key = `${prefix}/sleep`;
      const recorded = context.session.state.steps.find((each) => each.key === key && each.status === 'completed');
      if (!recorded) {
        const until = 'sleep' in step ? `for ${describeDuration(step.sleep)}` : `until ${step.sleep_until}`;
        context.emit({
          type: 'notice',
          text: `step ${index + 1}: sleeping ${until} (the session is listed as sleeping)`,
        });
      }
      if ('sleep' in step) await context.session.sleep(step.sleep, { key });
      else await context.session.sleepUntil(step.sleep_until, { key });
      const result = { response: null };
      scope.steps.push(result);
      stepsById.set(ids.id, result);
      await checkpoint(context, label, undefined, announcer);
    } else if (isShellStep(step)) {
      const markedAfter = context.session.state.lastSeq;
      const label = stepLabel(options.stepLabels, index, ids.id, 'shell');
      const place = { index, number: String(index + 1), path: `steps[${index}]`, label, branch: null };
      const result = await runLeafStep(context, options, place, prefix, step, scope, announcer);
      scope.steps.push(result);
      stepsById.set(ids.id, result);
      const marked = result.skipped ? `${label}, skipped` : passedLabel(label, result.shell?.attempt ?? 0);
      // Marked with the step's completion when it ran now (durable with the session's next
      // append, before anything else runs, and announced then); otherwise (replayed, skipped) here.
      await checkpoint(context, marked, markedAfter, announcer);
    } else {
      const label = stepLabel(options.stepLabels, index, ids.id, step.agent);
      const place = { index, number: String(index + 1), path: `steps[${index}]`, label, branch: null };
      const result = await runLeafStep(context, options, place, prefix, step, scope, announcer);
      scope.steps.push(result);
      stepsById.set(ids.id, result);
      scope.lastResponse = result.response;
      await checkpoint(context, label, undefined, announcer);
    }
    // Progress only moves forward: a step replayed from the journal on resume writes nothing again.
    if (!reachedBefore(context, index + 1, total)) setData(context, 'chain', { step: index + 1, totalSteps: total });
    context.emit({ type: 'usage', totals: context.session.state.usage });
  }
  // Live views were told of the last step when it started.
  recordProgress(context, 'steps', total, total);
  const artifacts = spec.outputs.artifacts.map((artifact, index) => ({
    path: artifact.path,
    content: renderTemplate(artifact.from, scope, { file: options.file, key: `outputs.artifacts[${index}].from` }),
  }));
  if (artifacts.length > 0) {
    await writeOutputFiles(context, 'write-artifacts', artifacts);
    await checkpoint(context, 'artifacts written', undefined, announcer);
  }
  await announcer.settle();
  const conclusion = scope.lastResponse ?? null;
  if (conclusion !== null) setData(context, 'conclusion', conclusion);
  return { conclusion };
}
