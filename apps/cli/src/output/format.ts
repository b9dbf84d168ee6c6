// Small formatting helpers shared by the human (non-JSON) views.
import { printableText } from '@resume/core/spec';

export function formatCost(costUsd: number | null | undefined): string {
  if (costUsd === null || costUsd === undefined) return 'cost unknown';
  if (costUsd === 0) return '$0.00';
  return costUsd < 0.01 ? `$${costUsd.toFixed(4)}` : `$${costUsd.toFixed(3)}`;
}

export function formatTokens(inputTokens: number, outputTokens: number): string {
  return `${groupThousands(inputTokens)} in / ${groupThousands(outputTokens)} out tokens`;
}

/**
 * `1,234,567`: what `toLocaleString('en-US')` prints, without it for whole numbers. The first
 * locale-aware call of a process sets up ICU's number formatting (about 12 ms), which every run
 * paid once for its closing usage line.
 */
export function groupThousands(value: number): string {
  if (!Number.isSafeInteger(value)) return value.toLocaleString('en-US');
  const digits = String(Math.abs(value));
  const head = digits.length % 3 || 3;
  let grouped = digits.slice(0, head);
  for (let index = head; index < digits.length; index += 3) grouped += `,${digits.slice(index, index + 3)}`;
  return value < 0 || Object.is(value, -0) ? `-${grouped}` : grouped;
}

/** `2026-06-30 14:05` in local time: what a user compares with their own clock. */
export function formatWhen(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** `3 minutes ago`, `2 days ago`. */
export function formatAge(iso: string, now: Date): string {
  const seconds = Math.max(0, (now.getTime() - Date.parse(iso)) / 1000);
  const steps: [number, string][] = [
    [60, 'second'],
    [60, 'minute'],
    [24, 'hour'],
    [30, 'day'],
    [12, 'month'],
    [Number.POSITIVE_INFINITY, 'year'],
  ];
  let value = seconds;
  for (const [size, unit] of steps) {
    if (value < size) {
      const whole = Math.floor(value);
      return `${whole} ${unit}${whole === 1 ? '' : 's'} ago`;
    }
    value /= size;
  }
  return 'long ago';
}

/** `text` on one line (whitespace runs read as one space, controls shown: printableText), cut to `length`. */
export function truncate(text: string, length: number): string {
  const single = printableText(text.replace(/\s+/g, ' ').trim(), 'line');
  return single.length <= length ? single : `${single.slice(0, Math.max(0, length - 1))}…`;
}

export function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
