// Runs a retention selection against the store: deletes, then archives (gzip, through
// the store's `archive`). Shared by `sessions cleanup` and the automatic retention after runs.
import type { Engine } from '@resume/core';
import { type RetentionPolicy, type RetentionSelection, selectForRetention } from '@resume/runner';

export interface RetentionOutcome {
  selection: RetentionSelection;
  deleted: string[];
  archived: string[];
  /** Sessions that could not be removed (a live process holds them) or archived. */
  skipped: { id: string; reason: string }[];
}

export async function applyRetention(
  engine: Engine,
  policy: RetentionPolicy,
  options: { now: Date; dryRun: boolean },
): Promise<RetentionOutcome> {
  const sessions = await engine.listSessions();
  const selection = selectForRetention(sessions, policy, options.now);
  const outcome: RetentionOutcome = { selection, deleted: [], archived: [], skipped: [] };
  if (options.dryRun) return outcome;
  for (const { session } of selection.remove) {
    try {
      await engine.deleteSession(session.id);
      outcome.deleted.push(session.id);
    } catch (error) {
      outcome.skipped.push({ id: session.id, reason: error instanceof Error ? error.message : String(error) });
    }
  }
  const archive = engine.store.archive?.bind(engine.store);
  for (const { session } of selection.archive) {
    if (!archive) {
      outcome.skipped.push({ id: session.id, reason: `the ${engine.store.kind} store does not archive` });
      continue;
    }
    try {
      await archive(session.id);
      outcome.archived.push(session.id);
    } catch (error) {
      outcome.skipped.push({ id: session.id, reason: error instanceof Error ? error.message : String(error) });
    }
  }
  return outcome;
}
