// How long a provider asked us to wait, from its response headers, shared by the adapters.

/** Reads `retry-after-ms`, then `retry-after` (seconds or an HTTP date), in milliseconds; null when absent. */
export function retryAfterMs(
  headers: { get(name: string): string | null } | null | undefined,
  now: () => number = Date.now,
): number | null {
  if (!headers) return null;
  const milliseconds = headers.get('retry-after-ms');
  if (milliseconds !== null && /^\d+(\.\d+)?$/.test(milliseconds.trim())) return Math.round(Number(milliseconds));
  const value = headers.get('retry-after')?.trim();
  if (!value) return null;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now());
}
