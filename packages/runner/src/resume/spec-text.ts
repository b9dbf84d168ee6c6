// Spec text helpers for compatibility checks: the normalized hash a session records at
// start, a similarity score between two versions, and the structure (agents, steps) of a
// workflow spec so a structural change can be told from a cosmetic one.
import { createHash } from 'node:crypto';
import { lazySchema } from '@resume/core/lazy-schema';
import { diffArrays } from 'diff';
import { parse } from 'yaml';
import { z } from 'zod';
import { workflowStepTree } from '../workflow/step-ids.js';

/** Line endings, trailing spaces, a BOM and surrounding blank lines do not change a spec's meaning. */
export function normalizeSpecText(text: string): string {
  return text
    .replace(/^\uFEFF/, '')
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .replace(/^\n+/, '')
    .replace(/\n+$/, '');
}

/** `sha256:<hex>` of the normalized text: the hash recorded at start and compared on resume. */
export function hashSpec(text: string): string {
  return `sha256:${createHash('sha256').update(normalizeSpecText(text), 'utf8').digest('hex')}`;
}

/** Below this similarity a changed spec counts as rewritten, not edited. */
export const REWRITE_THRESHOLD = 0.5;

function tokenize(text: string): string[] {
  return normalizeSpecText(text).match(/[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_]/gu) ?? [];
}

/** Diff work is bounded: beyond this many token edits the exact ratio is not worth its cost. */
const MAX_EDITS = 1000;

/** 2 × tokens in common regardless of order / tokens in both: an upper bound of the ordered ratio, in linear time. */
function unorderedRatio(left: readonly string[], right: readonly string[]): number {
  const counts = new Map<string, number>();
  for (const token of left) counts.set(token, (counts.get(token) ?? 0) + 1);
  let common = 0;
  for (const token of right) {
    const count = counts.get(token) ?? 0;
    if (count > 0) {
      common += 1;
      counts.set(token, count - 1);
    }
  }
  return (2 * common) / (left.length + right.length);
}

/**
 * Similarity of two texts in [0, 1]: 2 × (tokens in common, in order) / (tokens in both),
 * the ratio Python's difflib reports, over word and punctuation tokens. 1 means equal up to
 * whitespace; a reworded sentence in a page stays high; a rewrite goes towards 0.
 * Deterministic and bounded in time: texts that share few tokens at all, or that need more
 * than MAX_EDITS token edits, get an upper bound instead, which is already low.
 */
export function specSimilarity(before: string, after: string): number {
  const left = tokenize(before);
  const right = tokenize(after);
  const total = left.length + right.length;
  if (total === 0) return 1;
  const upperBound = unorderedRatio(left, right);
  if (upperBound < REWRITE_THRESHOLD) return upperBound;
  const changes = diffArrays(left, right, { maxEditLength: MAX_EDITS });
  if (changes === undefined) return Math.min(upperBound, 1 - MAX_EDITS / total);
  let common = 0;
  for (const change of changes) {
    if (!change.added && !change.removed) common += change.count;
  }
  return (2 * common) / total;
}

export interface SpecStructure {
  /** Agent names the spec defines. */
  agents: string[];
  /** One descriptor per step, in order (`agent:writer`, `shell:npm test`, or the step's `name`). */
  steps: string[];
  /** Each step's stable id, in order (see workflowStepTree; a parallel group's steps follow it). */
  ids: string[];
  /** What each step is, in order, in words (`a shell step`, `an agent step (agent writer)`). */
  kinds: string[];
}

// Built on first use: only a spec that changed since the run is compared by its structure.
const workflowShapeSchema = lazySchema(() => {
  const stepShape = {
    name: z.string().optional(),
    id: z.string().optional(),
    agent: z.string().optional(),
    input: z.string().optional(),
    shell: z.string().optional(),
  };
  return z.object({
    agents: z.record(z.string(), z.unknown()).optional(),
    steps: z.array(z.looseObject({ ...stepShape, parallel: z.array(z.looseObject(stepShape)).optional() })).optional(),
  });
});

type StepShape = {
  name?: string | undefined;
  id?: string | undefined;
  agent?: string | undefined;
  shell?: string | undefined;
};

function kindOfStep(step: StepShape & { parallel?: unknown; map?: unknown }): string {
  if (step.parallel !== undefined) return 'a parallel group';
  if (step.map !== undefined) return 'a map step';
  if (step.agent !== undefined) return `an agent step (agent ${step.agent})`;
  if (step.shell !== undefined) return 'a shell step';
  return 'a step';
}

function describeStep(step: StepShape): string {
  if (step.name !== undefined) return step.name;
  if (step.id !== undefined) return step.id;
  if (step.agent !== undefined) return `agent:${step.agent}`;
  if (step.shell !== undefined) return `shell:${step.shell.trim()}`;
  return 'step';
}

/**
 * The structure of a workflow spec (YAML with `agents` and/or `steps`), or null for text
 * that is not one (a task, a prompt file's body): those can only change cosmetically or not.
 */
export function specStructure(text: string): SpecStructure | null {
  let document: unknown;
  try {
    document = parse(text);
  } catch {
    return null;
  }
  const parsed = workflowShapeSchema.safeParse(document);
  if (!parsed.success || (parsed.data.agents === undefined && parsed.data.steps === undefined)) return null;
  const steps = parsed.data.steps ?? [];
  // A parallel group's steps follow it: each ran (or not) on its own and is checked by its id.
  const tree = workflowStepTree(steps);
  return {
    agents: Object.keys(parsed.data.agents ?? {}),
    ids: tree.flatMap((step) => [step.id, ...(step.members ?? [])]),
    steps: steps.flatMap((step) => [
      step.name === undefined && step.id === undefined && (step.parallel !== undefined || step.map !== undefined)
        ? step.parallel !== undefined
          ? 'parallel'
          : 'map'
        : describeStep(step),
      ...(step.parallel ?? []).map(describeStep),
    ]),
    kinds: steps.flatMap((step) => [kindOfStep(step), ...(step.parallel ?? []).map(kindOfStep)]),
  };
}
