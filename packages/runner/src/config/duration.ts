// Durations as people write them: `500ms`, `1s`, `2m` or `10min`, `12h`, `30d`, `2w`. The one
// parser behind workflow specs (timeouts, backoff: a bare number is milliseconds) and session
// ages (`--older-than`, `--since`, retention: a bare number is days).
const durationPattern = /^(\d+(?:\.\d+)?)\s*(ms|s|m|min|h|d|w)?$/i;
const unitMs = {
  ms: 1,
  s: 1000,
  m: 60_000,
  min: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
} as const;

export type DurationUnit = keyof typeof unitMs;

/** Milliseconds, or null when the text is not a duration; a bare number counts in `bareUnit`. */
export function parseDuration(value: string | number, bareUnit: DurationUnit = 'ms'): number | null {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value * unitMs[bareUnit] : null;
  const match = durationPattern.exec(value.trim());
  if (!match) return null;
  const unit = (match[2]?.toLowerCase() ?? bareUnit) as DurationUnit;
  return Math.round(Number(match[1]) * unitMs[unit]);
}

export const dayMs = unitMs.d;

/** A duration as people write it, in a form `parseDuration` reads back: `300ms`, `90s`, `5m`, `1h`. */
export function describeDuration(ms: number): string {
  if (ms < 1000 || ms % 1000 !== 0) return `${ms}ms`;
  const seconds = ms / 1000;
  if (seconds % 3600 === 0) return `${seconds / 3600}h`;
  if (seconds % 60 === 0) return `${seconds / 60}m`;
  return `${seconds}s`;
}

/** `45s`, `3m 12s`, `2h 5m`: how long something has run, rounded for people (not read back). */
export function describeElapsed(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${seconds % 60}s`;
  return `${Math.floor(minutes / 60)}h ${minutes % 60}m`;
}
