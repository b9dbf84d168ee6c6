// The root command's runs: start a discussion (or iterative / orchestrated run),
// `--continue`, `--resume` (in place, or with a question on a completed session) and
// `--branch-from`. Choosing a session never silently crosses workspaces: without an id
// the CLI picks from this directory's sessions and says which, or opens the picker.

import type { SessionState } from '@resume/core';
import { pendingInput } from '@resume/core/engine';
import { type JsonValue, SessionNotFoundError, type SessionSummary, UsageError } from '@resume/core/spec';
import {
  agentsForModels,
  followUpWorkspace,
  formatResumePlan,
  libraryRefusal,
  type ProviderName,
  resumeCommandFor,
} from '@resume/runner';
import { ExitCode } from '@resume/runner/exit-codes';
import type { CliContext } from '../context/cli-context.js';
import { checkModeOption, modeTakes, startsFromFile } from '../modes/mode-names.js';
import { formatWhen, truncate } from '../output/format.js';
import { isListIndex, resolveSession } from '../sessions/resolve-session.js';
import { answerInTerminal, canAskInTerminal, reportWaiting } from './answer-in-terminal.js';
import { costLimitsOf } from './cost-limits.js';
import { screenIo } from './decisions.js';
import { recordOf, selectionFrom } from './models.js';
import { overridesOf, parseRunFlags, type RunFlags } from './run-flags.js';
import { configAgents, providersNamedIn, resolveModels, runWithHarness } from './run-harness.js';
import { createPlanner, openSessionBackend } from './session-backend.js';

export interface FlowInput {
  kind: 'start' | 'continue' | 'resume' | 'branch';
  task: string;
  options: Record<string, unknown>;
}

export async function runSessionFlow(context: CliContext, input: FlowInput): Promise<number> {
  const flags = parseRunFlags(input.options);
  switch (input.kind) {
    case 'start':
      return startFlow(context, input.task, flags);
    case 'branch':
      return branchFlow(context, input.task, flags);
    case 'continue':
      return continueFlow(context, input.task, flags);
    case 'resume':
      return resumeFlow(context, input.task, flags);
  }
}

function decisionFlags(context: CliContext, flags: RunFlags) {
  const defaults = context.config().config.resume;
  return {
    yes: flags.yes ?? false,
    onConflict: flags.onConflict ?? defaults.onConflict,
    onUncertain: flags.onUncertain ?? defaults.onUncertain,
    modelsGiven: (flags.models?.length ?? 0) > 0,
    force: flags.force ?? false,
  };
}

function selectionFor(context: CliContext, flags: RunFlags, recorded: Record<string, JsonValue> | null) {
  return selectionFrom({
    flagProvider: context.options.provider as ProviderName | undefined,
    flagModel: context.options.model,
    flagScript: flags.script,
    recorded,
    config: context.config().config,
    env: context.environment.env,
    cwd: context.environment.cwd,
  });
}

async function startFlow(context: CliContext, task: string, flags: RunFlags): Promise<number> {
  const { config } = context.config();
  const mode = flags.mode ?? 'discussion';
  if (flags.modeOptions.startChunk !== undefined)
    checkModeOption(
      mode,
      'startChunk',
      '--start-chunk',
      'conclave --mode iterative --project <file> --start-chunk N "task"',
    );
  const selection = selectionFor(context, flags, null);
  const agents = flags.models?.length ? agentsForModels(flags.models) : configAgents(context);
  const judge = config.judge;
  const costs = costLimitsOf(flags, config, null);
  return runWithHarness(
    context,
    {
      limits: costs.limits,
      checkpointInterval: flags.checkpointInterval,
      selection,
      providerForced: context.options.provider !== undefined,
      agentProviders: [
        ...(agents ?? []).flatMap((agent) => (agent.provider ? [agent.provider] : [])),
        ...(judge.provider ? [judge.provider] : []),
      ],
      decisions: decisionFlags(context, flags),
    },
    (runner) =>
      runner.start({
        mode,
        task,
        ...(flags.title ? { title: flags.title } : {}),
        ...(agents ? { agents } : {}),
        ...(judge.model || judge.provider || judge.system
          ? {
              judge: {
                name: 'judge',
                ...(judge.model ? { model: judge.model } : {}),
                ...(judge.provider ? { provider: judge.provider } : {}),
                ...(judge.system ? { systemPrompt: judge.system } : {}),
              },
            }
          : {}),
        options: { maxRounds: config.discussion.maxRounds, ...flags.modeOptions },
        record: { ...recordOf(selection), ...costs.record },
      }),
  );
}

/** `read`: the session's state when the caller has just read it (not read twice). */
export async function sessionSetup(context: CliContext, flags: RunFlags, id: string, read?: SessionState) {
  const state = read ?? (await (await context.engine()).readSession(id));
  const recorded = state.header.options;
  const selection = selectionFor(context, flags, recorded);
  return {
    state,
    setup: {
      limits: costLimitsOf(flags, context.config().config, recorded).limits,
      checkpointInterval: flags.checkpointInterval,
      parallel: flags.maxParallel,
      stepTimeoutMs: flags.stepTimeout,
      selection,
      providerForced: context.options.provider !== undefined,
      agentProviders: providersNamedIn(recorded.run),
      decisions: decisionFlags(context, flags),
    },
  };
}

function fromCheckpointOf(flags: RunFlags): number | string | undefined {
  if (flags.fromCheckpoint === undefined) return undefined;
  return /^\d+$/.test(flags.fromCheckpoint) ? Number(flags.fromCheckpoint) : flags.fromCheckpoint;
}

async function branchFlow(context: CliContext, question: string, flags: RunFlags): Promise<number> {
  const at = flags.atRound !== undefined ? `round ${flags.atRound}` : fromCheckpointOf(flags);
  if (at === undefined)
    throw new UsageError('--branch-from needs the point to branch from.', {
      hint: 'Add --at-round N or --from-checkpoint <seq|label> (see: conclave checkpoints list <id>).',
    });
  const id = await resolveSession(context, flags.branchFrom ?? '');
  const { setup } = await sessionSetup(context, flags, id);
  return runWithHarness(context, setup, (runner) =>
    runner.branch(id, {
      at,
      ...(question ? { followUp: question } : {}),
      ...(flags.title ? { title: flags.title } : {}),
      ...(flags.workspace !== undefined ? { workspaceDir: flags.workspace } : {}),
    }),
  );
}

async function continueFlow(context: CliContext, task: string, flags: RunFlags): Promise<number> {
  const followUp = (typeof flags.continue === 'string' ? flags.continue : task).trim();
  if (!followUp) {
    if (!context.environment.interactive)
      throw new UsageError('--continue needs a follow-up question when there is no terminal to ask.', {
        hint: 'conclave --continue "your follow-up"',
      });
    const picked = await pickInteractively(context, 'Continue which session?');
    if (!picked) return 0;
    return runPicked(context, picked, flags);
  }
  const summary = await pickFromWorkspace(context, 'continue');
  return continueChecked(context, summary.id, followUp, flags);
}

/** What the user picked in a picker or the browser: resume it in place, or ask the follow-up (in the TUI). */
export async function runPicked(
  context: CliContext,
  picked: { sessionId: string; action: 'resume' | 'continue'; answered?: boolean },
  flags: RunFlags,
): Promise<number> {
  // A question answered in the picker is the go-ahead: resumed without the resume prompt.
  if (picked.action === 'resume')
    return resumeInPlace(context, picked.sessionId, picked.answered ? { ...flags, yes: true } : flags);
  // The follow-up is typed once it is clear what it follows (an unfinished session asks first).
  return continueChecked(context, picked.sessionId, null, flags);
}

/** The follow-up, typed in the TUI's text box; null (with a note) when the user left it. */
async function askFollowUpFor(context: CliContext, id: string, workspace?: string): Promise<string | null> {
  const engine = await context.engine();
  const state = await engine.readSession(id);
  const tui = await import('@resume/tui');
  const question = await tui.askFollowUp(
    {
      sessionId: id,
      title: state.title,
      conclusion: typeof state.data.conclusion === 'string' ? state.data.conclusion : null,
      runsIn: followUpWorkspace(context.environment.cwd, state.header.workspaceDir, workspace),
    },
    screenIo(context),
  );
  if (question === null) context.terminal.note('No follow-up given; nothing was started.');
  return question;
}

/**
 * A follow-up for a session that never finished has no conclusion to build on: in a
 * terminal the user chooses (resume it first, ask anyway, cancel); without one it is
 * refused with the command that finishes it. `question` null: typed in the TUI's box once
 * the choice is made (a session continued from a picker).
 */
async function continueChecked(context: CliContext, id: string, question: string | null, flags: RunFlags) {
  const state = await readRunnersSession(context, id);
  const followUp = async (): Promise<number> => {
    const asked = question ?? (await askFollowUpFor(context, id, flags.workspace));
    return asked === null ? 0 : continueSession(context, id, asked, flags);
  };
  if (state.status === 'completed') return followUp();
  const resumeCommand = resumeCommandFor(id, state.header.mode);
  if (!context.environment.interactive || context.options.json)
    throw new UsageError(
      `Session ${id} "${truncate(state.title, 50)}" is ${state.status}: it stopped before reaching a conclusion, so there is nothing to follow up on yet.`,
      {
        hint: `Finish it first: ${resumeCommand}\nthen ask: conclave --resume ${id} "${truncate(question ?? 'your question', 40)}"`,
      },
    );
  const tui = await import('@resume/tui');
  const plan = await (await createPlanner(context)).plan(id).catch(() => null);
  const answer = await tui.askUnfinishedContinue(
    { sessionId: id, title: state.title, status: state.status, followUp: question, stoppedAt: plan?.next ?? null },
    screenIo(context),
  );
  if (answer === 'cancel') {
    context.terminal.note(`Nothing was started. Resume it later with: ${resumeCommand}`);
    return 0;
  }
  if (answer === 'continue-anyway') return followUp();
  const resumed = await resumeInPlace(context, id, flags);
  if (resumed !== 0) return resumed;
  return followUp();
}

async function continueSession(context: CliContext, id: string, question: string, flags: RunFlags) {
  const { setup } = await sessionSetup(context, flags, id);
  return runWithHarness(context, setup, (runner) =>
    runner.continue(id, question, {
      ...(flags.resetDiscussion ? { resetDiscussion: true } : {}),
      ...withoutStartChunk(overridesOf(flags)),
      ...(flags.models?.length ? { models: flags.models } : {}),
      ...(flags.title ? { title: flags.title } : {}),
    }),
  );
}

/** A follow-up starts a new session: it has no chunk to start at. */
function withoutStartChunk({ startChunk: _startChunk, ...overrides }: ReturnType<typeof overridesOf>) {
  return overrides;
}

async function resumeFlow(context: CliContext, task: string, flags: RunFlags): Promise<number> {
  const reference = typeof flags.resume === 'string' ? flags.resume : null;
  if (!reference && context.environment.interactive && !context.options.json) {
    const picked = await pickInteractively(context, 'Resume which session?');
    if (!picked) return 0;
    if (task) return continueChecked(context, picked.sessionId, task, flags);
    return runPicked(context, picked, flags);
  }
  const id = reference ? await resolveSession(context, reference) : (await pickFromWorkspace(context, 'resume')).id;
  // A list number is easily stale or mistyped: say which session it named before anything runs.
  if (reference && isListIndex(reference)) await noteIndexedSession(context, reference, id);
  if (task) return continueChecked(context, id, task, flags);
  if (flags.modeOptions.startChunk !== undefined) await checkStartChunkMode(context, id);
  return resumeInPlace(context, id, flags);
}

/** `--start-chunk` means something to a session that works in chunks only, whatever its status. */
async function checkStartChunkMode(context: CliContext, id: string): Promise<void> {
  const { mode } = (await (await context.engine()).readSession(id)).header;
  if (modeTakes(mode, 'startChunk')) return;
  throw new UsageError(`--start-chunk applies to iterative sessions; session ${id} is a ${mode} session.`, {
    hint: `Instead: conclave --resume ${id}   (without --start-chunk)`,
  });
}

async function noteIndexedSession(context: CliContext, reference: string, id: string): Promise<void> {
  const state = await (await context.engine()).readSession(id);
  context.terminal.note(
    `→ Session ${reference.trim()} of \`conclave sessions list\` is ${id} "${truncate(state.title, 60)}" (${state.status}, ${formatWhen(state.updatedAt)})`,
  );
}

/**
 * The session, read. One a program wrote with the library (a LangGraph thread) is refused here,
 * from its header, before a provider is chosen or a question asked: the runner neither resumes
 * nor continues it.
 */
async function readRunnersSession(context: CliContext, id: string): Promise<SessionState> {
  const engine = await context.engine();
  // Its header says so, before the journal is read (a long thread's takes a while).
  const header = await engine.store.getHeader(id);
  const refusal = header && libraryRefusal({ header });
  if (refusal) throw refusal;
  return engine.readSession(id);
}

/**
 * `--resume <id>` without a question: in place, or for a completed session the follow-up is
 * asked. A session waiting for an answer asks its question first (in a terminal) and goes on
 * with the answer; without a terminal nothing runs and the command that answers it is printed.
 */
async function resumeInPlace(context: CliContext, id: string, flags: RunFlags): Promise<number> {
  const engine = await context.engine();
  let state = await readRunnersSession(context, id);
  if (state.status === 'waiting' && !flags.dryRun) {
    const question = pendingInput(state);
    if (question) {
      if (!canAskInTerminal(context) || !(await answerInTerminal(context, id))) {
        if (context.options.json)
          context.terminal.data(
            JSON.stringify({
              sessionId: id,
              status: 'waiting',
              waitingFor: { key: question.key, prompt: question.prompt },
              answerCommand: `conclave answer ${id} "…"`,
              resumeCommand: `conclave --resume ${id}`,
            }),
          );
        reportWaiting(context, { sessionId: id, prompt: question.prompt, usage: state.usage, ran: false });
        return ExitCode.success;
      }
      // The answer is the go-ahead: the run goes on without the resume prompt.
      flags = { ...flags, yes: true };
      state = await engine.readSession(id);
    }
  }
  const fromCheckpoint = fromCheckpointOf(flags);
  // A completed session is never changed: going on from one of its checkpoints is a branch.
  if (state.status === 'completed' && fromCheckpoint !== undefined && !flags.dryRun) {
    context.terminal.note(
      `→ Session ${id} is completed: going on from checkpoint ${fromCheckpoint} runs as a branch of ${id} from checkpoint ${fromCheckpoint}.`,
    );
    const { setup } = await sessionSetup(context, flags, id, state);
    return runWithHarness(context, setup, (runner) =>
      runner.branch(id, { at: fromCheckpoint, ...(flags.title ? { title: flags.title } : {}) }),
    );
  }
  if (state.status === 'completed' && fromCheckpoint === undefined) {
    if (!context.environment.interactive || context.options.json)
      throw new UsageError(`Session ${id} is completed; there is nothing to resume.`, {
        hint: `Ask a follow-up instead: conclave --resume ${id} "your question"\nor go on from one of its checkpoints as a branch: conclave --resume ${id} --from-checkpoint <seq|label>   (see: conclave checkpoints list ${id})`,
      });
    const question = await askFollowUpFor(context, id, flags.workspace);
    if (question === null) return 0;
    return continueSession(context, id, question, flags);
  }
  const { settingChanges } = await import('./setting-changes.js');
  const settings = settingChanges(state, context.config(), flags);
  const { setup } = await sessionSetup(context, flags, id, state);
  if (flags.dryRun) {
    // The plan asks the provider which models it offers, as the resume will.
    const { availableModels } = await resolveModels(context, setup);
    const planned = await (
      await createPlanner(context, setup.limits ?? context.config().config.limits, availableModels, true)
    ).plan(id, {
      ...(fromCheckpoint === undefined ? {} : { fromCheckpoint }),
      ...(flags.workspace !== undefined ? { workspaceDir: flags.workspace } : {}),
      ...(flags.useEditedSpec ? { useEditedSpec: true } : {}),
      ...overridesOf(flags),
    });
    const plan = { ...planned, changes: { ...planned.changes, settings } };
    if (context.options.json) context.terminal.data(JSON.stringify(plan, null, 2));
    else context.terminal.out(formatResumePlan(plan));
    context.terminal.note('Dry run: nothing was run or changed.');
    return 0;
  }
  // The resume prompt lists them; without one (a pipe, --yes) they are said before the run.
  if (!context.environment.interactive || flags.yes)
    for (const setting of settings)
      context.terminal.note(`Setting changed since the session started: ${setting.message}`);
  return runWithHarness(context, { ...setup, settingChanges: settings }, (runner) =>
    runner.resume(id, {
      ...(fromCheckpoint !== undefined ? { fromCheckpoint } : {}),
      ...(flags.force ? { force: true } : {}),
      ...(flags.workspace !== undefined ? { workspaceDir: flags.workspace } : {}),
      ...(flags.useEditedSpec ? { useEditedSpec: true } : {}),
      ...overridesOf(flags),
      ...(flags.models?.length ? { models: flags.models } : {}),
    }),
  );
}

/** What `--resume` without an id picks up: a run that stopped, failed, or sleeps (it sleeps on what is left). */
const RESUMABLE = new Set<SessionSummary['status']>(['interrupted', 'failed', 'sleeping']);

/**
 * The most recent session of this workspace that fits: an unfinished one to resume, any
 * finished one to continue. Says which one it picked; never looks in other workspaces.
 */
export async function pickFromWorkspace(context: CliContext, purpose: 'resume' | 'continue'): Promise<SessionSummary> {
  const engine = await context.engine();
  const workspaceDir = context.environment.cwd;
  const here = await engine.listSessions({ workspaceDir });
  const wanted =
    purpose === 'resume'
      ? here.find((summary) => RESUMABLE.has(summary.status))
      : here.find((summary) => summary.status !== 'running');
  if (!wanted) {
    const elsewhere = (await engine.listSessions({ limit: 5 })).filter(
      (summary) => summary.workspaceDir !== workspaceDir,
    );
    const what = purpose === 'resume' ? 'interrupted or failed session' : 'session to continue';
    throw new SessionNotFoundError(workspaceDir, `No ${what} in this workspace (${workspaceDir}).`, {
      hint:
        elsewhere.length === 0
          ? 'Start one with: conclave "your task"'
          : `Sessions of other workspaces (pass the id to use one):\n${elsewhere
              .map(
                (summary) =>
                  `  ${summary.id}  ${summary.status.padEnd(11)} ${truncate(summary.title, 40)}  (${summary.workspaceDir ?? 'no workspace'})`,
              )
              .join('\n')}`,
    });
  }
  context.terminal.note(
    `→ ${purpose === 'resume' ? 'Resuming' : 'Continuing'} session ${wanted.id} "${truncate(wanted.title, 60)}" (${wanted.status}, ${formatWhen(wanted.updatedAt)}) from this workspace`,
  );
  return wanted;
}

const isWorkflow = (summary: Pick<SessionSummary, 'mode'>) => startsFromFile(summary.mode);

/**
 * `run --resume` without an id: in a terminal the picker, showing workflow runs only;
 * otherwise the newest interrupted or failed workflow run of this workspace, said out loud.
 */
/** The workflow run `run --resume` without an id resumes; `answered`: its question was answered in the picker. */
export async function pickWorkflowSession(
  context: CliContext,
): Promise<{ sessionId: string; answered: boolean } | null> {
  if (context.environment.interactive && !context.options.json) {
    const picked = await pickInteractively(context, 'Resume which workflow run?', isWorkflow);
    return picked ? { sessionId: picked.sessionId, answered: picked.answered === true } : null;
  }
  const engine = await context.engine();
  const workspaceDir = context.environment.cwd;
  const wanted = (await engine.listSessions({ workspaceDir })).find(
    (summary) => isWorkflow(summary) && RESUMABLE.has(summary.status),
  );
  if (!wanted)
    throw new SessionNotFoundError(
      workspaceDir,
      `No interrupted or failed workflow run in this workspace (${workspaceDir}).`,
      {
        hint: 'List them with: conclave sessions list --mode chain   (or pass an id: conclave run --resume <id>)',
      },
    );
  context.terminal.note(
    `→ Resuming workflow run ${wanted.id} "${truncate(wanted.title, 60)}" (${wanted.status}, ${formatWhen(wanted.updatedAt)}) from this workspace`,
  );
  return { sessionId: wanted.id, answered: false };
}

async function pickInteractively(context: CliContext, heading: string, only?: (summary: SessionSummary) => boolean) {
  const opened = await openSessionBackend(context);
  const { tui } = opened;
  const backend = only
    ? { ...opened.backend, listSessions: async () => (await opened.backend.listSessions()).filter(only) }
    : opened.backend;
  const picked = await tui.pickSession(backend, {
    heading,
    workspaceDir: context.environment.cwd,
    ...screenIo(context),
  });
  if (!picked) context.terminal.note('Nothing chosen.');
  return picked;
}
