// Turning summary fields into the short strings the screens show.
import { printableText, type SessionSummary } from '@resume/core/spec';

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

export function formatCost(costUsd: number | null): string {
  if (costUsd === null) return '—';
  if (costUsd === 0) return '$0';
  if (costUsd < 0.01) return '<$0.01';
  return `$${costUsd.toFixed(2)}`;
}

export function formatTokens(count: number): string {
  if (count < 1000) return String(count);
  if (count < 1_000_000) return `${(count / 1000).toFixed(1)}k`;
  return `${(count / 1_000_000).toFixed(1)}M`;
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

/** Cuts `text` to `width` columns on one line (controls shown: printableText), with an ellipsis when cut. */
export function fitText(text: string, width: number): string {
  const flat = printableText(text.replace(/\s+/g, ' '), 'line');
  if (width <= 0) return '';
  if (flat.length <= width) return flat;
  if (width === 1) return '…';
  return `${flat.slice(0, width - 1)}…`;
}

/**
 * A key-help line broken between its entries (separated by two spaces) into lines of at most
 * `width`, so no key is cut off on a narrow terminal.
 */
export function wrapHelp(help: string, width: number): string[] {
  return wrapUnits(help.split(/ {2,}/), '  ', width, '');
}

export function padText(text: string, width: number): string {
  const fitted = fitText(text, width);
  return fitted + ' '.repeat(Math.max(0, width - fitted.length));
}

/**
 * A text broken between words into lines of at most `width` (a word longer than a line is cut),
 * continuation lines indented by `indent`: nothing is lost on a narrow terminal.
 */
export function wrapText(text: string, width: number, indent = ''): string[] {
  return wrapUnits(printableText(text.replace(/\s+/g, ' ').trim(), 'line').split(' '), ' ', width, indent);
}

/** Lays `units` (words, key-help entries) out `separator`-joined in lines of at most `width`. */
function wrapUnits(units: string[], separator: string, width: number, indent: string): string[] {
  const lines: string[] = [];
  const prefix = () => (lines.length === 0 ? '' : indent);
  const room = () => Math.max(1, width - prefix().length);
  let line = '';
  for (const unit of units) {
    if (line === '') line = unit;
    else if (line.length + separator.length + unit.length <= room()) line = `${line}${separator}${unit}`;
    else {
      lines.push(prefix() + line);
      line = unit;
    }
    while (line.length > room()) {
      const cut = room();
      lines.push(prefix() + line.slice(0, cut));
      line = line.slice(cut);
    }
  }
  if (line !== '' || lines.length === 0) lines.push(prefix() + line);
  return lines;
}
