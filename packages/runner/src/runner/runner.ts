// The runner: what the CLI and the TUI call to start, resume, continue and branch runs.
// It turns a request into a session (recording how it runs), drives the mode, and turns
// the outcome into a RunResult; interrupts abort the in-flight call and leave a
// resumable journal. Choices it cannot make alone go to `decisions`, or become typed errors.
import { statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Session, SessionState } from '@resume/core';
import {
  type EventInput,
  FileNotFoundError,
  IncompatibleSessionError,
  InterruptedError,
  type JsonValue,
  type MessageInput,
  StepAbortedError,
  UncertainStepError,
  UsageError,
} from '@resume/core/spec';
import { compareWorkspaceFiles } from '../files/file-snapshots.js';
import { compareGitState, compareWorkspaceDirectory, readGitState } from '../files/git-state.js';
import { defaultJudge, defaultLead } from '../modes/agent-spec.js';
import { runChain } from '../modes/chain.js';
import { runDiscussion } from '../modes/discussion.js';
import { runIterative } from '../modes/iterative.js';
import type { ModeContext, ModeResult, ModeTool } from '../modes/mode-context.js';
import { runOrchestrated } from '../modes/orchestrated.js';
import { adaptWorkspaceTools } from '../modes/workspace-tool-adapter.js';
import { checkCompatibility } from '../resume/compatibility.js';
import {
  buildContinuationMessages,
  buildResumeMessage,
  CONTINUATION_TAG,
  continuationPrompt,
  FOLLOW_UP_TAG,
} from '../resume/continuation.js';
import { lineageUsage } from '../resume/lineage.js';
import { buildResumePlan, type ResumePlan } from '../resume/resume-plan.js';
import { describeSpecChange, describeSpecRule } from '../resume/spec-change.js';
import { createWorkspaceTools } from '../tools/workspace-tools.js';
import { type CostGuard, createCostGuard } from '../usage/cost-guard.js';
import { CostLimitError } from '../usage/cost-limit-error.js';
import { parsePromptFile } from '../workflow/prompt-file.js';
import { renderTemplate } from '../workflow/template.js';
import {
  checkWorkflow,
  hashText,
  parseWorkflowSpec,
  resolveVariables,
  type WorkflowSpec,
} from '../workflow/workflow-spec.js';
import { checkToolNames } from './check-tool-names.js';
import { describeNext, findCheckpointSeq } from './describe-next.js';
import { estimateRemaining } from './estimate-remaining.js';
import { prepareResume } from './resume-checks.js';
import { RUN_OPTIONS_KEY, type RunConfig, readRunConfig, runConfigAsJson } from './run-config.js';
import {
  applyOverrides,
  checkAgentNames,
  childConfig,
  completeAgent,
  DEFAULT_BUDGET_TOKENS,
  DEFAULT_CHUNK_SIZE,
  DEFAULT_MAX_ITERATIONS,
  DEFAULT_MAX_ROUNDS,
  discussionAgents,
  positiveInteger,
  replaceModels,
} from './run-config-building.js';
import type { RunEvent } from './run-event.js';
import type {
  BranchInput,
  ContinueOptions,
  PlanOptions,
  ResumeOptions,
  Runner,
  RunnerOptions,
  RunResult,
  StartInput,
  WorkflowInput,
} from './runner-types.js';

export type {
  AgentInput,
  BranchInput,
  ContinueOptions,
  ModelDecision,
  ModelUnavailableFinding,
  ResumeOptions,
  RunDecisions,
  Runner,
  RunnerOptions,
  RunResult,
  StartInput,
  StartOptions,
  ToolFactoryInput,
  WorkflowInput,
} from './runner-types.js';

/** The cost limit that stopped a run, also when it surfaced inside a step (an on_failure fix). */
function costLimitIn(error: unknown): CostLimitError | null {
  for (let current = error, depth = 0; current && depth < 5; depth += 1) {
    if (CostLimitError.isInstance(current)) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}

export function resumeCommandFor(sessionId: string, mode: string): string {
  return mode === 'chain' || mode === 'prompt'
    ? `conclave run --resume ${sessionId}`
    : `conclave --resume ${sessionId}`;
}

function specPathOf(config: RunConfig): string | null {
  return config.mode === 'chain' ? config.workflowPath : config.mode === 'prompt' ? config.promptPath : null;
}

function specKindOf(config: RunConfig): 'workflow' | 'prompt' | null {
  return config.mode === 'chain' ? 'workflow' : config.mode === 'prompt' ? 'prompt' : null;
}

/** Steps attempted and messages written: what tells a session that did something from one that did not. */
function workDone(state: SessionState): number {
  return (
    state.messages.length +
    state.steps.reduce((sum, step) => sum + step.attempts.length + (step.status === 'skipped' ? 1 : 0), 0)
  );
}

function isDirectory(directory: string): boolean {
  try {
    return statSync(directory).isDirectory();
  } catch {
    return false;
  }
}

function taskMessage(task: string): EventInput {
  return {
    type: 'message-added',
    message: { role: 'user', content: task, speaker: 'user', round: null, tags: ['task'] },
  };
}

export function createRunner(options: RunnerOptions): Runner {
  const { engine } = options;
  const emit = (event: RunEvent) => options.onEvent?.(event);
  const readTextFile = options.readTextFile ?? ((filePath: string) => readFile(filePath, 'utf8'));
  const resolvePath = (filePath: string, workspaceDir = options.workspaceDir) => path.resolve(workspaceDir, filePath);
  let current: Session | null = null;
  let interruptRequested: string | null = null;

  async function readInput(filePath: string): Promise<string> {
    try {
      return await readTextFile(resolvePath(filePath));
    } catch (error) {
      if ((error as { code?: string }).code === 'ENOENT') {
        throw new FileNotFoundError(filePath, `File not found: ${filePath} (looked in ${options.workspaceDir}).`, {
          hint: 'Check the path; relative paths are read from the workspace directory.',
        });
      }
      throw error;
    }
  }

  async function recordedSpecText(state: SessionState, kind: 'workflow' | 'prompt' | 'project'): Promise<string> {
    const spec = [...state.specs].reverse().find((entry) => entry.kind === kind);
    if (spec?.content !== undefined) return spec.content;
    if (spec?.blob) {
      const content = await engine.store.getBlob(spec.blob);
      if (content) return Buffer.from(content).toString('utf8');
    }
    throw new IncompatibleSessionError(state.header.id, [`its recorded ${kind} text is missing from the store`]);
  }

  /** The run's cost guard, or null without limits (ancestors' cost is fixed for the run). */
  async function costGuardFor(session: Session): Promise<CostGuard | null> {
    const limits = {
      maxCostUsd: options.limits?.maxCostUsd ?? null,
      maxLineageCostUsd: options.limits?.maxLineageCostUsd ?? null,
    };
    if (limits.maxCostUsd === null && limits.maxLineageCostUsd === null) return null;
    let ancestorsUsd = 0;
    if (limits.maxLineageCostUsd !== null && session.state.header.parentId !== null) {
      const lineage = await lineageUsage(engine, session.state.header.parentId);
      ancestorsUsd = lineage.sessions.reduce((sum, entry) => sum + (entry.usage.costUsd ?? 0), 0);
    }
    return createCostGuard({
      limits,
      state: () => session.state,
      sessionId: session.id,
      ancestorsUsd,
      onUnknownPrice: (model) =>
        emit({
          type: 'notice',
          text: `The price of model ${model} is unknown: its calls cannot be counted towards the cost limit.`,
        }),
    });
  }

  async function modeContext(session: Session, workspaceDir: string): Promise<ModeContext> {
    return {
      costGuard: await costGuardFor(session),
      session,
      store: engine.store,
      models: options.models,
      workspaceDir,
      env: options.env ?? {},
      emit,
      ...(options.decisions?.uncertainStep ? { onUncertain: options.decisions.uncertainStep } : {}),
      ...(options.sleep ? { sleep: options.sleep } : {}),
    };
  }

  function workspaceTools(workspaceDir = options.workspaceDir) {
    return createWorkspaceTools({
      root: workspaceDir,
      ...(options.allowCommands ? { allowCommands: options.allowCommands } : {}),
    });
  }

  /** Tool names a run may ask for, known before any session exists (null: the factory decides). */
  function availableToolNames(): string[] | null {
    if (options.availableToolNames) return [...options.availableToolNames];
    return options.createTools ? null : workspaceTools().names;
  }

  function checkRequestedTools(names: string[], file: string | null): void {
    const available = availableToolNames();
    if (available !== null && names.length > 0) checkToolNames(names, available, file);
  }

  function tools(session: Session, names: string[], file: string | null, workspaceDir: string): ModeTool[] {
    const available = options.createTools
      ? options.createTools({ workspaceDir, session, names })
      : adaptWorkspaceTools(workspaceTools(workspaceDir), { session, store: engine.store });
    if (names.length === 0) return available;
    checkToolNames(
      names,
      available.map((tool) => tool.definition.name),
      file,
    );
    return available.filter((tool) => names.includes(tool.definition.name));
  }

  async function runMode(context: ModeContext, config: RunConfig): Promise<ModeResult> {
    const { workspaceDir } = context;
    const { session } = context;
    switch (config.mode) {
      case 'discussion':
        return runDiscussion(context, config);
      case 'iterative':
        return runIterative(context, {
          ...config,
          projectText: await recordedSpecText(session.state, 'project'),
          outputDir: `conclave-output/${session.id}`,
        });
      case 'orchestrated':
        return runOrchestrated(context, {
          lead: config.lead,
          tools: tools(session, config.tools, null, workspaceDir),
          maxIterations: config.maxIterations,
        });
      case 'prompt': {
        // The recorded prompt file decides the tools (the latest one: an edit adopted with
        // --use-edited-spec is recorded), so the tools announced are the tools offered.
        const prompt = parsePromptFile(await recordedSpecText(session.state, 'prompt'), config.promptPath);
        return runOrchestrated(context, {
          lead: config.lead,
          tools: tools(session, prompt.frontMatter.tools, config.promptPath, workspaceDir),
          maxIterations: prompt.frontMatter.max_iterations ?? config.maxIterations,
        });
      }
      case 'chain': {
        const text = await recordedSpecText(session.state, 'workflow');
        const spec = parseWorkflowSpec(text, config.workflowPath);
        // An edited spec may declare new variables: their defaults apply, recorded values win.
        const variables = { ...spec.variables, ...config.variables };
        return runChain(context, { spec, file: config.workflowPath, variables });
      }
    }
  }

  /** Drives a session's mode to an outcome; always releases the session. */
  async function drive(
    session: Session,
    config: RunConfig,
    resumed: boolean,
    workspaceDir = options.workspaceDir,
  ): Promise<RunResult> {
    current = session;
    interruptRequested = null;
    const result = (
      status: RunResult['status'],
      conclusion: string | null,
      error: RunResult['error'] = null,
    ): RunResult => ({
      sessionId: session.id,
      status,
      conclusion,
      resumeCommand: status === 'completed' ? null : resumeCommandFor(session.id, config.mode),
      usage: session.state.usage,
      error,
    });
    emit({ type: 'run-started', sessionId: session.id, mode: config.mode, resumed });
    try {
      const outcome = await runMode(await modeContext(session, workspaceDir), config);
      await session.complete();
      emit({ type: 'usage', totals: session.state.usage });
      return result('completed', outcome.conclusion);
    } catch (error) {
      const costLimit = costLimitIn(error);
      if (costLimit && interruptRequested === null) {
        // A clean stop before a call that would pass the limit: what ran is checkpointed,
        // the session is resumable (with a higher limit).
        await session.checkpoint('cost limit').catch(() => undefined);
        await session.interrupt('cost-limit').catch(() => undefined);
        emit({ type: 'notice', text: costLimit.message });
        return { ...result('interrupted', null, costLimit), stopReason: 'cost-limit' };
      }
      if (interruptRequested !== null || InterruptedError.isInstance(error) || session.signal.aborted) {
        await session.interrupt(interruptRequested ?? 'interrupted').catch(() => undefined);
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
      current = null;
      await session.close();
    }
  }

  async function createRunSession(input: {
    title: string;
    config: RunConfig;
    record?: Record<string, JsonValue> | undefined;
    initialEvents: EventInput[];
    parentId?: string;
    specHash?: string | null;
  }): Promise<Session> {
    return engine.createSession({
      // Modes are resumable state machines that decide from the state what to do next (see ReplayPolicy).
      replay: 'keyed',
      title: input.title,
      mode: input.config.mode,
      workspaceDir: options.workspaceDir,
      parentId: input.parentId ?? null,
      specHash: input.specHash ?? null,
      options: { ...(input.record ?? {}), [RUN_OPTIONS_KEY]: runConfigAsJson(input.config) },
      git: await readGitState(options.workspaceDir).catch(() => null),
      initialEvents: input.initialEvents,
    });
  }

  async function start(input: StartInput): Promise<RunResult> {
    const task = input.task.trim();
    if (task === '')
      throw new UsageError('The task is empty.', {
        hint: 'Say what the session should work on: conclave "Evaluate my idea"',
      });
    const startOptions = input.options ?? {};
    const title = input.title ?? task.split('\n')[0]!.slice(0, 80);
    const initialEvents: EventInput[] = [taskMessage(task)];
    let config: RunConfig;
    switch (input.mode) {
      case 'discussion':
        config = {
          mode: 'discussion',
          task,
          agents: discussionAgents(input.agents),
          judge: input.judge ? completeAgent(input.judge, defaultJudge) : defaultJudge,
          maxRounds: positiveInteger(startOptions.maxRounds, 'maxRounds', DEFAULT_MAX_ROUNDS),
          forceConsensus: startOptions.forceConsensus ?? false,
        };
        checkAgentNames(config.agents, [config.judge.name]);
        break;
      case 'iterative': {
        if (!startOptions.project) {
          throw new UsageError('Iterative mode needs a project file.', { hint: 'Pass --project <file>.' });
        }
        const text = await readInput(startOptions.project);
        initialEvents.push({
          type: 'spec-recorded',
          kind: 'project',
          path: startOptions.project,
          hash: hashText(text),
          blob: null,
          content: text,
        });
        config = {
          mode: 'iterative',
          task,
          agents: discussionAgents(input.agents),
          projectPath: startOptions.project,
          chunkSize: positiveInteger(startOptions.chunkSize, 'chunkSize', DEFAULT_CHUNK_SIZE),
          startChunk: positiveInteger(startOptions.startChunk, 'startChunk', 1),
        };
        checkAgentNames(config.agents, []);
        break;
      }
      case 'orchestrated':
        config = {
          mode: 'orchestrated',
          task,
          lead: input.agents?.[0] ? completeAgent(input.agents[0], defaultLead) : defaultLead,
          tools: startOptions.tools ?? [],
          maxIterations: positiveInteger(startOptions.maxIterations, 'maxIterations', DEFAULT_MAX_ITERATIONS),
        };
        checkRequestedTools(config.tools, null);
        break;
    }
    initialEvents.push({
      type: 'spec-recorded',
      kind: 'task',
      path: null,
      hash: hashText(task),
      blob: null,
      content: task,
    });
    const session = await createRunSession({
      title,
      config,
      record: input.record,
      initialEvents,
      specHash: hashText(task),
    });
    return drive(session, config, false);
  }

  async function runWorkflow(filePath: string, input: WorkflowInput = {}): Promise<RunResult> {
    const text = await readInput(filePath);
    const overrides = input.variables ?? {};
    const specHash = hashText(text);
    if (filePath.endsWith('.prompt.md')) {
      const prompt = parsePromptFile(text, filePath);
      const variables = { ...prompt.frontMatter.variables, ...overrides };
      const task = renderTemplate(prompt.body, { variables }, { file: filePath, key: 'body' });
      const config: RunConfig = {
        mode: 'prompt',
        promptPath: filePath,
        task,
        lead: {
          ...defaultLead,
          name: prompt.frontMatter.name ?? defaultLead.name,
          ...(prompt.frontMatter.model ? { model: prompt.frontMatter.model } : {}),
          ...(prompt.frontMatter.provider ? { provider: prompt.frontMatter.provider } : {}),
        },
        tools: prompt.frontMatter.tools,
        maxIterations: prompt.frontMatter.max_iterations ?? DEFAULT_MAX_ITERATIONS,
      };
      checkRequestedTools(config.tools, filePath);
      const session = await createRunSession({
        title: input.title ?? prompt.frontMatter.name ?? path.basename(filePath),
        config,
        record: input.record,
        specHash,
        initialEvents: [
          { type: 'spec-recorded', kind: 'prompt', path: filePath, hash: specHash, blob: null, content: text },
          { type: 'variables-set', variables },
          taskMessage(task),
        ],
      });
      return drive(session, config, false);
    }
    const spec = parseWorkflowSpec(text, filePath);
    const variables = resolveVariables(spec, filePath, overrides);
    checkWorkflow(spec, filePath, Object.keys(variables));
    const config: RunConfig = { mode: 'chain', workflowPath: filePath, variables };
    const session = await createRunSession({
      title: input.title ?? spec.name,
      config,
      record: input.record,
      specHash,
      initialEvents: [
        { type: 'spec-recorded', kind: 'workflow', path: filePath, hash: specHash, blob: null, content: text },
        { type: 'variables-set', variables },
        taskMessage(spec.description ? `${spec.name}: ${spec.description}` : `Workflow ${spec.name}`),
      ],
    });
    return drive(session, config, false);
  }

  async function currentSpecText(config: RunConfig, workspaceDir = options.workspaceDir): Promise<string | null> {
    const specPath = specPathOf(config);
    if (!specPath) return null;
    return readTextFile(resolvePath(specPath, workspaceDir)).catch(() => null);
  }

  /** Where an in-place resume runs: the recorded workspace, or the one `--workspace` names. */
  function resumeWorkspace(state: SessionState, chosen: string | undefined) {
    return compareWorkspaceDirectory(state.header.workspaceDir, options.workspaceDir, {
      chosen: chosen === undefined ? null : path.resolve(options.workspaceDir, chosen),
      exists: isDirectory,
    });
  }

  async function plan(sessionId: string, planOptions: PlanOptions = {}): Promise<ResumePlan> {
    const id = await engine.resolveSessionId(sessionId);
    const state = await engine.readSession(id);
    const config = readRunConfig(state);
    let fromCheckpoint: number | undefined;
    if (planOptions.fromCheckpoint !== undefined) {
      const seq = findCheckpointSeq(state, planOptions.fromCheckpoint);
      if (seq === null)
        throw new UsageError(`Session ${id} has no checkpoint "${planOptions.fromCheckpoint}".`, {
          hint: `List them: conclave checkpoints list ${id}`,
        });
      fromCheckpoint = seq;
    }
    const workspace = resumeWorkspace(state, planOptions.workspaceDir);
    const workspaceDir = workspace.runsIn;
    const useEditedSpec = planOptions.useEditedSpec ?? false;
    const specText = await currentSpecText(config, workspaceDir);
    const recordedText = await recordedSpecOf(state, config);
    const specPath = specPathOf(config);
    const spec =
      specPath === null
        ? null
        : describeSpecChange({ path: specPath, recorded: recordedText, current: specText, useEdited: useEditedSpec });
    const availableModels = options.availableModels ? await options.availableModels().catch(() => null) : null;
    const compatibility = checkCompatibility({
      state,
      // The recorded spec runs unless the edited one is asked for: only then can an edit block.
      ...(specText !== null && useEditedSpec ? { spec: { text: specText } } : {}),
      availableModels,
      ...toolAvailability(config, specText, useEditedSpec),
    });
    const files = await compareWorkspaceFiles({ state, workspaceDir }).catch(() => null);
    const git = compareGitState(state.header.git, await readGitState(workspaceDir).catch(() => null));
    const checkpointState =
      fromCheckpoint === undefined ? undefined : await engine.readSession(id, { at: fromCheckpoint });
    const lineage = await lineageUsage(engine, id).catch(() => null);
    let recordedSpec: WorkflowSpec | null = null;
    if (config.mode === 'chain' && recordedText !== null) {
      try {
        recordedSpec = parseWorkflowSpec(useEditedSpec && specText !== null ? specText : recordedText, specPath);
      } catch {
        // An invalid edit is reported by the resume itself; the estimate just has no spec.
      }
    }
    return buildResumePlan(state, {
      lineageCost: lineage?.total ?? null,
      remaining: estimateRemaining(checkpointState ?? state, config, recordedSpec),
      warnAboveUsd: options.limits?.warnAboveUsd ?? null,
      describeNext: (described) => describeNext(described, config),
      ...(fromCheckpoint !== undefined ? { fromCheckpoint } : {}),
      ...(checkpointState ? { checkpointState } : {}),
      compatibility,
      files,
      git,
      workspace,
      spec,
    });
  }

  async function recordedSpecOf(state: SessionState, config: RunConfig): Promise<string | null> {
    const kind = specKindOf(config);
    if (kind === null) return null;
    return recordedSpecText(state, kind).catch(() => null);
  }

  /**
   * The tools check (seed: tool availability validation): the tools the session called must
   * still be offered by the tools list that will run (the edited prompt file's, when it runs).
   */
  function toolAvailability(config: RunConfig, specText: string | null, useEditedSpec: boolean) {
    if (config.mode !== 'prompt' && config.mode !== 'orchestrated') return {};
    let requested = config.tools;
    if (config.mode === 'prompt' && useEditedSpec && specText !== null) {
      try {
        requested = parsePromptFile(specText, config.promptPath).frontMatter.tools;
      } catch {
        // An invalid edit is reported by the resume itself, with the file and key.
      }
    }
    const available = availableToolNames();
    if (available === null) return {};
    return {
      availableTools: requested.length === 0 ? available : requested.filter((name) => available.includes(name)),
    };
  }

  function cancelled(state: SessionState, config: RunConfig): RunResult {
    emit({ type: 'notice', text: 'Resume cancelled; nothing was changed.' });
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

  async function resume(sessionId: string, resumeOptions: ResumeOptions = {}): Promise<RunResult> {
    const id = await engine.resolveSessionId(sessionId);
    const state = await engine.readSession(id);
    if (state.status === 'completed') {
      throw new UsageError(`Session ${id} is already completed; there is nothing to resume.`, {
        hint: `Ask a follow-up instead: conclave --resume ${id} "your question"`,
      });
    }
    let config = applyOverrides(readRunConfig(state), resumeOptions);
    const useEditedSpec = resumeOptions.useEditedSpec ?? false;
    const resumePlan = await plan(id, {
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
    const editedSpec = useEditedSpec ? await editedSpecText(state, config, workspaceDir) : null;
    if (resumePlan.costWarning !== null) emit({ type: 'notice', text: resumePlan.costWarning });
    const replacements = await prepareResume({
      plan: resumePlan,
      force: resumeOptions.force ?? false,
      decisions: options.decisions,
      emit,
      store: engine.store,
      workspaceDir,
    });
    if (replacements === null) return cancelled(state, config);
    config = replaceModels(config, replacements);
    if (editedSpec?.config) config = editedSpec.config;
    if (resumePlan.checkpoint && resumeOptions.fromCheckpoint !== undefined) {
      // The journal is append-only: going back to an earlier checkpoint starts a branch from it.
      return branchFrom(
        id,
        resumePlan.checkpoint.seq,
        `${state.title} (from ${resumePlan.checkpoint.label ?? `seq ${resumePlan.checkpoint.seq}`})`,
        null,
        config,
        workspaceDir,
      );
    }
    const session = await engine.openSession(id, { replay: 'keyed' });
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
    return drive(session, config, true, workspaceDir);
  }

  /**
   * The spec file as it is now when it differs from the recorded one, validated, with the run
   * configuration it implies (a prompt file's tools, model and iterations); null when unchanged.
   */
  async function editedSpecText(state: SessionState, config: RunConfig, workspaceDir: string) {
    const kind = specKindOf(config);
    const specPath = specPathOf(config);
    const recorded = kind === null ? undefined : [...state.specs].reverse().find((entry) => entry.kind === kind);
    const text = await currentSpecText(config, workspaceDir);
    if (!kind || !specPath || !recorded || text === null || hashText(text) === recorded.hash) return null;
    const record = { kind, path: specPath, hash: hashText(text), blob: null, content: text } as const;
    if (config.mode === 'chain') {
      const spec = parseWorkflowSpec(text, specPath);
      checkWorkflow(spec, specPath, Object.keys(config.variables));
      return { record, config: null };
    }
    if (config.mode !== 'prompt') return { record, config: null };
    const prompt = parsePromptFile(text, specPath);
    checkRequestedTools(prompt.frontMatter.tools, specPath);
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

  async function branchFrom(
    id: string,
    at: number,
    title: string,
    followUp: string | null,
    config: RunConfig,
    workspaceDir = options.workspaceDir,
  ): Promise<RunResult> {
    const parent = await engine.openSession(id, { countRecovery: false, replay: 'keyed' });
    let child: Session;
    try {
      child = await parent.fork({ at, title, options: { [RUN_OPTIONS_KEY]: runConfigAsJson(config) } });
    } finally {
      await parent.close();
    }
    if (followUp !== null) {
      // A branch's models lack the context of why it exists: say so, then ask.
      child.addMessage(buildResumeMessage(child.state, 'branch'));
      child.addMessage({ role: 'user', content: followUp, speaker: 'user', round: null, tags: [FOLLOW_UP_TAG] });
      await child.checkpoint('branch follow-up');
    }
    const startedWith = workDone(child.state);
    try {
      return await drive(child, config, false, workspaceDir);
    } catch (error) {
      // A branch that stopped before doing anything of its own (it needs a decision first) is
      // not kept: the same command, with the decision, starts it again from the parent.
      const stopped = await engine.readSession(child.id).catch(() => null);
      if (stopped && workDone(stopped) === startedWith)
        await engine.deleteSession(child.id, { force: true }).catch(() => undefined);
      throw error;
    }
  }

  async function branch(sessionId: string, input: BranchInput): Promise<RunResult> {
    const id = await engine.resolveSessionId(sessionId);
    const state = await engine.readSession(id);
    const config = readRunConfig(state);
    const at = findCheckpointSeq(state, input.at);
    if (at === null) {
      throw new UsageError(`Session ${id} has no checkpoint "${input.at}".`, {
        hint: `List them: conclave checkpoints list ${id}`,
      });
    }
    return branchFrom(id, at, input.title ?? `${state.title} (branch)`, input.followUp ?? null, config);
  }

  async function continueSession(
    sessionId: string,
    followUp: string,
    continueOptions: ContinueOptions = {},
  ): Promise<RunResult> {
    const question = followUp.trim();
    if (question === '')
      throw new UsageError('The follow-up is empty.', { hint: 'conclave --continue "your follow-up"' });
    const id = await engine.resolveSessionId(sessionId);
    const parent = await engine.readSession(id);
    const parentConfig = readRunConfig(parent);
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
      }).messages;
    }
    const config = applyOverrides(childConfig(parentConfig, question, parent), continueOptions);
    const session = await createRunSession({
      title: continueOptions.title ?? question.split('\n')[0]!.slice(0, 80),
      config,
      record: Object.fromEntries(Object.entries(parent.header.options).filter(([key]) => key !== RUN_OPTIONS_KEY)),
      parentId: id,
      specHash: hashText(question),
      initialEvents: messages.map((message) => ({ type: 'message-added', message }) as EventInput),
    });
    return drive(session, config, false);
  }

  async function interrupt(reason = 'interrupted by a signal'): Promise<void> {
    interruptRequested = reason;
    if (current) await current.interrupt(reason);
  }

  return { start, resume, continue: continueSession, branch, runWorkflow, plan, interrupt };
}
