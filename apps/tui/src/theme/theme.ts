// Colours and status symbols in one place. With colour off (NO_COLOR, --no-color,
// not a terminal) every colour is undefined, so Ink writes no colour codes at all;
// the symbols still tell statuses apart.
import type { SessionStatus } from '@resume/core/spec';

export interface Theme {
  readonly colorEnabled: boolean;
  readonly accent: string | undefined;
  readonly muted: string | undefined;
  readonly success: string | undefined;
  readonly warning: string | undefined;
  readonly danger: string | undefined;
  readonly highlight: string | undefined;
  readonly diffAdded: string | undefined;
  readonly diffRemoved: string | undefined;
  readonly diffHunk: string | undefined;
  statusColor(status: SessionStatus): string | undefined;
}

export const statusSymbol: Record<SessionStatus, string> = {
  running: '▶',
  interrupted: '‖',
  waiting: '?',
  sleeping: 'z',
  completed: '✓',
  failed: '✗',
};

/** A session whose files the store found damaged, whatever its status (listings say `damaged`). */
export const damagedSymbol = '!';

/** The command that shows what a repair of a damaged session would do. */
export function repairCommand(sessionId: string): string {
  return `conclave sessions repair ${sessionId} --dry-run`;
}

const palette = {
  accent: 'cyan',
  muted: 'gray',
  success: 'green',
  warning: 'yellow',
  danger: 'red',
  highlight: 'magenta',
  diffAdded: 'green',
  diffRemoved: 'red',
  diffHunk: 'cyan',
} as const;

const statusPalette: Record<SessionStatus, string> = {
  running: palette.accent,
  interrupted: palette.warning,
  waiting: palette.highlight,
  sleeping: palette.accent,
  completed: palette.success,
  failed: palette.danger,
};

export function createTheme(options: { color: boolean }): Theme {
  const pick = (value: string) => (options.color ? value : undefined);
  return {
    colorEnabled: options.color,
    accent: pick(palette.accent),
    muted: pick(palette.muted),
    success: pick(palette.success),
    warning: pick(palette.warning),
    danger: pick(palette.danger),
    highlight: pick(palette.highlight),
    diffAdded: pick(palette.diffAdded),
    diffRemoved: pick(palette.diffRemoved),
    diffHunk: pick(palette.diffHunk),
    statusColor: (status) => pick(statusPalette[status]),
  };
}

/**
 * Whether to colour: off under NO_COLOR (any non-empty value, per no-color.org) or when
 * the caller said so; otherwise on only for a terminal.
 */
export function colorWanted(input: {
  env: Readonly<Record<string, string | undefined>>;
  isTty: boolean;
  noColor?: boolean;
}): boolean {
  if (input.noColor) return false;
  const noColor = input.env.NO_COLOR;
  if (noColor !== undefined && noColor !== '') return false;
  return input.isTty;
}
