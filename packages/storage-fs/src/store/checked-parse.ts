// zod's `safeParse` with the check generated from the same schema in front (the
// `*-check.generated.ts` modules, scripts/generate-checks.mjs): a value the check accepts is
// what zod would return, so it is taken as it is and the schema is never built; anything else
// (invalid, or unusual) is zod's to parse or to report, as it always was.
import type { z } from 'zod';

/** What a generated check answers: the parsed value, or undefined when zod must decide. */
export type GeneratedCheck = (value: unknown) => unknown;

export function checkedSafeParser<Schema extends z.ZodType>(
  schema: Schema,
  check: GeneratedCheck,
): (value: unknown) => { success: true; data: z.output<Schema> } | { success: false; error: z.ZodError<unknown> } {
  return (value) => {
    const checked = check(value);
    if (checked !== undefined) return { success: true, data: checked as z.output<Schema> };
    const result = schema.safeParse(value);
    return result.success ? { success: true, data: result.data } : { success: false, error: result.error };
  };
}
