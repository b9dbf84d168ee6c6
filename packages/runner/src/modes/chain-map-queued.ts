// A map step of a queued run (docs/workers.md#queued-map-items, decisions/0037): each item runs
// as a child session on whichever worker takes it from the queue, a workflow of that one item.
// The parent journals each dispatch (the child's id, derived from the parent, the item and its
// generation, so a dispatch repeated after a crash names the same child) and each child's
// outcome, at most `parallel` items out at once; while items are out it stops without holding
// a worker (MapItemsQueuedError) and is run again when one finishes.
import { createHash } from 'node:crypto';
import type { SessionState } from '@resume/core';
import { createSessionId, type JsonValue, sessionIdTime } from '@resume/core/spec';
import { parse } from 'yaml';
import { z } from 'zod';
import type { MapItem } from '../workflow/map-items.js';
import type { WorkflowMapStep } from '../workflow/workflow-spec.js';
import { MapItemsQueuedError } from './map-items-queued-error.js';
import { type DeadLetter, deadLetterKey, deadLetterSchema, itemDoneLabel } from './map-journal.js';
import { checkpoint, type ModeContext, setData } from './mode-context.js';

/** Where a child records its item's outcome (`sessions show` lists it as data). */
export const MAP_ITEM_RESULT_KEY = 'mapItemResult';
/** The header record of a child: whose item it runs. */
export const MAP_ITEM_OF_KEY = 'mapItemOf';

/** The step that put an item on the queue (its output: the child session's id). */
const dispatchKey = (base: string, generation: number) => `${base}/queued-${generation}`;
const DISPATCH_KEY = /^(.*)\/queued-(\d+)$/;

/** The item's key prefix and generation of a step that put an item on the queue; null for any other step. */
export function dispatchOf(stepKey: string): { base: string; generation: number } | null {
  const match = DISPATCH_KEY.exec(stepKey);
  return match ? { base: match[1] as string, generation: Number(match[2]) } : null;
}

/** The step that joins the result of the item dispatched as `base` / `generation`. */
export const queuedResultKey = (base: string, generation: number) => `${base}/queued-result-${generation}`;

const itemResultSchema = z.object({
  status: z.enum(['completed', 'failed']),
  output: z.string().nullable(),
  error: z.string().optional(),
});
type ItemResult = z.infer<typeof itemResultSchema>;
const childIdSchema = z.string();

export type QueuedOutcome =
  | { status: 'completed'; output: string | null }
  | { status: 'failed'; deadLetter: DeadLetter };

export interface QueuedItemsInput {
  index: number;
  mapId: string;
  step: WorkflowMapStep;
  items: MapItem[];
  parallel: number;
  /** Each item's journal key prefix (`step[review]/item/a`). */
  bases: Map<string, string>;
  retries: Record<string, number>;
  variables: Record<string, string>;
  file: string | null;
  inserted: boolean;
}

const codecOf = <T>(schema: z.ZodType<T>) => ({
  encode: (value: T) => value as unknown as JsonValue,
  decode: (value: JsonValue) => schema.parse(value),
});

/** The child session of an item's generation: the same id every time it is asked for. */
function childId(parentId: string, mapId: string, itemId: string, generation: number): string {
  const random = createHash('sha256').update(`${parentId}\n${mapId}\n${itemId}\n${generation}`).digest();
  return createSessionId(sessionIdTime(parentId), random);
}

/** A workflow of one item: the parent's spec with the map step alone, over that item. */
function childSpec(text: string, index: number, item: MapItem): string {
  const document = parse(text) as Record<string, unknown>;
  const steps = document.steps as Array<Record<string, unknown>>;
  const { reduce: _reduce, ...map } = (steps[index] as { map: Record<string, unknown> }).map;
  const { worktree: _worktree, ...rest } = document;
  return JSON.stringify({ ...rest, steps: [{ ...steps[index], map: { ...map, items: [item.value], parallel: 1 } }] });
}

/** A child's outcome once it ended: completed, or failed (its item's dead letter, or its run's error). */
function childOutcome(state: SessionState): ItemResult | null {
  const recorded = itemResultSchema.safeParse(state.data[MAP_ITEM_RESULT_KEY]);
  if (state.status === 'completed') return recorded.success ? recorded.data : { status: 'completed', output: null };
  if (state.status !== 'failed') return null;
  if (recorded.success) return recorded.data;
  return { status: 'failed', output: null, error: state.error?.message ?? 'the item session failed' };
}

/** Records in a child what its item came to, for the parent to read. */
export function recordItemResult(context: ModeContext, result: ItemResult): void {
  if (context.session.state.header.options[MAP_ITEM_OF_KEY] !== undefined)
    setData(context, MAP_ITEM_RESULT_KEY, result);
}

/** The outcome of every item, or MapItemsQueuedError while some are on the queue. */
export async function runQueuedItems(context: ModeContext, input: QueuedItemsInput): Promise<QueuedOutcome[]> {
  const { session } = context;
  const queued = context.mapItems;
  const { mapId, inserted } = input;
  const recorded = new Set(session.state.steps.filter((each) => each.status === 'completed').map((each) => each.key));
  const replayed = <T>(key: string, schema: z.ZodType<T>): Promise<T> =>
    session.step(
      key,
      () => {
        throw new Error(`${key} is recorded`);
      },
      { codec: codecOf(schema), inserted },
    );
  const outcomes: QueuedOutcome[] = [];
  const undispatched: MapItem[] = [];
  let out = 0;
  for (const item of input.items) {
    const base = input.bases.get(item.id) as string;
    const generation = (input.retries[item.id] ?? 0) + 1;
    const letterKey = deadLetterKey(base, generation);
    const resultKey = queuedResultKey(base, generation);
    const childKey = dispatchKey(base, generation);
    if (recorded.has(letterKey)) {
      outcomes[item.index] = { status: 'failed', deadLetter: await replayed(letterKey, deadLetterSchema) };
      continue;
    }
    if (recorded.has(resultKey)) {
      outcomes[item.index] = { status: 'completed', output: (await replayed(resultKey, itemResultSchema)).output };
      continue;
    }
    if (!recorded.has(childKey)) {
      undispatched.push(item);
      continue;
    }
    const child = await replayed(childKey, childIdSchema);
    const state = queued ? await queued.readSession(child).catch(() => null) : null;
    const ended = state ? childOutcome(state) : null;
    if (ended === null) {
      out += 1;
      continue;
    }
    if (ended.status === 'completed') {
      await session.step(resultKey, () => ended, { codec: codecOf(itemResultSchema), inserted });
      await checkpoint(context, itemDoneLabel(mapId, item.id));
      outcomes[item.index] = { status: 'completed', output: ended.output };
    } else {
      const letter: DeadLetter = {
        id: item.id,
        index: item.index,
        item: item.value,
        step: 'items',
        error: `${ended.error ?? 'failed'} (item session ${child})`,
        attempts: 0,
        generation,
      };
      const deadLetter = await session.step(letterKey, () => letter, { codec: codecOf(deadLetterSchema), inserted });
      outcomes[item.index] = { status: 'failed', deadLetter };
    }
  }
  if (queued) {
    const specText = undispatched.length > 0 ? await queued.specText() : '';
    for (const item of undispatched) {
      if (out >= input.parallel) break;
      const base = input.bases.get(item.id) as string;
      const generation = (input.retries[item.id] ?? 0) + 1;
      await session.step(
        dispatchKey(base, generation),
        async () => {
          const id = childId(session.id, mapId, item.id, generation);
          await queued.queue.enqueue({
            id,
            parentId: session.id,
            mapId,
            itemId: item.id,
            file: `${mapId}.item.yaml`,
            text: childSpec(specText, input.index, item),
            variables: input.variables,
          });
          return id;
        },
        { codec: codecOf(childIdSchema), inserted },
      );
      out += 1;
    }
  }
  const waiting = input.items.length - outcomes.filter(Boolean).length;
  if (waiting > 0) throw new MapItemsQueuedError({ stepId: mapId, waiting, total: input.items.length });
  return outcomes;
}

/** Whether a map step of this run has items on a queue (a resume waits for them there). */
export function hasQueuedItems(state: SessionState, prefix: string): boolean {
  return state.steps.some((each) => each.key.startsWith(`${prefix}/item/`) && dispatchOf(each.key) !== null);
}
