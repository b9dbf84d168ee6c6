// Durations in specs: `500ms`, `1s`, `2m`, or a bare number of milliseconds.
const durationPattern = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/;
const unitMs = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/** Milliseconds, or null when the text is not a duration. */
export function parseDuration(value: string | number): number | null {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : null;
  const match = durationPattern.exec(value.trim());
  if (!match) return null;
  const unit = (match[2] ?? 'ms') as keyof typeof unitMs;
  return Math.round(Number(match[1]) * unitMs[unit]);
}
