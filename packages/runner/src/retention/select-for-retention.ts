// Which sessions a retention policy removes or archives, decided from summaries alone
// (no journal is opened). Running sessions are never selected; interrupted ones only
// when the caller asks, because they are exactly what a user comes back to resume; pinned
// ones are never removed (they may still be compressed).
import { formatBytes, type SessionStatus, type SessionSummary } from '@resume/core/spec';
import { dayMs, parseDuration } from '../config/duration.js';

export { formatBytes };

export interface RetentionPolicy {
  /** Remove sessions not updated for more than this many days. */
  maxAgeDays?: number | null;
  /** Keep only the newest N sessions. */
  maxSessions?: number | null;
  /** Remove older sessions once the newer ones add up to this many bytes. */
  maxBytes?: number | null;
  /** The newest N sessions are never removed (default 0). */
  minKeep?: number | null;
  /** Compress finished sessions not updated for more than this many days. */
  archiveAfterDays?: number | null;
  /** Which statuses may be removed (default completed and failed). `running` is always refused. */
  statuses?: readonly SessionStatus[];
}

export interface RetentionReason {
  session: SessionSummary;
  /** Why, in words a user reads in a dry run: `older than 30 days`, `beyond the newest 500`... */
  reason: string;
}

export interface RetentionSelection {
  remove: RetentionReason[];
  archive: RetentionReason[];
  /** Pinned sessions the policy would have removed: kept, whatever the policy says. */
  pinned: RetentionReason[];
}

const DAY_MS = 24 * 60 * 60 * 1000;
const defaultStatuses: readonly SessionStatus[] = ['completed', 'failed'];

/**
 * Applies `policy` to `sessions` (any order) as of `now`. Every limit counts all sessions
 * newest first, so a policy of "500 sessions" keeps the 500 newest whatever their status.
 */
export function selectForRetention(
  sessions: readonly SessionSummary[],
  policy: RetentionPolicy,
  now: Date,
): RetentionSelection {
  const newestFirst = [...sessions].sort(
    (left, right) => right.updatedAt.localeCompare(left.updatedAt) || right.id.localeCompare(left.id),
  );
  const removable = new Set<SessionStatus>(
    (policy.statuses ?? defaultStatuses).filter((status) => status !== 'running'),
  );
  const minKeep = policy.minKeep ?? 0;
  const remove: RetentionReason[] = [];
  const archive: RetentionReason[] = [];
  const pinned: RetentionReason[] = [];
  let bytesSoFar = 0;

  newestFirst.forEach((session, index) => {
    bytesSoFar += session.bytes ?? 0;
    const ageDays = (now.getTime() - Date.parse(session.updatedAt)) / DAY_MS;
    let reason: string | null = null;
    if (policy.maxAgeDays != null && ageDays > policy.maxAgeDays) {
      reason = `not updated for ${formatDays(ageDays)} (limit ${formatDays(policy.maxAgeDays)})`;
    } else if (policy.maxSessions != null && index >= policy.maxSessions) {
      reason = `beyond the newest ${policy.maxSessions} sessions`;
    } else if (policy.maxBytes != null && bytesSoFar > policy.maxBytes) {
      reason = `beyond ${formatBytes(policy.maxBytes)} of newer sessions`;
    }
    const protectedByMinKeep = index < minKeep;
    if (reason && !protectedByMinKeep && removable.has(session.status)) {
      if (session.pinned) pinned.push({ session, reason });
      else {
        remove.push({ session, reason });
        return;
      }
    }
    const finished = session.status === 'completed' || session.status === 'failed';
    if (policy.archiveAfterDays != null && finished && !session.archived && ageDays > policy.archiveAfterDays) {
      archive.push({ session, reason: `finished and not updated for ${Math.floor(ageDays)} days` });
    }
  });
  return { remove, archive, pinned };
}

/**
 * An age in days from `30d`, `12h`, `10min`, `2w` or a bare number of days; null when it is
 * not one. `m` alone is refused (null): minutes or months? `ambiguousDuration` says why.
 */
export function parseDurationDays(text: string): number | null {
  if (ambiguousDuration(text) !== null) return null;
  const ms = parseDuration(text, 'd');
  return ms === null ? null : ms / dayMs;
}

/** For `1m`, `3mo`...: what to write instead (minutes or months?); null when the text is not ambiguous. */
export function ambiguousDuration(text: string): string | null {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(m|mo|month|months)\s*$/i.exec(text);
  if (!match) return null;
  const amount = Number(match[1]);
  return `"${text.trim()}" is ambiguous (minutes or months?): write ${amount}min for minutes, or ${Math.round(amount * 30)}d for months`;
}

/** An age in words: "45 minutes", "12 hours", "1 day", "30 days". */
export function formatDays(days: number): string {
  const plural = (amount: number, unit: string) => `${amount} ${unit}${amount === 1 ? '' : 's'}`;
  const minutes = Math.round(days * 24 * 60);
  if (minutes < 60) return plural(minutes, 'minute');
  if (minutes < 24 * 60) return plural(Math.floor(minutes / 60), 'hour');
  return plural(Math.floor(days), 'day');
}
