// The flags of a run (`--resume`, `--continue`, `--branch-from` and a new session's), validated
// once at the boundary.
import { lazySchema, UsageError } from '@resume/core/spec';
import { z } from 'zod';
import { parseModeName } from '../modes/mode-names.js';

const positiveInteger = (flag: string) =>
  z.coerce
    .number({ error: `${flag} takes a whole number` })
    .int(`${flag} takes a whole number`)
    .positive(`${flag} must be at least 1`);

const modeOf = (value: string) => parseModeName(value, { listing: false });
const modelsOf = (value: string) =>
  value
    .split(',')
    .map((model) => model.trim())
    .filter(Boolean);

const CONFLICT_CHOICES = ['keep', 'restore', 'cancel'] as const;
const UNCERTAIN_CHOICES = ['rerun', 'skip', 'abort'] as const;

/** Built only when the flags are not plain (see `plain-options.ts`). */
export const runFlagsSchema = lazySchema(() =>
  z.object({
    continue: z.union([z.string(), z.boolean()]).optional(),
    resume: z.union([z.string(), z.boolean()]).optional(),
    branchFrom: z.string().optional(),
    atRound: positiveInteger('--at-round').optional(),
    mode: z.string().transform(modeOf).optional(),
    project: z.string().optional(),
    maxRounds: positiveInteger('--max-rounds').optional(),
    script: z.string().optional(),
    title: z.string().optional(),
    fromCheckpoint: z.string().optional(),
    startChunk: positiveInteger('--start-chunk').optional(),
    resetDiscussion: z.boolean().optional(),
    forceConsensus: z.boolean().optional(),
    models: z.string().transform(modelsOf).optional(),
    force: z.boolean().optional(),
    workspace: z.string().optional(),
    useEditedSpec: z.boolean().optional(),
    dryRun: z.boolean().optional(),
    yes: z.boolean().optional(),
    onConflict: z.enum(CONFLICT_CHOICES).optional(),
    onUncertain: z.enum(UNCERTAIN_CHOICES).optional(),
    maxCost: z.string().optional(),
    maxLineageCost: z.string().optional(),
    checkpointInterval: positiveInteger('--checkpoint-interval').optional(),
  }),
);
export type RunFlags = z.infer<typeof runFlagsSchema>;

/** Validates a run's flags; a bad value is a usage error that says what the flag takes (exit 64). */
export function parseRunFlags(options: Record<string, unknown>): RunFlags {
  const parsed = runFlagsSchema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UsageError(issue ? issue.message : 'Invalid options.', { hint: 'See conclave --help.' });
  }
  return parsed.data;
}
