// The cost ledger's report: the model calls of every session (from the content index's usage
// table, itself read from the journals) summed by the dimensions asked for. Days, weeks and
// months are the local calendar's; a session with several tags counts under each of them.
import type { UsageEntry, UsageLedger } from '../search/content-index.js';

export const USAGE_DIMENSIONS = ['day', 'week', 'month', 'model', 'provider', 'workspace', 'tag', 'mode'] as const;
export type UsageDimension = (typeof USAGE_DIMENSIONS)[number];

export interface UsageTotals {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  /** The known cost in USD. */
  costUsd: number;
  /** Calls whose model had no price: their cost is not in `costUsd`. */
  unpricedCalls: number;
}

export type UsageReportRow = Partial<Record<UsageDimension, string>> & UsageTotals;

export interface UsageReport {
  by: UsageDimension[];
  rows: UsageReportRow[];
  total: UsageTotals;
  orphans: UsageLedger['orphans'];
  /** Sessions encrypted with a key this machine does not hold: their calls are not counted. */
  locked: { sessions: number; keys: string[] };
}

export interface UsageReportOptions {
  by: readonly UsageDimension[];
  /** Only calls at or after this time. */
  since?: Date;
}

const NONE = '(none)';

function emptyTotals(): UsageTotals {
  return { calls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, unpricedCalls: 0 };
}

function addTo(totals: UsageTotals, entry: UsageEntry): void {
  totals.calls += entry.calls;
  totals.inputTokens += entry.inputTokens;
  totals.outputTokens += entry.outputTokens;
  totals.costUsd += entry.costUsd;
  totals.unpricedCalls += entry.unpricedCalls;
}

const pad = (value: number) => String(value).padStart(2, '0');

/** `2026-11-26`, in local time. */
export function localDay(date: Date): string {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** The ISO week, `2026-W48`, of the local date. */
export function isoWeek(date: Date): string {
  const day = new Date(Date.UTC(date.getFullYear(), date.getMonth(), date.getDate()));
  const weekday = day.getUTCDay() || 7;
  // The week belongs to the year of its Thursday.
  day.setUTCDate(day.getUTCDate() + 4 - weekday);
  const yearStart = Date.UTC(day.getUTCFullYear(), 0, 1);
  const week = Math.ceil(((day.getTime() - yearStart) / 86_400_000 + 1) / 7);
  return `${day.getUTCFullYear()}-W${pad(week)}`;
}

/** The values an entry takes on one dimension (several for a session's tags). */
function valuesOf(dimension: UsageDimension, entry: UsageEntry, start: Date): string[] {
  switch (dimension) {
    case 'day':
      return [localDay(start)];
    case 'week':
      return [isoWeek(start)];
    case 'month':
      return [localDay(start).slice(0, 7)];
    case 'model':
      return [entry.model];
    case 'provider':
      return [entry.provider];
    case 'workspace':
      return [entry.workspaceDir ?? NONE];
    case 'tag':
      return entry.tags.length > 0 ? entry.tags : [NONE];
    case 'mode':
      return [entry.mode ?? NONE];
  }
}

/** Every combination of the dimensions' values (a tagged session's entry under each tag). */
function keysOf(by: readonly UsageDimension[], entry: UsageEntry, start: Date) {
  let keys: Array<Partial<Record<UsageDimension, string>>> = [{}];
  for (const dimension of by) {
    const values = valuesOf(dimension, entry, start);
    keys = keys.flatMap((key) => values.map((value) => ({ ...key, [dimension]: value })));
  }
  return keys;
}

/** What a report leaves out for want of a key, in words (null when nothing). */
export function lockedSessionsNote(locked: UsageReport['locked']): string | null {
  if (locked.sessions === 0) return null;
  const keys = locked.keys.join(', ');
  const which = locked.sessions === 1 ? '1 session is' : `${locked.sessions} sessions are`;
  return `${which} encrypted with a key not on this machine (${keys}): ${locked.sessions === 1 ? 'its' : 'their'} calls are not counted. To count them, put the key file in <home>/keys/data/ or supply it in $CONCLAVE_ENCRYPTION_KEY_FILE.`;
}

export function buildUsageReport(ledger: UsageLedger, options: UsageReportOptions): UsageReport {
  const total = emptyTotals();
  const rows = new Map<string, UsageReportRow>();
  for (const entry of ledger.entries) {
    // The entry's hour (UTC) read in local time; an hour is never split across two local days
    // except in the time zones that are not a whole number of hours from UTC.
    const start = new Date(`${entry.hour}:00:00.000Z`);
    if (options.since && start.getTime() + 3_600_000 <= options.since.getTime()) continue;
    addTo(total, entry);
    for (const key of keysOf(options.by, entry, start)) {
      const id = JSON.stringify(options.by.map((dimension) => key[dimension]));
      let row = rows.get(id);
      if (!row) {
        row = { ...key, ...emptyTotals() };
        rows.set(id, row);
      }
      addTo(row, entry);
    }
  }
  // Periods oldest first, then the costliest first.
  const sorted = Array.from(rows.values()).sort((left, right) => {
    for (const dimension of options.by) {
      if (dimension !== 'day' && dimension !== 'week' && dimension !== 'month') continue;
      const order = (left[dimension] ?? '').localeCompare(right[dimension] ?? '');
      if (order !== 0) return order;
    }
    return right.costUsd - left.costUsd || right.calls - left.calls;
  });
  return { by: [...options.by], rows: sorted, total, orphans: ledger.orphans, locked: ledger.locked };
}
