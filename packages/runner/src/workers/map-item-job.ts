// Queued map items (docs/workers.md#queued-map-items): the job `conclave.map-item` runs one item
// of a queued run's map step as a child session of that run, on whichever worker took it. The
// item carries its workflow (the parent's spec with the map step alone, over that one item), so
// the worker needs no file. A child handed out again (its worker died) resumes from its journal.
import path from 'node:path';
import type { Engine } from '@resume/core';
import { type JsonValue, UsageError } from '@resume/core/spec';
import { z } from 'zod';
import { readUserFile } from '../files/user-file.js';
import { dispatchOf, MAP_ITEM_OF_KEY, queuedResultKey } from '../modes/chain-map-queued.js';
import { deadLetterKey } from '../modes/map-journal.js';
import { createRunner } from '../runner/runner.js';
import { inputFile } from '../runner/runner-scope.js';
import type { QueuedMapItem, RunnerOptions, RunResult } from '../runner/runner-types.js';

/** The name queued map items are put on a queue under. */
export const MAP_ITEM_JOB = 'conclave.map-item';

const queuedMapItemSchema = z.object({
  id: z.string().min(1),
  parentId: z.string().min(1),
  mapId: z.string().min(1),
  itemId: z.string(),
  file: z.string().min(1),
  text: z.string(),
  variables: z.record(z.string(), z.string()),
});

/** The queue item's input of a map item (what `MapItemQueue.enqueue` is given). */
export function queuedMapItem(item: QueuedMapItem): JsonValue {
  return { ...item };
}

/**
 * Runs a queued map item: starts its child session, or resumes it. Resolves once the child
 * ended or stopped; a failed item resolves too (its parent records it as a dead letter). Once
 * the child ended, `wake` is given its run's id: put the run on the queue again.
 */
export async function runMapItem(
  engine: Engine,
  options: Omit<RunnerOptions, 'engine' | 'readTextFile'>,
  input: JsonValue,
  wake: (runId: string) => Promise<unknown> = async () => undefined,
  /** Told of the item's runner while it runs (to interrupt it); returns what to call once it is done. */
  track: (runner: { interrupt(reason: string): Promise<void> }) => () => void = () => () => undefined,
): Promise<RunResult> {
  const parsed = queuedMapItemSchema.safeParse(input);
  if (!parsed.success) {
    throw new UsageError(
      `A queue item of ${MAP_ITEM_JOB} is not a map item: ${parsed.error.issues[0]?.message ?? 'not valid'}.`,
    );
  }
  const item = parsed.data;
  const specPath = path.resolve(options.workspaceDir, item.file);
  // The child runs its one item here, whatever queue the worker's runs put their items on.
  const { mapItems: _queue, ...inProcess } = options;
  const runner = createRunner({
    ...inProcess,
    engine,
    readTextFile: async (filePath) => (filePath === specPath ? item.text : readUserFile(filePath, inputFile())),
  });
  // Handed out again after its worker died between the child's end and the wake-up: wake only.
  const summary = await engine.store.getSummary(item.id);
  if (summary?.status === 'completed' || summary?.status === 'failed') {
    await wake(item.parentId);
    const state = await engine.readSession(item.id);
    return {
      sessionId: item.id,
      status: summary.status,
      conclusion: null,
      resumeCommand: null,
      usage: state.usage,
      error: null,
    };
  }
  const untrack = track(runner);
  let result: RunResult;
  try {
    result = summary
      ? await runner.resume(item.id, { workspaceDir: options.workspaceDir })
      : await runner.runWorkflow(specPath, {
          id: item.id,
          parentId: item.parentId,
          title: `${item.mapId}: item ${item.itemId}`,
          variables: item.variables,
          record: { [MAP_ITEM_OF_KEY]: { parentId: item.parentId, mapId: item.mapId, itemId: item.itemId } },
        });
  } finally {
    untrack();
  }
  if (result.status === 'completed' || result.status === 'failed') await wake(item.parentId);
  return result;
}

/**
 * Runs a queued workflow run (`run` starts or resumes it) until it ends or stops for items none
 * of which ended meanwhile: an item that ended while the run held its lease could not wake it.
 */
export async function runUntilItemsPending(
  engine: Engine,
  runId: string,
  run: () => Promise<RunResult>,
): Promise<RunResult> {
  for (;;) {
    const result = await run();
    if (result.stopReason !== 'map-items-queued' || !(await queuedItemsEnded(engine, runId))) return result;
  }
}

/**
 * Whether a run that stopped for its queued items has one whose child ended since, so it should
 * go on now: a child that ended while the run was still going could not run it (the run held
 * its lease), so whoever ran it asks this once the lease is released.
 */
export async function queuedItemsEnded(engine: Engine, parentId: string): Promise<boolean> {
  const state = await engine.readSession(parentId);
  const keys = new Set(state.steps.filter((step) => step.status === 'completed').map((step) => step.key));
  for (const step of state.steps) {
    const dispatched = dispatchOf(step.key);
    if (!dispatched || step.status !== 'completed') continue;
    const { base, generation } = dispatched;
    if (keys.has(queuedResultKey(base, generation)) || keys.has(deadLetterKey(base, generation))) continue;
    if (typeof step.output !== 'string') continue;
    const child = await engine.store.getSummary(step.output);
    if (child && (child.status === 'completed' || child.status === 'failed')) return true;
  }
  return false;
}
