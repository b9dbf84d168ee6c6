// The options every command accepts (docs/architecture.md#the-cli), validated once at the boundary.
import { lazySchema } from '@resume/core/lazy-schema';
import { UsageError } from '@resume/core/spec';
import { builtinProviders } from '@resume/runner/providers';
import { z } from 'zod';

/** Built on the first command's options. */
export const globalOptionsSchema = lazySchema(() =>
  z.object({
    home: z.string().min(1).optional(),
    store: z.string().min(1).optional(),
    provider: z
      .string()
      .refine((name) => builtinProviders.has(name), {
        error: () => `not a provider Conclave knows (use ${builtinProviders.names().join(', ')})`,
      })
      .optional(),
    model: z.string().min(1).optional(),
    json: z.boolean().default(false),
    quiet: z.boolean().default(false),
    /** Commander's `--no-color` sets `color: false`. */
    color: z.boolean().optional(),
    debug: z.boolean().default(false),
  }),
);
export type GlobalOptions = z.infer<typeof globalOptionsSchema>;

/** Validates the global options; a bad value is a usage error naming the option (exit 64). */
export function parseGlobalOptions(raw: unknown): GlobalOptions {
  const parsed = globalOptionsSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const option = issue?.path.map(String).join('.') ?? '';
  throw new UsageError(`Invalid value for --${option}: ${issue?.message ?? 'not valid'}.`, {
    hint: 'See: conclave --help',
  });
}
