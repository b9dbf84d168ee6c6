// Start options as modes declare them: validated before any session exists, so a bad value
// is a usage error naming the option, never a half-started run.
import { UsageError } from '@resume/core/spec';
import { z } from 'zod';

const WHOLE_NUMBER = 'must be a whole number of at least 1';

/** An optional option that is a whole number of at least 1. */
export function positiveIntegerOption() {
  return z.number(WHOLE_NUMBER).int(WHOLE_NUMBER).min(1, WHOLE_NUMBER).optional();
}

/** The options a mode declares, parsed from the caller's; other keys are ignored. */
export function parseModeOptions<Options>(
  modeName: string,
  schema: z.ZodType<Options>,
  options: Record<string, unknown>,
): Options {
  const parsed = schema.safeParse(options);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const key = issue?.path.map(String).join('.') ?? '';
  const value = key ? options[key] : undefined;
  throw new UsageError(
    `${key || 'An option'} ${issue?.message ?? 'is not valid'}${value === undefined ? '' : ` (got ${JSON.stringify(value)})`}.`,
    { hint: `See the options of the ${modeName} mode in docs/modes.md.` },
  );
}
