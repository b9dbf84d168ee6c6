// Everything around one run: the models, the runner, the live view, Ctrl+C, and what is
// printed at the end. A first SIGINT/SIGTERM interrupts (the in-flight call is aborted and
// the session journaled as interrupted); a second one leaves at once.

import { createKnownSecretScrubber } from '@resume/core/engine';
import {
  ConclaveError,
  type JsonValue,
  maskUrlCredentials,
  printableText,
  SessionDeletedError,
} from '@resume/core/spec';
import type { SettingChange } from '@resume/runner';
import { type AgentInput, createRunner, type Runner, type RunResult } from '@resume/runner';
import { ExitCode, exitCodeFor } from '@resume/runner/exit-codes';
import type { CliContext } from '../context/cli-context.js';
import { reportError } from '../errors/report-error.js';
import { formatCost, formatTokens } from '../output/format.js';
import { runAfterRun } from '../sessions/automatic-retention.js';
import { capturesContent } from '../tracing/tracing-settings.js';
import { answerInTerminal, canAskInTerminal, reportWaiting } from './answer-in-terminal.js';
import { budgetsOf } from './budgets.js';
import type { RunLimits } from './cost-limits.js';
import { buildDecisions, type DecisionFlags } from './decisions.js';
import { createModelResolver, type ProviderSelection, SCRIPTED_NOTICE } from './models.js';
import { createRunView } from './progress.js';

export interface HarnessSetup {
  selection: ProviderSelection;
  /** --provider was given: it wins over providers agents recorded. */
  providerForced: boolean;
  /** Providers the agents of this run name explicitly. */
  agentProviders: string[];
  decisions: DecisionFlags;
  /** Delete the session after a successful run (`run --no-save-session`). */
  discardOnSuccess?: boolean;
  /** Cost limits and the resume warning threshold (see cost-limits.ts). */
  limits?: RunLimits;
  /** `--checkpoint-interval` (else the config's `checkpoint.interval`). */
  checkpointInterval?: number | undefined;
  /** `run --max-parallel`: how many map items and group steps run at once, whatever the spec says. */
  parallel?: number | undefined;
  /** `run --step-timeout`: how long one attempt of a workflow step may take when the step says nothing. */
  stepTimeoutMs?: number | undefined;
  /** Settings the config changed since the session started: the resume prompt lists them. */
  settingChanges?: SettingChange[];
}

/** The models of a run's provider(s), as the run would call them. */
export function resolveModels(context: CliContext, setup: HarnessSetup) {
  return createModelResolver(setup.selection, {
    config: context.config().config,
    env: context.environment.env,
    agentProviders: setup.agentProviders,
    providerForced: setup.providerForced,
  });
}

export async function runWithHarness(
  context: CliContext,
  setup: HarnessSetup,
  work: (runner: Runner) => Promise<RunResult>,
): Promise<number> {
  const { config } = context.config();
  const environment = context.environment;
  const engine = await context.engine();
  const resolution = await resolveModels(context, setup);
  if (setup.selection.provider === 'scripted') context.terminal.note(SCRIPTED_NOTICE);
  const view = await createRunView(context);
  const decisions = buildDecisions(context, setup.decisions, {
    availableModels: resolution.availableModels,
    provider: setup.selection.provider,
    replace: resolution.replace,
  });
  // An answer just typed to the agent's question is the go-ahead: the run goes on without the resume prompt.
  let answeredNow = false;
  const confirmResume = decisions.confirmResume;
  decisions.confirmResume = async (plan) => {
    if (answeredNow) {
      answeredNow = false;
      return true;
    }
    const settings = setup.settingChanges ?? [];
    const shown = settings.length === 0 ? plan : { ...plan, changes: { ...plan.changes, settings } };
    return confirmResume ? confirmResume(shown) : true;
  };
  const runner = createRunner({
    engine,
    models: resolution.resolve,
    workspaceDir: environment.cwd,
    env: { ...environment.env },
    onEvent: (event) => view.onEvent(event),
    decisions,
    availableModels: resolution.availableModels,
    allowCommands: config.tools.allowCommands,
    mcp: config.mcp,
    limits: setup.limits ?? config.limits,
    budgets: budgetsOf(context),
    maxRecoveries: config.resume.maxRecoveries,
    checkpointInterval: setup.checkpointInterval ?? config.checkpoint.interval,
    maxParallel: config.limits.maxParallel,
    ...(setup.parallel !== undefined ? { parallel: setup.parallel } : {}),
    ...(setup.stepTimeoutMs !== undefined ? { stepTimeoutMs: setup.stepTimeoutMs } : {}),
    // The GenAI conventions' switch: prompts are kept for traces (live or `sessions trace`) only when asked for.
    capturePrompts: capturesContent(environment.env),
  });
  if (setup.parallel !== undefined && setup.parallel > config.limits.maxParallel)
    context.terminal.note(
      `--max-parallel ${setup.parallel} is above limits.maxParallel (${config.limits.maxParallel}): at most ${config.limits.maxParallel} run at once.`,
    );

  let interrupting = false;
  const stopListening = environment.onSignal((signal) => {
    if (interrupting) {
      context.terminal.warn('Exiting now; the journal is consistent up to the last checkpoint.');
      environment.exitNow(ExitCode.interrupted);
    }
    interrupting = true;
    context.terminal.warn(`\n${signal === 'SIGINT' ? 'Ctrl+C' : signal}: saving a checkpoint… (again to exit at once)`);
    void runner.interrupt(signal === 'SIGINT' ? 'interrupted by Ctrl+C' : 'terminated').catch(() => undefined);
  });
  let result: RunResult;
  try {
    result = await work(runner);
    // In a terminal a question the agent asks is answered here (the live view steps aside for
    // the answer box) and the run goes on; without an answer it ends waiting.
    while (result.status === 'waiting' && canAskInTerminal(context)) {
      if (!(await answerInTerminal(context, result.sessionId))) break;
      answeredNow = true;
      result = await runner.resume(result.sessionId);
    }
  } finally {
    stopListening();
  }
  const savedAt = result.status === 'interrupted' ? await lastCheckpointLabel(context, result.sessionId) : null;
  await view.finish(result, savedAt);

  if (result.status === 'completed' && setup.discardOnSuccess) {
    await engine.deleteSession(result.sessionId, { force: true });
    context.terminal.note(`Session ${result.sessionId} was not kept (--no-save-session).`);
  }
  await runAfterRun(context);
  return reportResult(
    context,
    result,
    {
      announced: view.announcesOutcome,
      // On a terminal the live view already showed the final answer as its last turn: once is enough.
      // Printed again when stdout goes elsewhere (a file, a pipe), where it is the result.
      conclusionShown:
        result.conclusion !== null &&
        Boolean(context.environment.streams.stdout.isTTY) &&
        view.showedTurn(result.conclusion),
    },
    savedAt,
  );
}

/** Where an interrupted run stopped ("chunk 3/15", "round 2, critic"), for the message; null when unknown. */
async function lastCheckpointLabel(context: CliContext, sessionId: string): Promise<string | null> {
  try {
    const state = await (await context.engine()).readSession(sessionId);
    return state.checkpoints.findLast((checkpoint) => checkpoint.label !== null)?.label ?? null;
  } catch {
    return null;
  }
}

function reportResult(
  context: CliContext,
  result: RunResult,
  view: { announced: boolean; conclusionShown: boolean },
  savedAt: string | null,
): number {
  const terminal = context.terminal;
  const exitCode =
    result.status === 'completed' || result.status === 'waiting'
      ? ExitCode.success
      : result.status === 'interrupted'
        ? ExitCode.interrupted
        : exitCodeFor(result.error);
  if (context.options.json) {
    terminal.data(
      JSON.stringify({
        sessionId: result.sessionId,
        status: result.status,
        conclusion: result.conclusion,
        resumeCommand: result.resumeCommand,
        cancelled: result.cancelled === true,
        waitingFor: result.waitingFor ?? null,
        stopReason: result.stopReason ?? null,
        usage: {
          inputTokens: result.usage.inputTokens,
          outputTokens: result.usage.outputTokens,
          costUsd: result.usage.costUsd,
        },
        error: result.error ? { message: result.error.message, code: codeOf(result.error) } : null,
      }),
    );
  }
  const usage = `${formatTokens(result.usage.inputTokens, result.usage.outputTokens)}, ${formatCost(result.usage.costUsd)}`;
  if (result.status === 'completed') {
    if (!context.options.json) {
      if (result.conclusion && !view.conclusionShown) {
        terminal.out();
        terminal.out(printableText(result.conclusion.trim(), 'lines'));
        terminal.out();
      }
      terminal.out(`Session saved: ${result.sessionId}`);
    }
    terminal.note(terminal.green(`✓ Completed (${usage}).`) + ` Follow up with: conclave --continue "…"`);
    return exitCode;
  }
  if (result.status === 'waiting') {
    reportWaiting(context, {
      sessionId: result.sessionId,
      prompt: result.waitingFor?.prompt ?? '(see conclave answer)',
      usage: result.usage,
      ran: true,
    });
    return exitCode;
  }
  // The live view has just said this, with the resume command; saying it twice is noise.
  if (result.status === 'interrupted' && view.announced && result.stopReason !== 'cost-limit') return exitCode;
  if (result.status === 'interrupted' && result.cancelled) {
    // Declining is not an interruption: nothing ran and nothing was saved.
    terminal.warn(`${terminal.yellow('‖ Not resumed;')} session ${result.sessionId} is unchanged.`);
    if (result.resumeCommand) terminal.warn(`Resume it later with: ${result.resumeCommand}`);
    return exitCode;
  }
  if (result.status === 'interrupted' && result.stopReason === 'cost-limit') {
    terminal.warn(`${terminal.yellow('‖ Cost limit:')} ${result.error?.message ?? 'stopped before the limit.'}`);
    // A budget over every session is the config's, not a flag: the resume waits for the next day or month.
    const budget = /limits\.(dailyCost|monthlyCost)/.exec(result.error?.message ?? '')?.[1];
    if (result.resumeCommand && budget) {
      terminal.warn(
        `Resume it ${budget === 'dailyCost' ? 'tomorrow' : 'next month'}, or after raising limits.${budget} in ${context.config().sources[`limits.${budget}`] ?? 'the config'}: ${result.resumeCommand}`,
      );
    } else if (result.resumeCommand) {
      terminal.warn(`Resume with a higher limit: ${result.resumeCommand} --max-cost <usd>`);
    }
    return exitCode;
  }
  if (result.status === 'interrupted') {
    const where = savedAt === null ? '' : ` at "${savedAt}"`;
    terminal.warn(
      `${terminal.yellow('✗ Interrupted;')} checkpoint saved${where} in session ${result.sessionId} (${usage}).`,
    );
    if (result.resumeCommand) terminal.warn(`Resume with: ${result.resumeCommand}`);
    return exitCode;
  }
  if (result.error) {
    // A failed shell step's message holds its output tails: what it printed of a secret stays hidden.
    const scrub = createKnownSecretScrubber({ env: { ...context.environment.env } });
    if (!context.options.json) reportError(result.error, terminal, { debug: context.options.debug, scrub });
    else terminal.warn(`Error: ${maskUrlCredentials(scrub(result.error.message))}`);
  }
  if (SessionDeletedError.isInstance(result.error)) {
    terminal.warn(
      `${terminal.red('✗ Failed.')} Session ${result.sessionId} no longer exists; nothing of this run was kept.`,
    );
    return exitCode;
  }
  terminal.warn(`${terminal.red('✗ Failed.')} Session ${result.sessionId} keeps everything done so far.`);
  if (result.resumeCommand) terminal.warn(`Resume with: ${result.resumeCommand}`);
  return exitCode;
}

function codeOf(error: Error): string | null {
  return ConclaveError.isInstance(error) ? error.code : null;
}

/** Agents from the config file, as the runner takes them. */
export function configAgents(context: CliContext): AgentInput[] | undefined {
  const agents = context.config().config.agents;
  return agents?.map((agent) => ({
    name: agent.name,
    ...(agent.model ? { model: agent.model } : {}),
    ...(agent.provider ? { provider: agent.provider } : {}),
    ...(agent.system ? { systemPrompt: agent.system } : {}),
  }));
}

/** Every `provider` named in a recorded run config (agents, judge, lead). */
export function providersNamedIn(value: JsonValue | undefined): string[] {
  const found = new Set<string>();
  const visit = (node: JsonValue | undefined) => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (node && typeof node === 'object') {
      for (const [key, child] of Object.entries(node)) {
        if (key === 'provider' && typeof child === 'string') found.add(child);
        else visit(child);
      }
    }
  };
  visit(value);
  return [...found];
}
