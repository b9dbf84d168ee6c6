// The options every command accepts (DESIGN 9), validated once at the boundary.
import { z } from 'zod';

export const globalOptionsSchema = z.object({
  home: z.string().min(1).optional(),
  store: z.string().min(1).optional(),
  provider: z.enum(['scripted', 'openai', 'anthropic']).optional(),
  model: z.string().min(1).optional(),
  json: z.boolean().default(false),
  quiet: z.boolean().default(false),
  /** Commander's `--no-color` sets `color: false`. */
  color: z.boolean().optional(),
  debug: z.boolean().default(false),
});
export type GlobalOptions = z.infer<typeof globalOptionsSchema>;
