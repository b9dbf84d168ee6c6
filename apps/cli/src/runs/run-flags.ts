// The flags of a run (`--resume`, `--continue`, `--branch-from` and a new session's), validated
// once at the boundary. The modes' start options (`--max-rounds`, `--project`...) are the flags
// the registered modes declare (`modeFlags`), checked by what each declares it takes.
import { lazySchema } from '@resume/core/lazy-schema';
import { UsageError } from '@resume/core/spec';
import type { ModeFlag, RunOverrides } from '@resume/runner/modes';
import { z } from 'zod';
import { modeFlags, parseModeName } from '../modes/mode-names.js';
import { CONFLICT_CHOICES, UNCERTAIN_CHOICES } from './resume-choices.js';

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

/** A mode's start option as its flag gives it (a text from the command line, or a switch). */
function modeFlagSchema(flag: ModeFlag) {
  if (flag.value === 'count') return positiveInteger(flag.flags.split(' ')[0] ?? flag.option).optional();
  return (flag.value === 'text' ? z.string() : z.boolean()).optional();
}

/** The modes' start options among a run's flags, as the modes read them. */
const modeOptionsSchema = lazySchema(() =>
  z.object(Object.fromEntries(modeFlags().map((flag) => [flag.option, modeFlagSchema(flag)]))),
);

/** Built on the first run's flags. */
export const runFlagsSchema = lazySchema(() =>
  z.object({
    continue: z.union([z.string(), z.boolean()]).optional(),
    resume: z.union([z.string(), z.boolean()]).optional(),
    branchFrom: z.string().optional(),
    atRound: positiveInteger('--at-round').optional(),
    mode: z.string().transform(modeOf).optional(),
    script: z.string().optional(),
    title: z.string().optional(),
    fromCheckpoint: z.string().optional(),
    resetDiscussion: z.boolean().optional(),
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
export type RunFlags = z.infer<typeof runFlagsSchema> & {
  /** The modes' start options given, by option name (`maxRounds: 3`). */
  modeOptions: Record<string, string | number | boolean>;
};

/** The modes' start options a resume or a follow-up also takes as overrides. */
export function overridesOf(flags: RunFlags): Pick<RunOverrides, 'forceConsensus' | 'maxRounds' | 'startChunk'> {
  const { forceConsensus, maxRounds, startChunk } = flags.modeOptions as RunOverrides;
  return {
    ...(forceConsensus ? { forceConsensus } : {}),
    ...(maxRounds ? { maxRounds } : {}),
    ...(startChunk ? { startChunk } : {}),
  };
}

/** Validates a run's flags; a bad value is a usage error that says what the flag takes (exit 64). */
export function parseRunFlags(options: Record<string, unknown>): RunFlags {
  const flags = parsedOrUsageError(runFlagsSchema, options);
  return { ...flags, modeOptions: parsedOrUsageError(modeOptionsSchema, options) as RunFlags['modeOptions'] };
}

function parsedOrUsageError<Output>(schema: z.ZodType<Output>, options: Record<string, unknown>): Output {
  const parsed = schema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UsageError(issue ? issue.message : 'Invalid options.', { hint: 'See conclave --help.' });
  }
  return parsed.data;
}
