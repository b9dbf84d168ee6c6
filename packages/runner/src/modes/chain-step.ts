// What a workflow's steps are run with and where a step stands: shared by the chain
// (chain.ts) and the map steps it runs (chain-map.ts), which import it rather than each other.

import { lazySchema } from '@resume/core/lazy-schema';
import { z } from 'zod';
import type { StepKeyScheme } from '../workflow/step-ids.js';
import type { StepResult, TemplateScope } from '../workflow/template.js';
import type { WorkflowLeafStep, WorkflowSpec } from '../workflow/workflow-spec.js';
import type { BranchRun } from './chain-parallel.js';
import type { CheckpointAnnouncer, ModeContext, ModeTool } from './mode-context.js';

export interface ChainOptions {
  spec: WorkflowSpec;
  /** The spec's file, for error messages. */
  file: string | null;
  variables: Record<string, string>;
  /** How the session keys its steps (recorded at its start; by position before step ids). */
  stepKeys: StepKeyScheme;
  /** How its checkpoint labels name steps (recorded at its start; by position before labels by id). */
  stepLabels: StepKeyScheme;
  /** Tools every agent step may call (the MCP servers of the spec's `mcp:`); none: one model call per step. */
  tools?: ModeTool[];
}

export const shellOutputSchema = lazySchema(() =>
  z.object({
    /** Null when the step was skipped (an uncertain run the user chose not to repeat). */
    exitCode: z.number().int().nullable(),
    stdoutTail: z.string(),
    stderrTail: z.string(),
    /** 0 when skipped. */
    attempt: z.number().int().nonnegative(),
    skipped: z.boolean().optional(),
  }),
);
export type ShellOutput = z.infer<typeof shellOutputSchema>;

/** Where a step stands: its number (`2`, or `3.2` for the second step of group 3) and its spec path. */
export interface StepPlace {
  index: number;
  number: string;
  path: string;
  /** How checkpoint labels name it (`step tests`, or `step 2 shell` in sessions recorded before). */
  label: string;
  /** Set for a member of a parallel group or a step of a map item. */
  branch: BranchRun | null;
  /** More environment for a shell step (a map item's `CONCLAVE_ITEM_*`). */
  env?: Record<string, string>;
  /** `CONCLAVE_STEP` when not the step's name, id or number (a map item's `<map>/<step>`). */
  stepName?: string;
  /** The checkpoint marked with the step's completion in a branch (a map item's last step: the item is done). */
  completionLabel?: (attempt: number) => string;
}

/** Runs one agent or shell step where `place` says (chain.ts's runLeafStep; a map step is handed it). */
export type LeafRunner = (
  context: ModeContext,
  options: ChainOptions,
  place: StepPlace,
  prefix: string,
  step: WorkflowLeafStep,
  scope: TemplateScope,
  announcer?: CheckpointAnnouncer,
) => Promise<StepResult & { shell: ShellOutput | null }>;
