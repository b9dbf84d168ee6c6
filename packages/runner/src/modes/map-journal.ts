// How a map step is written in the journal, and how its items' states are read back from
// it (for `run dlq`, `run retry`, the resume plan) without the spec:
// - `<prefix>/items@<source hash>`: the item list, resolved once (a resume reuses it);
// - `<prefix>/item/<item>/<do step id>/...`: each item's steps, in the branch `map:<map id>:<item>`
//   (`<item>` is the id as one key segment, see `itemKeySegment`);
// - a checkpoint `map <map id>: item <item id> done` with the completion of an item's last step;
// - `<prefix>/item/<item>/dead-letter-<n>`: the item failed after its retries (n-th time);
// - `data.mapRetries`: per map step and item, how many times a retry was asked for.
import type { SessionState, StepRecord } from '@resume/core';
import { lazySchema } from '@resume/core/lazy-schema';
import type { JsonValue, SessionStore } from '@resume/core/spec';
import { z } from 'zod';
import { itemKeySegment } from '../workflow/map-items.js';
import { stepIdOfKey } from '../workflow/step-ids.js';

export const MAP_RETRIES_KEY = 'mapRetries';

export const mapItemSchema = lazySchema(() =>
  z.object({ id: z.string(), index: z.number().int().nonnegative(), value: z.unknown() }),
);
export const mapItemListSchema = lazySchema(() => z.array(mapItemSchema));

export const deadLetterSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    index: z.number().int().nonnegative(),
    item: z.unknown(),
    /** The do: step that failed (its id), or `artifacts`. */
    step: z.string(),
    error: z.string(),
    attempts: z.number().int().nonnegative(),
    /** 1 for the first failure, 2 after one retry... */
    generation: z.number().int().positive(),
  }),
);
export type DeadLetter = z.infer<typeof deadLetterSchema>;

export const itemsKey = (prefix: string, sourceHash: string) => `${prefix}/items@${sourceHash}`;
export const itemPrefix = (prefix: string, segment: string) => `${prefix}/item/${segment}`;
export const itemBranch = (mapId: string, segment: string) => `map:${mapId}:${segment}`;
export const deadLetterKey = (prefixOfItem: string, generation: number) => `${prefixOfItem}/dead-letter-${generation}`;
export const itemDoneLabel = (mapId: string, itemId: string) => `map ${mapId}: item ${itemId} done`;

/**
 * Each item's key segment in a journal whose completed or started step keys are `keys`.
 * Releases before ids were escaped wrote an id with `/` as it is (`item/src/a.ts/...`): an
 * item recorded that way keeps that segment, so its results are found and never redone.
 */
export function itemSegments(prefix: string, ids: readonly string[], keys: Iterable<string>): Map<string, string> {
  const itemsAt = `${prefix}/item/`;
  const recorded = new Set<string>();
  for (const key of keys) {
    if (!key.startsWith(itemsAt)) continue;
    const rest = key.slice(itemsAt.length);
    for (let slash = rest.indexOf('/'); slash > 0; slash = rest.indexOf('/', slash + 1)) {
      recorded.add(rest.slice(0, slash));
    }
  }
  return new Map(
    ids.map((id) => {
      const segment = itemKeySegment(id);
      const legacy = id.includes('/') && !recorded.has(segment) && recorded.has(id);
      return [id, legacy ? id : segment];
    }),
  );
}

/**
 * Groups the steps under `<prefix>/item/` by the item segment they belong to. An old journal's
 * segments with `/` are matched longest first, so item `src` does not take the steps of item
 * `src/a.ts`.
 */
function stepsBySegment(prefix: string, segments: Iterable<string>, steps: readonly StepRecord[]) {
  const itemsAt = `${prefix}/item/`;
  const withSlash = [...segments].filter((segment) => segment.includes('/')).sort((a, b) => b.length - a.length);
  const grouped = new Map<string, StepRecord[]>();
  for (const step of steps) {
    if (!step.key.startsWith(itemsAt)) continue;
    const rest = step.key.slice(itemsAt.length);
    const segment = withSlash.find((each) => rest.startsWith(`${each}/`)) ?? rest.split('/')[0] ?? '';
    const list = grouped.get(segment) ?? [];
    list.push(step);
    grouped.set(segment, list);
  }
  return grouped;
}

/** Per map step id and item id: the retries asked for so far. */
export function mapRetries(state: SessionState): Record<string, Record<string, number>> {
  const parsed = z.record(z.string(), z.record(z.string(), z.number().int())).safeParse(state.data[MAP_RETRIES_KEY]);
  return parsed.success ? parsed.data : {};
}

export type ItemState = 'completed' | 'failed' | 'started' | 'pending';

export interface MapItemStatus {
  id: string;
  index: number;
  state: ItemState;
  /** The last dead letter of a failed item. */
  deadLetter: DeadLetter | null;
}

export interface MapStepStatus {
  /** The map step's id (`review`). */
  stepId: string;
  /** Its journal key prefix (`step[review]`). */
  prefix: string;
  items: MapItemStatus[];
  counts: Record<ItemState, number>;
}

const ITEMS_KEY = /^(.+)\/items@[0-9a-f]{8}$/;

/** The recorded output of a step, read from its blob when it was large. */
export type OutputReader = (step: StepRecord) => Promise<JsonValue | undefined>;

/**
 * Every map step the journal holds, with each item's state: completed (its last step passed),
 * failed (in the dead-letter list and not asked to retry since), started (some of its steps
 * ran: it was running or was interrupted) or pending.
 */
export async function mapStatuses(state: SessionState, readOutput: OutputReader): Promise<MapStepStatus[]> {
  const lists = new Map<string, StepRecord>();
  for (const step of state.steps) {
    const match = ITEMS_KEY.exec(step.key);
    if (match?.[1] && step.status === 'completed') lists.set(match[1], step);
  }
  if (lists.size === 0) return [];
  const retries = mapRetries(state);
  const labels = new Set(state.checkpoints.map((checkpoint) => checkpoint.label));
  const statuses: MapStepStatus[] = [];
  for (const [prefix, listStep] of lists) {
    const stepId = stepIdOfKey(listStep.key) ?? prefix;
    const parsed = mapItemListSchema.safeParse(await readOutput(listStep));
    if (!parsed.success) continue;
    const segments = itemSegments(
      prefix,
      parsed.data.map((item) => item.id),
      state.steps.map((step) => step.key),
    );
    const stepsOfItem = stepsBySegment(prefix, segments.values(), state.steps);
    const counts: Record<ItemState, number> = { completed: 0, failed: 0, started: 0, pending: 0 };
    const items: MapItemStatus[] = [];
    for (const item of parsed.data) {
      const segment = segments.get(item.id) ?? itemKeySegment(item.id);
      const generation = (retries[stepId]?.[item.id] ?? 0) + 1;
      const own = stepsOfItem.get(segment) ?? [];
      const dead = own.find(
        (step) => step.key === deadLetterKey(itemPrefix(prefix, segment), generation) && step.status === 'completed',
      );
      let itemState: ItemState = 'pending';
      let deadLetter: DeadLetter | null = null;
      if (labels.has(itemDoneLabel(stepId, item.id))) itemState = 'completed';
      else if (dead) {
        itemState = 'failed';
        const letter = deadLetterSchema.safeParse(await readOutput(dead));
        deadLetter = letter.success ? letter.data : null;
      } else if (own.length > 0) itemState = 'started';
      counts[itemState] += 1;
      items.push({ id: item.id, index: item.index, state: itemState, deadLetter });
    }
    statuses.push({ stepId, prefix, items, counts });
  }
  return statuses;
}

/** Each map step's items by state in a session's state (large item lists from the blob store). */
export function mapStatusesOf(store: Pick<SessionStore, 'getBlob'>, state: SessionState): Promise<MapStepStatus[]> {
  const readOutput = async (step: StepRecord): Promise<JsonValue | undefined> => {
    if (step.output !== undefined) return step.output;
    if (step.outputBlob === undefined) return undefined;
    const content = await store.getBlob(step.outputBlob);
    return content ? (JSON.parse(Buffer.from(content).toString('utf8')) as JsonValue) : undefined;
  };
  return mapStatuses(state, readOutput);
}
