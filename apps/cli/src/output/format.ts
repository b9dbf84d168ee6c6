// Small formatting helpers of the human (non-JSON) views; what the screens show too comes from
// `@resume/tui/format`, so a cost or an age reads the same in both.
import { fitText } from '@resume/tui/format';

export { displayWidth, formatCost, formatCount, formatTokens, padText } from '@resume/tui/format';

/** `2026-06-30 14:05` in local time: what a user compares with their own clock. */
export function formatWhen(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** `text` on one line (whitespace runs read as one space, controls shown: printableText), cut to `length` columns. */
export function truncate(text: string, length: number): string {
  return fitText(text.trim(), length);
}

export function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
