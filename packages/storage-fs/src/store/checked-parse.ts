// A record's parser whose events are checked by the journal's own event check. The rest of a
// record is checked by `checkedSafeParser` (@resume/core/lazy-schema): the check generated from
// its schema in front of zod.
import { type JournalEvent, safeParseJournalEvent } from '@resume/core/spec';
import type { z } from 'zod';

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
