// Files changed since the session touched them: per file keep or restore, a coloured
// scrollable diff on `d`, and a summary of what Enter will do. Display only.
import { Box } from 'ink';
import { conflictKeys, diffKeys, helpLine } from '../keys/key-bindings.js';
import { PromptFrame } from '../prompts/prompt-frame.js';
import { fitText, padText, wrapText } from '../theme/format.js';
import { Text } from '../theme/text.js';
import type { Theme } from '../theme/theme.js';
import { useScreenSize, useTheme } from '../theme/theme-context.js';
import {
  type ConflictFile,
  conflictSummary,
  createdSinceWarning,
  type OpenDiff,
  restoreDescription,
  statusLabel,
} from './conflict-reducer.js';
import { type ConflictAnswer, type DiffSource, useConflictScreen } from './use-conflict-screen.js';

export function ConflictScreen(props: {
  changes: readonly ConflictFile[];
  diffs: DiffSource;
  onAnswer: (answer: ConflictAnswer) => void;
}) {
  const theme = useTheme();
  const { columns, rows } = useScreenSize();
  const diffHeight = Math.max(3, rows - 6);
  const state = useConflictScreen({ changes: props.changes, diffs: props.diffs, diffHeight, onAnswer: props.onAnswer });
  const width = Math.min(columns, 100) - 4;

  if (state.diff) return <DiffView diff={state.diff} height={diffHeight} width={columns - 1} />;

  const listHeight = Math.max(3, rows - 9);
  const start = Math.min(
    Math.max(0, state.cursor - Math.floor(listHeight / 2)),
    Math.max(0, state.files.length - listHeight),
  );
  const shown = state.files.slice(start, start + listHeight);
  const warning = createdSinceWarning(state.files);
  return (
    <PromptFrame title="Files changed since the session touched them" tone="warning" help={helpLine(conflictKeys)}>
      {shown.map((file, offset) => {
        const index = start + offset;
        const selected = index === state.cursor;
        const choice = state.choices[file.path] ?? 'keep';
        return (
          <Text key={file.path} bold={selected}>
            <Text color={theme.accent}>{selected ? '› ' : '  '}</Text>
            <Text color={statusColor(file, theme)}>
              {padText(`${file.status === 'created-since' ? '!' : ''}${statusLabel(file.status)}`, 16)}
            </Text>
            {padText(file.path, Math.max(10, width - 46))}
            <Text color={choice === 'restore' ? theme.warning : theme.success}>
              {choice === 'restore' ? `→ ${restoreDescription(file.status)}` : '→ keep current'}
            </Text>
          </Text>
        );
      })}
      {state.unchangedCount > 0 ? (
        <Text
          color={theme.muted}
        >{`  ${state.unchangedCount} unchanged file${state.unchangedCount === 1 ? '' : 's'} not shown`}</Text>
      ) : null}
      {warning ? <Text color={theme.warning}>{warning}</Text> : null}
      <Box marginTop={1}>
        <Text>{wrapText(conflictSummary(state), width).join('\n')}</Text>
      </Box>
    </PromptFrame>
  );
}

function statusColor(file: ConflictFile, theme: Theme): string | undefined {
  return file.status === 'deleted' ? theme.danger : file.status === 'created-since' ? theme.accent : theme.warning;
}

function DiffView(props: { diff: OpenDiff; height: number; width: number }) {
  const theme = useTheme();
  const { diff } = props;
  const lines = diff.lines ?? [];
  const visible = lines.slice(diff.scroll, diff.scroll + props.height);
  const position = lines.length > 0 ? `${diff.scroll + 1}-${diff.scroll + visible.length} of ${lines.length}` : '';
  return (
    <Box flexDirection="column">
      <Text bold color={theme.accent}>
        {fitText(`diff ${diff.path}  (snapshot → workspace)  ${position}`, props.width)}
      </Text>
      <Box flexDirection="column" height={props.height}>
        {diff.error ? <Text color={theme.danger}>{diff.error}</Text> : null}
        {!diff.error && diff.lines === null ? <Text color={theme.muted}>loading diff…</Text> : null}
        {visible.map((line, index) => (
          // Lines repeat in a diff; their position is their identity.
          // biome-ignore lint/suspicious/noArrayIndexKey: position within the visible window
          <Text key={index} color={diffLineColor(line, theme)}>
            {fitText(line, props.width)}
          </Text>
        ))}
      </Box>
      <Text color={theme.muted}>{helpLine(diffKeys)}</Text>
    </Box>
  );
}

function diffLineColor(line: string, theme: Theme): string | undefined {
  if (line.startsWith('+++') || line.startsWith('---') || line.startsWith('===') || line.startsWith('Index:')) {
    return theme.muted;
  }
  if (line.startsWith('@@')) return theme.diffHunk;
  if (line.startsWith('+')) return theme.diffAdded;
  if (line.startsWith('-')) return theme.diffRemoved;
  return undefined;
}
