// Where a queued run's map items go (docs/workers.md#queued-map-items): the queue a worker gives
// its runner as `RunnerOptions.mapItems`.

/** One map item put on a queue: the child session `id` runs `text` (a workflow of that one item). */
export interface QueuedMapItem {
  id: string;
  parentId: string;
  mapId: string;
  itemId: string;
  /** The child's spec file name (`review.item.yaml`) and text. */
  file: string;
  text: string;
  variables: Record<string, string>;
}

export interface MapItemQueue {
  /** Puts an item on the queue. Called again for the same `id` only after a crash between the call and its journal record. */
  enqueue(item: QueuedMapItem): Promise<void>;
}
