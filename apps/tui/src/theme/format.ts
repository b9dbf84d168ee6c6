// The short strings both the screens and the CLI's human output show: ages, costs, token counts,
// progress, and text measured and cut by display width (an emoji or a CJK character takes two
// columns), so a row never wraps and a column never shifts. Exported as `@resume/tui/format`.
import { printableText, type SessionSummary } from '@resume/core/spec';
import cliTruncate from 'cli-truncate';
import stringWidth from 'string-width';

/** `30s ago`, `5m ago`, `3h ago`, `12d ago`, then the date. */
export function formatAge(iso: string, now: Date): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return '?';
  const seconds = Math.max(0, Math.round((now.getTime() - then) / 1000));
  if (seconds < 60) return `${seconds}s ago`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h ago`;
  const days = Math.floor(hours / 24);
  if (days < 60) return `${days}d ago`;
  return iso.slice(0, 10);
}

/** When a sleeping session wakes: `in 45s`, `in 5m`, `in 3h`, `in 2d`; `due` once that time has passed. */
export function formatWake(iso: string, now: Date): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return '?';
  const seconds = Math.round((then - now.getTime()) / 1000);
  if (seconds <= 0) return 'due';
  if (seconds < 60) return `in ${seconds}s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `in ${minutes}m`;
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `in ${hours}h` : `in ${Math.round(hours / 24)}d`;
}

/** `$0`, `<$0.01`, `$1.23`; `unknown` (a table passes `?`) when no call was priced. */
export function formatCost(costUsd: number | null | undefined, unknown = 'cost unknown'): string {
  if (costUsd === null || costUsd === undefined) return unknown;
  if (costUsd === 0) return '$0';
  if (costUsd < 0.01) return '<$0.01';
  return `$${costUsd.toFixed(2)}`;
}

/** `950`, `12.0k`, `3.4M`. */
export function formatCount(count: number): string {
  if (count < 1000) return String(count);
  if (count < 1_000_000) return `${(count / 1000).toFixed(1)}k`;
  return `${(count / 1_000_000).toFixed(1)}M`;
}

/** `12.0k in / 3.4k out tokens`. */
export function formatTokens(inputTokens: number, outputTokens: number): string {
  return `${formatCount(inputTokens)} in / ${formatCount(outputTokens)} out tokens`;
}

/** "3 rounds", "8/15 chunks", "2 steps"; the message count when the mode counts nothing. */
export function formatProgress(summary: Pick<SessionSummary, 'progress' | 'messageCount'>): string {
  const progress = summary.progress;
  if (!progress) return `${summary.messageCount} msgs`;
  const label = progress.label;
  if (progress.total !== null) return `${progress.done}/${progress.total} ${plural(label, progress.total)}`;
  return `${progress.done} ${plural(label, progress.done)}`;
}

function plural(label: string, count: number): string {
  const singular = label.endsWith('s') ? label.slice(0, -1) : label;
  return count === 1 ? singular : `${singular}s`;
}

// Plain ASCII is one column a character: measured by its length, it skips the grapheme
// segmentation that makes a listing of 1,000 sessions a third slower.
const printableAscii = /^[\x20-\x7e]*$/;

/** The columns `text` takes in a terminal. */
export function displayWidth(text: string): number {
  return printableAscii.test(text) ? text.length : stringWidth(text);
}

/** Cuts `text` to `width` columns on one line (controls shown: printableText), with an ellipsis when cut. */
export function fitText(text: string, width: number): string {
  if (width <= 0) return '';
  const flat = printableText(text.replace(/\s+/g, ' '), 'line');
  return displayWidth(flat) <= width ? flat : cliTruncate(flat, width);
}

/** `text` on one line, cut to and padded out to exactly `width` columns. */
export function padText(text: string, width: number): string {
  const fitted = fitText(text, width);
  return fitted + ' '.repeat(Math.max(0, width - displayWidth(fitted)));
}

/**
 * A key-help line broken between its entries (separated by two spaces) into lines of at most
 * `width`, so no key is cut off on a narrow terminal.
 */
export function wrapHelp(help: string, width: number): string[] {
  return wrapUnits(help.split(/ {2,}/), '  ', width, '');
}

/**
 * A text broken between words into lines of at most `width` (a word longer than a line is cut),
 * continuation lines indented by `indent`: nothing is lost on a narrow terminal.
 */
export function wrapText(text: string, width: number, indent = ''): string[] {
  return wrapUnits(printableText(text.replace(/\s+/g, ' ').trim(), 'line').split(' '), ' ', width, indent);
}

/** Lays `units` (words, key-help entries) out `separator`-joined in lines of at most `width` columns. */
function wrapUnits(units: string[], separator: string, width: number, indent: string): string[] {
  const lines: string[] = [];
  const prefix = () => (lines.length === 0 ? '' : indent);
  const room = () => Math.max(2, width - displayWidth(prefix()));
  let line = '';
  for (const unit of units) {
    if (line === '') line = unit;
    else if (displayWidth(`${line}${separator}${unit}`) <= room()) line = `${line}${separator}${unit}`;
    else {
      lines.push(prefix() + line);
      line = unit;
    }
    while (displayWidth(line) > room()) {
      const head = cliTruncate(line, room(), { truncationCharacter: '' }) || (Array.from(line)[0] ?? '');
      lines.push(prefix() + head);
      line = line.slice(head.length);
    }
  }
  if (line !== '' || lines.length === 0) lines.push(prefix() + line);
  return lines;
}
