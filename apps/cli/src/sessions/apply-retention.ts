// Runs a retention selection against the store: moves sessions to the trash, then archives
// (gzip, through the store's `archive`), and deletes for good what stayed in the trash longer
// than it keeps them. Shared by `sessions cleanup` and the automatic retention after runs.
import type { Engine } from '@resume/core';
import type { SessionSummary } from '@resume/core/spec';
import { type RetentionPolicy, type RetentionSelection, selectForRetention } from '@resume/runner';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface RetentionOutcome {
  selection: RetentionSelection;
  /** Moved to the trash (restorable until it is emptied). */
  deleted: string[];
  archived: string[];
  /** Deleted for good: in the trash for longer than it keeps them. */
  purged: string[];
  /** Sessions that could not be moved (a live process holds them), archived or deleted. */
  skipped: { id: string; reason: string }[];
}

export async function applyRetention(
  engine: Engine,
  policy: RetentionPolicy,
  options: { now: Date; dryRun: boolean; trashKeepDays?: number },
): Promise<RetentionOutcome> {
  const sessions = await engine.listSessions();
  const selection = selectForRetention(sessions, policy, options.now);
  const outcome: RetentionOutcome = { selection, deleted: [], archived: [], purged: [], skipped: [] };
  if (options.dryRun) return outcome;
  const skip = (id: string, error: unknown) =>
    outcome.skipped.push({ id, reason: error instanceof Error ? error.message : String(error) });
  for (const { session } of selection.remove) {
    try {
      await engine.changeMetadata(session.id, { trashed: true });
      outcome.deleted.push(session.id);
    } catch (error) {
      skip(session.id, error);
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
      skip(session.id, error);
    }
  }
  if (options.trashKeepDays !== undefined) {
    for (const session of expiredTrash(await engine.listTrash(), options.trashKeepDays, options.now)) {
      try {
        await engine.deleteSession(session.id);
        outcome.purged.push(session.id);
      } catch (error) {
        skip(session.id, error);
      }
    }
  }
  return outcome;
}

/** The sessions in the trash for more than `days` as of `now`. */
export function expiredTrash(trash: readonly SessionSummary[], days: number, now: Date): SessionSummary[] {
  const limit = now.getTime() - days * DAY_MS;
  return trash.filter((session) => Date.parse(session.trashedAt ?? '') <= limit);
}

/** When a session in the trash is deleted for good, kept `days` from `trashedAt`. */
export function trashExpiry(session: SessionSummary, days: number): string | null {
  const at = Date.parse(session.trashedAt ?? '');
  return Number.isNaN(at) ? null : new Date(at + days * DAY_MS).toISOString();
}
