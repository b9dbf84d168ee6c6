// Stable step ids: what a workflow step's journal keys are made of, so a resume finds a
// step's recorded result however the spec's steps were reordered, inserted or deleted.
// A step's id is its `id:`, else its `name:`, else derived from its kind and content
// (`shell-1a2b3c4d`, `agent-researcher-5e6f7a8b`); equal ids get `~2`, `~3` in spec order.
import { createHash } from 'node:crypto';

/** The fields of a step that decide its id (a parsed step, or a loosely read one). */
export interface StepIdentity {
  id?: string | undefined;
  name?: string | undefined;
  agent?: string | undefined;
  input?: string | undefined;
  shell?: string | undefined;
  /** A parallel group's steps (each has an id of its own, in the same namespace). */
  parallel?: readonly StepIdentity[] | undefined;
  /** A map step: its id derives from its `do:` steps' ids (which are its own, per item). */
  map?: unknown;
  /** A validate step: its id derives from its check (a command, or an agent and its input). */
  validate?: unknown;
  /** A goal_seek step: its id derives from what each attempt runs. */
  goal_seek?: unknown;
  /** A sleep step: `sleep` (`sleep~2`...); its wake time is recorded when it first runs, so an edit does not move it. */
  sleep?: unknown;
  sleep_until?: unknown;
}

/** A step's id and, for a parallel group, its members' ids. */
export interface StepIds {
  id: string;
  members: string[] | null;
}

/** How a session's chain steps are keyed in its journal: by position (before step ids) or by id. */
export type StepKeyScheme = 'position' | 'id';

/** The scheme new sessions use; sessions recorded without one keep position keys. */
export const CURRENT_STEP_KEY_SCHEME: StepKeyScheme = 'id';

const DEFAULT_AGENT_INPUT = '{{ last_response }}';

function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 8);
}

/** The id a step would have on its own, before equal ids are told apart. */
function ownId(step: StepIdentity): string {
  if (step.id !== undefined) return step.id;
  if (step.name !== undefined) return step.name;
  if (step.parallel !== undefined) return `parallel-${shortHash(`parallel\n${step.parallel.map(ownId).join('\n')}`)}`;
  if (typeof step.map === 'object' && step.map !== null && 'do' in step.map && Array.isArray(step.map.do)) {
    // The same in a parsed spec and in a loosely read one: only the do: steps' own ids count.
    const steps = (step.map.do as unknown[]).filter(
      (each): each is StepIdentity => typeof each === 'object' && each !== null,
    );
    return `map-${shortHash(`map\n${workflowStepIds(steps).join('\n')}`)}`;
  }
  for (const kind of ['validate', 'goal_seek'] as const) {
    const action = step[kind];
    if (typeof action !== 'object' || action === null) continue;
    // The same in a parsed spec and in a loosely read one: only what the step runs counts.
    const { shell, agent, input } = action as Record<string, unknown>;
    return `${kind.replace('_', '-')}-${shortHash(`${kind}\n${String(shell ?? '')}\n${String(agent ?? '')}\n${String(input ?? '')}`)}`;
  }
  if (step.sleep !== undefined || step.sleep_until !== undefined) return 'sleep';
  if (step.shell !== undefined) return `shell-${shortHash(`shell\n${step.shell.trim()}`)}`;
  if (step.agent !== undefined) {
    return `agent-${step.agent}-${shortHash(`agent\n${step.agent}\n${(step.input ?? DEFAULT_AGENT_INPUT).trim()}`)}`;
  }
  return 'step';
}

/**
 * Each step's stable id, in spec order, with a parallel group's members' ids. Groups and
 * their members share one namespace with the other steps (a member is found by its id alone).
 */
export function workflowStepTree(steps: readonly StepIdentity[]): StepIds[] {
  const seen = new Map<string, number>();
  const unique = (step: StepIdentity) => {
    const id = ownId(step);
    const count = (seen.get(id) ?? 0) + 1;
    seen.set(id, count);
    return count === 1 ? id : `${id}~${count}`;
  };
  return steps.map((step) => {
    const id = unique(step);
    return { id, members: step.parallel ? step.parallel.map(unique) : null };
  });
}

/** Each step's stable id, in spec order (a parallel group's own id; see workflowStepTree). */
export function workflowStepIds(steps: readonly StepIdentity[]): string[] {
  return workflowStepTree(steps).map((step) => step.id);
}

/**
 * The journal key prefix of a chain step: `step[<id>]` for sessions keyed by id, `step-<N>`
 * (1-based position) for sessions recorded before step ids.
 */
export function stepKeyPrefix(scheme: StepKeyScheme, index: number, id: string): string {
  return scheme === 'id' ? `step[${id}]` : `step-${index + 1}`;
}

/**
 * The journal key prefix of a parallel group's member: `step[<member id>]` (ids are unique
 * across groups), `step-<N>.<M>` for sessions keyed by position.
 */
export function memberKeyPrefix(scheme: StepKeyScheme, index: number, at: number, id: string): string {
  return scheme === 'id' ? `step[${id}]` : `step-${index + 1}.${at + 1}`;
}

/**
 * How checkpoint labels name a chain step: by its id (`step tests`, `step shell-1a2b3c4d`), so a
 * label keeps meaning the same step after the spec is edited; sessions recorded before that
 * keep position labels (`step 2 shell`, `step 2 writer`: `kind` is `shell`, the agent, `parallel`).
 */
export function stepLabel(scheme: StepKeyScheme, index: number, id: string, kind: string): string {
  return scheme === 'id' ? `step ${id}` : `step ${index + 1} ${kind}`;
}

/** The step id in a key written under the id scheme (`step[tests]/shell` → `tests`), or null. */
export function stepIdOfKey(key: string): string | null {
  const match = /^step\[(.+)\]\/[^\]]*$/.exec(key);
  return match ? (match[1] ?? null) : null;
}
