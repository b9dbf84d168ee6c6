// `--limit <n>` of the commands whose option is nothing else (`sessions search`,
// `checkpoints list`): a whole number above 0, or a usage error that says so.
import { UsageError } from '@resume/core/spec';
import { z } from 'zod';

const limitOptionSchema = z.object({ limit: z.coerce.number().int().positive().optional() });

/** The `--limit` of the command's options; undefined when it was not given. */
export function limitOption(options: Record<string, unknown>): number | undefined {
  const parsed = limitOptionSchema.safeParse(options);
  if (!parsed.success) throw new UsageError('Invalid --limit: give a whole number above 0 (--limit 10).');
  return parsed.data.limit;
}
