// zod's `safeParse` with the check generated from the same schema in front (the
// `*-check.generated.ts` modules, scripts/generate-checks.mjs): a value the check accepts is
// what zod would return, so it is taken as it is and the schema is never built; anything else
// (invalid, or unusual) is zod's to parse or to report, as it always was.
import { type JournalEvent, safeParseJournalEvent } from '@resume/core/spec';
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

/**
 * A parser of a value with an `events` list (a journal record, an append's batch) whose head was
 * checked by `parseHead` with the events left unread: each event is then checked by the
 * journal's own event check, so the answer is what the whole schema's `safeParse` gives.
 */
export function withCheckedEvents<Head extends { events: unknown[] }>(
  parseHead: (value: unknown) => { success: true; data: Head } | { success: false; error: z.ZodError<unknown> },
): (
  value: unknown,
) =>
  | { success: true; data: Omit<Head, 'events'> & { events: JournalEvent[] } }
  | { success: false; error: z.ZodError<unknown> } {
  return (value) => {
    const head = parseHead(value);
    if (!head.success) return head;
    const events: JournalEvent[] = [];
    for (const event of head.data.events) {
      const parsed = safeParseJournalEvent(event);
      if (!parsed.success) return parsed;
      events.push(parsed.data);
    }
    return { success: true, data: { ...head.data, events } };
  };
}
