// One line of the session list (plus the content snippet when the search matched
// inside the session). Display only.
import { printableText, type SessionSummary } from '@resume/core/spec';
import { Box } from 'ink';
import type { ContentMatch } from '../backend/tui-backend.js';
import { fitText, formatAge, formatCost, formatProgress, formatWake, padText } from '../theme/format.js';
import { Text } from '../theme/text.js';
import { damagedSymbol, statusSymbol } from '../theme/theme.js';
import { useNow, useTheme } from '../theme/theme-context.js';

export const rowColumns = { marker: 2, status: 2, mode: 13, progress: 14, age: 9, cost: 8 } as const;
const fixedWidth = Object.values(rowColumns).reduce((sum, width) => sum + width, 0);
const widestProgress = 20;

/**
 * The progress column's width: as wide as the longest progress of the sessions listed ("10002
 * checkpoints" of a LangGraph thread), within its usual width and 20; the title gives up the room.
 */
export function progressWidth(summaries: readonly Pick<SessionSummary, 'progress' | 'messageCount'>[]): number {
  let longest = 0;
  for (const summary of summaries) longest = Math.max(longest, formatProgress(summary).length);
  // Two spaces before the next column, as the other columns usually leave.
  return Math.min(widestProgress, Math.max(rowColumns.progress, longest + 2));
}

export function titleWidth(columns: number, progress: number = rowColumns.progress): number {
  return Math.max(10, columns - fixedWidth - (progress - rowColumns.progress) - 1);
}

/** A column's text, cut to leave at least one space before the next column. */
function cell(text: string, width: number): string {
  return `${padText(text, width - 1)} `;
}

export function SessionListHeader(props: { columns: number; progressWidth: number }) {
  const theme = useTheme();
  return (
    <Text color={theme.muted} bold>
      {' '.repeat(rowColumns.marker + rowColumns.status)}
      {padText('TITLE', titleWidth(props.columns, props.progressWidth))}
      {padText('MODE', rowColumns.mode)}
      {padText('PROGRESS', props.progressWidth)}
      {padText('AGE', rowColumns.age)}
      {padText('COST', rowColumns.cost)}
    </Text>
  );
}

export function SessionRow(props: {
  summary: SessionSummary;
  selected: boolean;
  columns: number;
  /** The progress column's width (`progressWidth` of the sessions listed). */
  progressWidth: number;
  match: ContentMatch | undefined;
}) {
  const { summary, selected, columns, match } = props;
  const theme = useTheme();
  const now = useNow();
  // One line in the list: a newline or tab in the title is shown (␊, ␉), not flattened away.
  // A named session shows its name (the details pane has the title); its tags follow.
  const title = printableText(summary.name || summary.title || summary.task || summary.id, 'line');
  const tags = (summary.tags ?? []).map((tag) => `#${tag}`).join(' ');
  const width = titleWidth(columns, props.progressWidth) - (summary.pinned ? 2 : 0);
  const tagWidth = tags === '' ? 0 : Math.min(tags.length + 1, Math.floor(width / 2));
  return (
    <Box flexDirection="column">
      <Text inverse={selected && !theme.colorEnabled} backgroundColor={selected ? theme.accent : undefined}>
        <Text color={selected ? undefined : theme.accent}>{selected ? '› ' : '  '}</Text>
        <Text color={summary.damage || summary.unreadable ? theme.danger : theme.statusColor(summary.status)}>
          {padText(
            summary.damage || summary.unreadable ? damagedSymbol : statusSymbol[summary.status],
            rowColumns.status,
          )}
        </Text>
        {summary.pinned ? <Text color={selected ? undefined : theme.accent}>* </Text> : null}
        <Text bold={selected}>{cell(title, width - tagWidth)}</Text>
        {tagWidth === 0 ? null : <Text color={selected ? undefined : theme.muted}>{cell(tags, tagWidth)}</Text>}
        <Text color={theme.muted}>{cell(summary.mode, rowColumns.mode)}</Text>
        <Text>{cell(formatProgress(summary), props.progressWidth)}</Text>
        <Text color={theme.muted}>{cell(formatAge(summary.updatedAt, now()), rowColumns.age)}</Text>
        <Text>{padText(formatCost(summary.costUsd, '?'), rowColumns.cost)}</Text>
      </Text>
      {summary.unreadable ? (
        <Text color={theme.danger}>{fitText(`      ! unreadable: ${summary.unreadable.problem}`, columns - 2)}</Text>
      ) : summary.damage ? (
        <Text color={theme.danger}>
          {fitText(`      ! damaged: ${summary.damage.problem} (repair: see the details)`, columns - 2)}
        </Text>
      ) : null}
      {summary.status === 'waiting' && summary.waitingFor ? (
        <Text color={theme.statusColor('waiting')}>{fitText(`      ? ${summary.waitingFor.prompt}`, columns - 2)}</Text>
      ) : null}
      {summary.status === 'sleeping' && summary.wakeAt ? (
        <Text color={theme.statusColor('sleeping')}>
          {fitText(`      z sleeping until ${summary.wakeAt} (${formatWake(summary.wakeAt, now())})`, columns - 2)}
        </Text>
      ) : null}
      {match ? <Snippet match={match} width={columns - 6} /> : null}
    </Box>
  );
}

function Snippet(props: { match: ContentMatch; width: number }) {
  const theme = useTheme();
  const { match } = props;
  const speaker = match.speaker ? `${match.speaker}: ` : '';
  const room = Math.max(10, props.width - speaker.length);
  // Keep the match in view when the snippet is wider than the room left.
  const shift = Math.max(0, match.matchEnd - room + 1);
  const text = match.snippet.slice(shift, shift + room);
  const start = Math.max(0, match.matchStart - shift);
  const end = Math.max(start, match.matchEnd - shift);
  return (
    <Text color={theme.muted}>
      {'      '}
      {speaker}
      {fitText(text.slice(0, start), room)}
      <Text color={theme.highlight} bold underline={!theme.colorEnabled}>
        {text.slice(start, end)}
      </Text>
      {text.slice(end)}
    </Text>
  );
}
