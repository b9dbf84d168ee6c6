// `runner.mapItems` and `runner.retryItems`: a workflow session's map items by state (the
// dead-letter list among them), and a resume that first asks for failed items to run again.
import type { Engine, Session } from '@resume/core';
import { UsageError } from '@resume/core/spec';
import { MAP_RETRIES_KEY, type MapStepStatus, mapRetries, mapStatusesOf } from '../modes/map-journal.js';
import { withNextStep } from './next-step.js';
import { resume } from './resume.js';
import type { RunnerScope } from './runner-scope.js';
import type { ResumeOptions, RunResult } from './runner-types.js';

/** Which items `retryItems` runs again: every failed one, or these ids. */
export type ItemSelection = 'failed' | readonly string[];

/**
 * A workflow session's map steps with each item's state, read from its journal: what
 * `conclave run dlq` lists. No runner needed.
 */
export async function readMapItems(
  engine: Pick<Engine, 'resolveSessionId' | 'readSession' | 'store'>,
  sessionId: string,
): Promise<{ id: string; maps: MapStepStatus[] }> {
  const id = await engine.resolveSessionId(sessionId);
  return { id, maps: await mapStatusesOf(engine.store, await engine.readSession(id)) };
}

export async function mapItems(scope: RunnerScope, sessionId: string): Promise<MapStepStatus[]> {
  return (await readMapItems(scope.engine, sessionId)).maps;
}

/** The failed items a selection names, per map step id; a usage error for anything else. */
export function chooseItems(sessionId: string, maps: MapStepStatus[], selection: ItemSelection): Map<string, string[]> {
  const chosen = new Map<string, string[]>();
  const add = (stepId: string, itemId: string) => chosen.set(stepId, [...(chosen.get(stepId) ?? []), itemId]);
  if (selection === 'failed') {
    for (const map of maps) for (const item of map.items) if (item.state === 'failed') add(map.stepId, item.id);
    if (chosen.size === 0) {
      throw withNextStep(new UsageError(`Session ${sessionId} has no failed map items; there is nothing to retry.`), {
        kind: 'list-map-items',
        sessionId,
        andResume: true,
      });
    }
    return chosen;
  }
  for (const requested of selection) {
    const found = maps.flatMap((map) =>
      map.items.filter((item) => item.id === requested).map((item) => ({ map, item })),
    );
    const [match] = found;
    if (!match) {
      throw withNextStep(new UsageError(`Session ${sessionId} has no map item "${requested}".`), {
        kind: 'list-map-items',
        sessionId,
        andResume: false,
      });
    }
    if (match.item.state !== 'failed') {
      const problem = `Item "${requested}" of map step ${match.map.stepId} is ${match.item.state === 'completed' ? 'completed' : 'not finished'}, not failed; only failed items are retried.`;
      if (match.item.state === 'completed')
        throw new UsageError(problem, { hint: 'A completed item never runs again.' });
      throw withNextStep(new UsageError(problem), { kind: 'resume-unfinished-items', sessionId, startsFrom: 'file' });
    }
    for (const each of found) add(each.map.stepId, each.item.id);
  }
  return chosen;
}

export async function retryItems(
  scope: RunnerScope,
  sessionId: string,
  selection: ItemSelection,
  resumeOptions: ResumeOptions = {},
): Promise<RunResult> {
  const { id, maps } = await readMapItems(scope.engine, sessionId);
  const chosen = chooseItems(id, maps, selection);
  const count = [...chosen.values()].reduce((sum, ids) => sum + ids.length, 0);
  scope.emit({ type: 'notice', text: `Retrying ${count} failed item${count === 1 ? '' : 's'} of session ${id}.` });
  // Journaled once the session is open for writing: each retry is a new generation of the
  // item (its steps that passed before are kept, the failed one gets a fresh set of attempts).
  const askRetry = (session: Session) => {
    const retries = mapRetries(session.state);
    for (const [stepId, itemIds] of chosen) {
      const ofStep = { ...retries[stepId] };
      for (const itemId of itemIds) ofStep[itemId] = (ofStep[itemId] ?? 0) + 1;
      retries[stepId] = ofStep;
    }
    session.record({ type: 'data-set', key: MAP_RETRIES_KEY, value: retries });
  };
  return resume(scope, id, resumeOptions, askRetry);
}
