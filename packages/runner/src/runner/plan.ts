// `runner.plan`: the resume plan shown before a resume (and by --dry-run and the TUI):
// what runs next, what changed since the session stopped (spec, files, git, workspace,
// models, tools) and whether that blocks.
import type { SessionState } from '@resume/core';
import { UsageError } from '@resume/core/spec';
import { compareWorkspaceFiles } from '../files/file-snapshots.js';
import { compareGitState, readGitState } from '../files/git-state.js';
import { type RecordedMcpTools, recordedMcpTools } from '../mcp/mcp-tool-list.js';
import { mcpToolName } from '../mcp/mcp-tools.js';
import { mapStatusesOf } from '../modes/map-journal.js';
import type { Mode } from '../modes/mode.js';
import { isCommandRunning } from '../processes/process-group.js';
import { checkCompatibility } from '../resume/compatibility.js';
import { lineageUsage } from '../resume/lineage.js';
import { buildResumePlan, type ResumePlan } from '../resume/resume-plan.js';
import { describeSpecChange } from '../resume/spec-change.js';
import { findCheckpointSeq } from './describe-next.js';
import { estimateRemaining } from './estimate-remaining.js';
import { applyOverrides, checkStartChunk } from './mode-overrides.js';
import { withNextStep } from './next-step.js';
import { resumeWorkspace } from './resume-workspace.js';
import { type RunConfig, readRunConfig } from './run-config.js';
import { currentSpecText, recordedSpecOf, specPathOf } from './run-spec.js';
import { availableToolNames } from './run-tools.js';
import { mcpPool, type RunnerScope } from './runner-scope.js';
import type { PlanOptions } from './runner-types.js';

export async function plan(scope: RunnerScope, sessionId: string, planOptions: PlanOptions = {}): Promise<ResumePlan> {
  const id = await scope.engine.resolveSessionId(sessionId);
  return planFor(scope, await scope.engine.readSession(id), planOptions);
}

/** The plan for a session already read (a resume plans from the state it read, not a second read). */
export async function planFor(
  scope: RunnerScope,
  state: SessionState,
  planOptions: PlanOptions = {},
): Promise<ResumePlan> {
  const { engine, options } = scope;
  const id = state.header.id;
  const { mode, config: recordedConfig } = readRunConfig(state, scope.modes);
  checkStartChunk(state, mode, recordedConfig, planOptions.startChunk);
  const config =
    planOptions.startChunk === undefined
      ? recordedConfig
      : applyOverrides(mode, recordedConfig, { startChunk: planOptions.startChunk });
  let fromCheckpoint: number | undefined;
  if (planOptions.fromCheckpoint !== undefined) {
    const seq = findCheckpointSeq(state, planOptions.fromCheckpoint);
    if (seq === null)
      throw withNextStep(new UsageError(`Session ${id} has no checkpoint "${planOptions.fromCheckpoint}".`), {
        kind: 'list-checkpoints',
        sessionId: id,
      });
    fromCheckpoint = seq;
  }
  const workspace = resumeWorkspace(scope, state, planOptions.workspaceDir);
  const workspaceDir = workspace.runsIn;
  const useEditedSpec = planOptions.useEditedSpec ?? false;
  const specText = await currentSpecText(scope, mode, config, workspaceDir);
  const recordedText = await recordedSpecOf(scope, state, mode);
  const specPath = specPathOf(mode, config);
  const spec =
    specPath === null
      ? null
      : describeSpecChange({ path: specPath, recorded: recordedText, current: specText, useEdited: useEditedSpec });
  const availableModels = options.availableModels ? await options.availableModels().catch(() => null) : null;
  const recordedMcp = recordedMcpTools(state.data);
  const mcpTools = await mcpToolLists(scope, recordedMcp, workspaceDir);
  const compatibility = checkCompatibility({
    state,
    // The recorded spec runs unless the edited one is asked for: only then can an edit block.
    ...(specText !== null && useEditedSpec ? { spec: { text: specText } } : {}),
    availableModels,
    ...(mode.compatibility?.(config) ?? {}),
    ...(await toolAvailability(scope, mode, config, useEditedSpec ? specText : null, [recordedMcp, mcpTools?.current])),
    mcpTools,
  });
  const files = await compareWorkspaceFiles({ state, workspaceDir }).catch(() => null);
  const git = compareGitState(state.header.git, await readGitState(workspaceDir).catch(() => null));
  const checkpointState: SessionState | undefined =
    fromCheckpoint === undefined ? undefined : await engine.readSession(id, { at: fromCheckpoint });
  // The session itself is the state in hand; only its ancestors are read.
  const lineage = await lineageUsage(
    { readSession: (lineageId) => (lineageId === id ? Promise.resolve(state) : engine.readSession(lineageId)) },
    id,
  ).catch(() => null);
  // The spec that will run (the edited one only when asked for) bounds what is left.
  const runningSpec = useEditedSpec && specText !== null ? specText : recordedText;
  const remaining = mode.remainingCalls
    ? await mode.remainingCalls(checkpointState ?? state, config, runningSpec)
    : { calls: null, atMost: false };
  const planned = checkpointState ?? state;
  const maps = (await mapStatusesOf(engine.store, planned).catch(() => [])).map((map) => {
    const ids = (wanted: string) => map.items.filter((item) => item.state === wanted).map((item) => item.id);
    return {
      stepId: map.stepId,
      total: map.items.length,
      done: ids('completed'),
      failed: ids('failed'),
      unfinished: ids('started'),
      pending: ids('pending'),
    };
  });
  const built = buildResumePlan(state, {
    maps,
    lineageCost: lineage?.total ?? null,
    remaining: estimateRemaining(checkpointState ?? state, remaining),
    warnAboveUsd: options.limits?.warnAboveUsd ?? null,
    describeNext: (described) => mode.describeNext(described, config),
    ...(mode.skipsStep ? { skipsStep: (key: string) => mode.skipsStep?.(planned, config, key) ?? false } : {}),
    ...(fromCheckpoint !== undefined ? { fromCheckpoint } : {}),
    ...(checkpointState ? { checkpointState } : {}),
    compatibility,
    files,
    git,
    workspace,
    spec,
  });
  // A command an interrupted run left running: the plan says so (the resume waits for it or stops it).
  for (const step of built.uncertain) {
    if (step.process && isCommandRunning(step.process))
      step.running = { pid: step.process.pid, forMs: Math.max(0, Date.now() - Date.parse(step.startedAt)) };
  }
  return built;
}

/**
 * The tools check (seed: tool availability validation): the tools the session called must
 * still be offered by the tools list that will run (the edited prompt file's, when it runs).
 */
async function toolAvailability(
  scope: RunnerScope,
  mode: Mode,
  config: RunConfig,
  edited: string | null,
  mcpTools: Array<RecordedMcpTools | undefined>,
) {
  if (!mode.requestedTools) return {};
  const requested = await mode.requestedTools(config, edited);
  const available = availableToolNames(scope);
  if (available === null) return {};
  // MCP tools are checked against their servers' lists (a change is an `mcp-tool-changed` finding).
  const mcpNames = mcpTools.flatMap((lists) =>
    Object.entries(lists ?? {}).flatMap(([server, tools]) => tools.map((tool) => mcpToolName(server, tool.name))),
  );
  return {
    availableTools: [
      ...(requested.length === 0 ? available : requested.filter((name) => available.includes(name))),
      ...mcpNames,
    ],
  };
}

/**
 * The tool lists of the MCP servers the session recorded, and as the servers offer them now
 * (each server is started for it, and kept for the run that follows). Null without any, or when
 * the caller offers no MCP servers (`mcp` not given: a planner for a details pane).
 */
async function mcpToolLists(scope: RunnerScope, recorded: RecordedMcpTools, workspaceDir: string) {
  const servers = Object.keys(recorded);
  // A caller that offers no MCP servers (a details pane) does not start them to compare.
  if (servers.length === 0 || scope.options.mcp === undefined) return null;
  return { recorded, current: await mcpPool(scope).toolLists(servers, workspaceDir) };
}
