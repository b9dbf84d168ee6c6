// Where a queued run's map items are (docs/workers.md#queued-map-items), for `sessions show` and
// the TUI: read from the run's journal (which items went out, as which child session, and which
// the run already joined) and from each child still out (its status, and the worker holding it).
import type { Engine, SessionState } from '@resume/core';
import { dispatchOf } from '../modes/chain-map-queued.js';
import { itemPrefix, itemSegments, mapStatusesOf } from '../modes/map-journal.js';

/**
 * `waiting`: not on the queue yet (the map's `parallel` is full); `queued`: on the queue, no worker
 * runs it (not taken yet, or its worker stopped or died and it waits to be resumed); `running`:
 * a worker holds its session; `done` / `failed`: its child session ended.
 */
export type QueuedItemState = 'waiting' | 'queued' | 'running' | 'done' | 'failed';

export interface QueuedItemStatus {
  id: string;
  index: number;
  state: QueuedItemState;
  /** The item's child session, once it went on the queue. */
  sessionId: string | null;
  /** The worker process running it (`running` only). */
  worker: { host: string; pid: number } | null;
}

export interface QueuedMapStatus {
  /** The map step's id. */
  stepId: string;
  items: QueuedItemStatus[];
  counts: Record<QueuedItemState, number>;
}

/** The map steps of a run whose items went on a queue, each item with its state; empty for any other session. */
export async function queuedItemsOf(engine: Pick<Engine, 'store'>, state: SessionState): Promise<QueuedMapStatus[]> {
  const dispatched = state.steps.filter((step) => step.status === 'completed' && dispatchOf(step.key) !== null);
  if (dispatched.length === 0) return [];
  const maps = await mapStatusesOf(engine.store, state);
  const keys = state.steps.map((step) => step.key);
  const result: QueuedMapStatus[] = [];
  for (const map of maps) {
    const segments = itemSegments(
      map.prefix,
      map.items.map((item) => item.id),
      keys,
    );
    /** Each item's latest child session, by the item's key prefix. */
    const children = new Map<string, { generation: number; sessionId: string }>();
    for (const step of dispatched) {
      const { base: at, generation } = dispatchOf(step.key) as { base: string; generation: number };
      const known = children.get(at);
      if (typeof step.output === 'string' && (!known || known.generation < generation)) {
        children.set(at, { generation, sessionId: step.output });
      }
    }
    const items = await Promise.all(
      map.items.map(async (item): Promise<QueuedItemStatus> => {
        const child = children.get(itemPrefix(map.prefix, segments.get(item.id) ?? item.id)) ?? null;
        const base = { id: item.id, index: item.index, sessionId: child?.sessionId ?? null, worker: null };
        if (item.state === 'completed') return { ...base, state: 'done' };
        if (item.state === 'failed') return { ...base, state: 'failed' };
        if (!child) return { ...base, state: 'waiting' };
        const summary = await engine.store.getSummary(child.sessionId);
        if (summary?.status === 'completed') return { ...base, state: 'done' };
        if (summary?.status === 'failed') return { ...base, state: 'failed' };
        const holder = summary ? await engine.store.inspectLease(child.sessionId) : null;
        if (holder) return { ...base, state: 'running', worker: { host: holder.host, pid: holder.pid } };
        return { ...base, state: 'queued' };
      }),
    );
    if (!items.some((item) => item.sessionId !== null)) continue;
    const counts: Record<QueuedItemState, number> = { waiting: 0, queued: 0, running: 0, done: 0, failed: 0 };
    for (const item of items) counts[item.state] += 1;
    result.push({ stepId: map.stepId, items, counts });
  }
  return result;
}
