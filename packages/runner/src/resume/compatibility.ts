// The compatibility check run before any resume (docs/architecture.md#resume-and-continue): has the spec changed, and how
// much; did an agent or a step that already ran disappear; are the tools and models the
// session used still there; can this version read the journal. The result is `ok`, `warn`
// (go on, print the findings) or `block` (stop unless forced), with ways out.
import type { SessionState } from '@resume/core';
import { JOURNAL_FORMAT_VERSION, type SessionStore } from '@resume/core/spec';
import { changedMcpTools, type RecordedMcpTools } from '../mcp/mcp-tool-list.js';
import { mcpToolName } from '../mcp/mcp-tools.js';
import { type StepKeyScheme, stepIdOfKey } from '../workflow/step-ids.js';
import {
  hashSpec,
  normalizeSpecText,
  REWRITE_THRESHOLD,
  type SpecStructure,
  specSimilarity,
  specStructure,
} from './spec-text.js';

export type CompatibilityLevel = 'ok' | 'warn' | 'block';

/** What a user can do about an unavailable model (the TUI's model prompt, `--models`). */
export type ModelChoice = 'use-same-model' | 'use-other-model' | 'cancel';

export type CompatibilityFinding =
  | { kind: 'spec-changed'; level: 'warn' | 'block'; message: string; similarity: number | null }
  | { kind: 'agent-removed'; level: 'warn' | 'block'; message: string; agent: string; ran: boolean }
  | { kind: 'step-changed'; level: 'block'; message: string; index: number; before: string; after: string | null }
  | { kind: 'tool-missing'; level: 'block'; message: string; tool: string }
  | {
      kind: 'mcp-tool-changed';
      /** `block` for a tool the session called that is gone; a changed input or an unused tool warns. */
      level: 'warn' | 'block';
      message: string;
      server: string;
      /** As the model sees it: `<server>__<tool>`. */
      tool: string;
      change: 'removed' | 'schema-changed';
    }
  | {
      kind: 'model-unavailable';
      level: 'warn';
      message: string;
      model: string;
      agents: string[];
      choices: ModelChoice[];
    }
  | { kind: 'format-newer'; level: 'block'; message: string; sessionVersion: number; supportedVersion: number };

export type CompatibilityFindingKind = CompatibilityFinding['kind'];

export type SuggestionKind = 'restart' | 'keep-context-restart' | 'use-other-model' | 'force' | 'upgrade';

export interface CompatibilitySuggestion {
  kind: SuggestionKind;
  message: string;
}

export interface CompatibilityReport {
  level: CompatibilityLevel;
  findings: CompatibilityFinding[];
  /** Similarity of the recorded and current spec in [0, 1] when the hash changed and both texts are known. */
  similarity: number | null;
  suggestions: CompatibilitySuggestion[];
}

export interface CheckCompatibilityInput {
  state: SessionState;
  /** The spec / prompt / task as it is now; omitted when the session has nothing to compare. */
  spec?: { text: string; hash?: string; structure?: SpecStructure | null };
  /** The recorded spec's text (default: the content journaled with the spec; see `readRecordedSpecText`). */
  previousSpecText?: string | null;
  /**
   * How many of the recorded spec's steps already ran; those must keep their place. Without
   * it every recorded step is treated as possibly run (the safe assumption).
   */
  completedSpecSteps?: number;
  /**
   * How the session keys its chain steps: with `id` a step that ran is found by its id, so
   * steps inserted, deleted or moved around it do not block; with `position` (the default,
   * sessions recorded before step ids) every step that ran must keep its place.
   */
  stepKeys?: StepKeyScheme;
  /** Tools available now; null or omitted skips the check. */
  availableTools?: readonly string[] | null;
  /** Tools the session used (default: every tool called in the journal). */
  toolsUsed?: readonly string[];
  /** Each MCP server's tool list as recorded in the session and as the server offers it now. */
  mcpTools?: { recorded: RecordedMcpTools; current: RecordedMcpTools } | null;
  /** Model ids the provider lists now; null or omitted when unknown (the check is skipped). */
  availableModels?: readonly string[] | null;
  /** Models the session used (default: from usage records and the recorded options). */
  modelsUsed?: readonly string[];
  /** The newest journal format this code reads (default JOURNAL_FORMAT_VERSION). */
  formatVersion?: number;
}

/** Below this similarity a changed spec is a rewrite, not an edit: resuming it in place is blocked. */
export const REWRITE_SIMILARITY = REWRITE_THRESHOLD;

/** The latest recorded spec of a session, or null. */
function latestSpec(state: SessionState) {
  return state.specs.length === 0 ? null : (state.specs[state.specs.length - 1] ?? null);
}

/** The recorded spec's text from the journal or, when stored as a blob, from the store. */
export async function readRecordedSpecText(
  state: SessionState,
  store: Pick<SessionStore, 'getBlob'>,
): Promise<string | null> {
  const spec = latestSpec(state);
  if (spec === null) return null;
  if (spec.content !== undefined) return spec.content;
  if (spec.blob === null) return null;
  const blob = await store.getBlob(spec.blob);
  return blob === null ? null : new TextDecoder().decode(blob);
}

/** Agents that spoke or were billed in the session. */
export function agentsThatRan(state: SessionState): Set<string> {
  const agents = new Set<string>();
  for (const message of state.messages) {
    if (message.role === 'assistant' && message.speaker) agents.add(message.speaker);
  }
  for (const record of state.usageRecords) {
    if (record.agent) agents.add(record.agent);
  }
  return agents;
}

function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
  return [];
}

/** Model ids the session used, with the agents that used each (usage records, then recorded options). */
export function modelsUsedBy(state: SessionState): Map<string, Set<string>> {
  const models = new Map<string, Set<string>>();
  const add = (model: string, agent: string | null) => {
    const agents = models.get(model) ?? new Set<string>();
    if (agent) agents.add(agent);
    models.set(model, agents);
  };
  for (const record of state.usageRecords) add(record.model, record.agent);
  const options = state.header.options;
  for (const model of [...stringsOf(options.model), ...stringsOf(options.models)]) add(model, null);
  return models;
}

/** A step that ran is gone from the spec (`current` null) or is something else now. */
function stepChanged(index: number, previous: string, current: string | null, where: string): CompatibilityFinding {
  return {
    kind: 'step-changed',
    level: 'block',
    index,
    before: previous,
    after: current,
    message:
      current === null
        ? `step ${index + 1} (${previous}) already ran but is no longer in the spec`
        : `step ${index + 1} already ran as ${previous} but the spec now has ${current} ${where}`,
  };
}

/** A step that ran is something else now under the same id or place: another kind, another agent. */
function stepKindChanged(index: number, name: string, before: string, after: string): CompatibilityFinding {
  return {
    kind: 'step-changed',
    level: 'block',
    index,
    before,
    after,
    message: `step ${index + 1} (${name}) already ran as ${before} but the spec now makes it ${after}`,
  };
}

/** Steps of an id-keyed session that ran (by id): each must still be in the spec, unchanged. */
function compareStepsById(before: SpecStructure, after: SpecStructure, state: SessionState): CompatibilityFinding[] {
  const ranIds = new Set(state.steps.map((step) => stepIdOfKey(step.key)).filter((id) => id !== null));
  const findings: CompatibilityFinding[] = [];
  before.ids.forEach((id, index) => {
    if (!ranIds.has(id)) return;
    const previous = before.steps[index] as string;
    const at = after.ids.indexOf(id);
    const current = at === -1 ? null : (after.steps[at] ?? null);
    const [kindBefore, kindAfter] = [before.kinds[index], after.kinds[at]];
    if (current !== previous) findings.push(stepChanged(index, previous, current, 'for it'));
    else if (kindBefore !== undefined && kindAfter !== undefined && kindBefore !== kindAfter)
      findings.push(stepKindChanged(index, id, kindBefore, kindAfter));
  });
  return findings;
}

function compareStructures(
  before: SpecStructure,
  after: SpecStructure,
  ran: Set<string>,
  completedSteps: number,
  byId: SessionState | null,
): CompatibilityFinding[] {
  const findings: CompatibilityFinding[] = [];
  for (const agent of before.agents) {
    if (after.agents.includes(agent)) continue;
    const agentRan = ran.has(agent);
    findings.push({
      kind: 'agent-removed',
      level: agentRan ? 'block' : 'warn',
      agent,
      ran: agentRan,
      message: agentRan
        ? `agent "${agent}" was removed from the spec but already took part in the session`
        : `agent "${agent}" was removed from the spec (it had not run yet)`,
    });
  }
  if (byId !== null) return [...findings, ...compareStepsById(before, after, byId)];
  const checked = Math.min(completedSteps, before.steps.length);
  for (let index = 0; index < checked; index += 1) {
    const previous = before.steps[index] as string;
    const current = after.steps[index] ?? null;
    const [kindBefore, kindAfter] = [before.kinds[index], after.kinds[index]];
    if (current === previous && (kindBefore === kindAfter || kindAfter === undefined)) continue;
    findings.push(
      current === previous && kindBefore !== undefined && kindAfter !== undefined
        ? stepKindChanged(index, previous, kindBefore, kindAfter)
        : stepChanged(index, previous, current, 'there'),
    );
    // Later steps are shifted by the same edit; one finding says it.
    break;
  }
  return findings;
}

function levelOf(findings: readonly CompatibilityFinding[]): CompatibilityLevel {
  if (findings.some((finding) => finding.level === 'block')) return 'block';
  if (findings.length > 0) return 'warn';
  return 'ok';
}

function suggestionsFor(findings: readonly CompatibilityFinding[]): CompatibilitySuggestion[] {
  const kinds = new Set(findings.map((finding) => finding.kind));
  const suggestions: CompatibilitySuggestion[] = [];
  if (kinds.has('format-newer')) {
    suggestions.push({
      kind: 'upgrade',
      message: 'Upgrade Conclave: the session was written by a newer version.',
    });
    return suggestions;
  }
  const blocking = findings.some((finding) => finding.level === 'block');
  if (blocking || kinds.has('spec-changed')) {
    suggestions.push({ kind: 'restart', message: 'Start the workflow again from the beginning in a new session.' });
    suggestions.push({
      kind: 'keep-context-restart',
      message: 'Keep the context (continue it as a new session with the history) but restart execution.',
    });
  }
  if (kinds.has('mcp-tool-changed') && !blocking) {
    suggestions.push({
      kind: 'force',
      message:
        "Resume as it is: the model is offered the servers' tools as they are now; the calls already made are not made again.",
    });
  }
  if (kinds.has('model-unavailable')) {
    suggestions.push({
      kind: 'use-other-model',
      message: 'Resume with another model (--models a,b), or keep the same id if it is only missing from the listing.',
    });
  }
  if (blocking) suggestions.push({ kind: 'force', message: 'Resume anyway with --force (at your own risk).' });
  return suggestions;
}

/** The MCP tools that are gone or take other input since the session recorded its servers' lists. */
function mcpToolFindings(
  state: SessionState,
  recorded: RecordedMcpTools,
  current: RecordedMcpTools,
): CompatibilityFinding[] {
  return changedMcpTools(recorded, current).map(({ server, tool, change }) => {
    const name = mcpToolName(server, tool);
    const calls = state.toolCalls.filter((call) => call.name === name).length;
    const called =
      calls === 0
        ? 'the session has not called it'
        : `the session called it ${calls === 1 ? 'once' : `${calls} times`}`;
    return {
      kind: 'mcp-tool-changed',
      level: change === 'removed' && calls > 0 ? 'block' : 'warn',
      server,
      tool: name,
      change,
      message:
        change === 'removed'
          ? `MCP tool ${name} is no longer offered by server ${server} (${called})`
          : `MCP tool ${name} takes other input than when the session started: its input schema changed (${called})`,
    };
  });
}

/** Checks whether a session can be resumed as it is; pure given its input. */
export function checkCompatibility(input: CheckCompatibilityInput): CompatibilityReport {
  const { state } = input;
  const findings: CompatibilityFinding[] = [];
  let similarity: number | null = null;

  const supported = input.formatVersion ?? JOURNAL_FORMAT_VERSION;
  if (state.header.formatVersion > supported) {
    findings.push({
      kind: 'format-newer',
      level: 'block',
      sessionVersion: state.header.formatVersion,
      supportedVersion: supported,
      message: `the session's journal format ${state.header.formatVersion} is newer than this version reads (${supported})`,
    });
  }

  const recorded = latestSpec(state);
  const recordedHash = state.header.specHash ?? recorded?.hash ?? null;
  if (input.spec !== undefined && recordedHash !== null) {
    const previousText = input.previousSpecText ?? recorded?.content ?? null;
    // Equal hashes, or equal normalized texts (a hash written by another normalization), mean unchanged.
    const unchanged =
      recordedHash === hashSpec(input.spec.text) ||
      recordedHash === input.spec.hash ||
      (previousText !== null && normalizeSpecText(previousText) === normalizeSpecText(input.spec.text));
    if (!unchanged) {
      if (previousText === null) {
        findings.push({
          kind: 'spec-changed',
          level: 'warn',
          similarity: null,
          message: 'the spec changed since the session started (the recorded text is not available to compare)',
        });
      } else {
        similarity = specSimilarity(previousText, input.spec.text);
        // A changed spec is never "100% similar": round down, and keep at most 99.
        const percent = Math.min(99, Math.floor(similarity * 100));
        const rewritten = similarity < REWRITE_SIMILARITY;
        findings.push({
          kind: 'spec-changed',
          level: rewritten ? 'block' : 'warn',
          similarity,
          message: rewritten
            ? `the spec was rewritten since the session started (${percent}% similar)`
            : `the spec changed since the session started (${percent}% similar)`,
        });
        const before = specStructure(previousText);
        const after = input.spec.structure === undefined ? specStructure(input.spec.text) : input.spec.structure;
        if (before !== null && after !== null) {
          findings.push(
            ...compareStructures(
              before,
              after,
              agentsThatRan(state),
              input.completedSpecSteps ?? Number.POSITIVE_INFINITY,
              input.stepKeys === 'id' ? state : null,
            ),
          );
        }
      }
    }
  }

  if (input.availableTools !== undefined && input.availableTools !== null) {
    const available = new Set(input.availableTools);
    const used = input.toolsUsed ?? [...new Set(state.toolCalls.map((call) => call.name))];
    for (const tool of [...new Set(used)].sort()) {
      if (available.has(tool)) continue;
      findings.push({
        kind: 'tool-missing',
        level: 'block',
        tool,
        message: `tool "${tool}" was used by the session but is not available now`,
      });
    }
  }

  if (input.mcpTools) findings.push(...mcpToolFindings(state, input.mcpTools.recorded, input.mcpTools.current));

  if (input.availableModels !== undefined && input.availableModels !== null) {
    const available = new Set(input.availableModels);
    const used = modelsUsedBy(state);
    const models = input.modelsUsed ?? [...used.keys()];
    // Providers answer with dated snapshots ("gpt-4o-2024-08-06") of the id that was asked for
    // ("gpt-4o"): a snapshot is judged by the id it belongs to, and never reported twice.
    const snapshotOf = (model: string, ids: Iterable<string>) =>
      [...ids].some((id) => id !== model && model.startsWith(`${id}-`) && /^\d{4}/.test(model.slice(id.length + 1)));
    const requested = [...new Set(models)].filter((model) => !snapshotOf(model, models));
    for (const model of requested.sort()) {
      if (available.has(model) || snapshotOf(model, available)) continue;
      const agents = [...(used.get(model) ?? [])].sort();
      findings.push({
        kind: 'model-unavailable',
        level: 'warn',
        model,
        agents,
        choices: ['use-same-model', 'use-other-model', 'cancel'],
        message: `model "${model}"${agents.length > 0 ? ` (used by ${agents.join(', ')})` : ''} is not in the provider's list of available models`,
      });
    }
  }

  return { level: levelOf(findings), findings, similarity, suggestions: suggestionsFor(findings) };
}
