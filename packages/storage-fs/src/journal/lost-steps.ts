// What a repair can still tell about the part of a journal it removes: the steps started in
// it. The records there are damaged (the first one at least fails its checksum or does not
// parse), so step starts are picked out of the text one event object at a time: each
// `"type":"step-started"` and the object around it (its own objects, such as the process it
// records, included), readable even when its record around it is not.
// A step that started and completed in the removed part is listed too: its completion is
// lost with it, so a resume runs it again.
import { lazySchema } from '@resume/core/lazy-schema';
import type { LostStep } from '@resume/core/spec';
import { z } from 'zod';

const stepStartedSchema = lazySchema(() =>
  z.object({
    type: z.literal('step-started'),
    key: z.string(),
    occurrence: z.number().int().positive(),
    safety: z.enum(['idempotent', 'unsafe']),
  }),
);
const STARTED = '"type":"step-started"';

/** The text of the JSON object around `at`, by its braces; null when it is cut. */
function objectAround(text: string, at: number): string | null {
  let start = at;
  for (let depth = 0; start >= 0; start -= 1) {
    const char = text[start];
    if (char === '}') depth += 1;
    else if (char === '{') {
      if (depth === 0) break;
      depth -= 1;
    }
  }
  if (start < 0) return null;
  for (let end = start, depth = 0; end < text.length; end += 1) {
    const char = text[end];
    if (char === '{') depth += 1;
    else if (char === '}') {
      depth -= 1;
      if (depth === 0) return text.slice(start, end + 1);
    }
  }
  return null;
}

/** The steps started in `removed` (journal text), once each, in journal order. */
export function stepsStartedIn(removed: Buffer): LostStep[] {
  const lost = new Map<string, LostStep>();
  const text = removed.toString('utf8');
  for (let at = text.indexOf(STARTED); at >= 0; at = text.indexOf(STARTED, at + STARTED.length)) {
    const event = objectAround(text, at);
    if (event === null) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(event);
    } catch {
      continue;
    }
    const started = stepStartedSchema.safeParse(parsed);
    if (!started.success) continue;
    const { key, occurrence, safety } = started.data;
    lost.set(`${key}#${occurrence}`, { key, occurrence, safety });
  }
  return [...lost.values()];
}
