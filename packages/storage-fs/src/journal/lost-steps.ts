// What a repair can still tell about the part of a journal it removes: the steps started in
// it. The records there are damaged (the first one at least fails its checksum or does not
// parse), so step starts are picked out of the text one event object at a time: a
// `step-started` event is a flat JSON object, readable even when its record around it is not.
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
const flatObjectPattern = /\{[^{}]*"type":"step-started"[^{}]*\}/g;

/** The steps started in `removed` (journal text), once each, in journal order. */
export function stepsStartedIn(removed: Buffer): LostStep[] {
  const lost = new Map<string, LostStep>();
  for (const [text] of removed.toString('utf8').matchAll(flatObjectPattern)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
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
