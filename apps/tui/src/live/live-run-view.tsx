// The live run view: finished turns in <Static> (printed once, scroll away naturally),
// and below them only what is in progress: the current agent's streaming text,
// progress, tokens and cost, and the Ctrl+C hint. Display only.
import { printableText } from '@resume/core/spec';
import { Box, Static } from 'ink';
import { fitText, formatCost, formatTokens } from '../theme/format.js';
import { Text } from '../theme/text.js';
import { useScreenSize, useTheme } from '../theme/theme-context.js';
import {
  describeBranch,
  describeItems,
  describeProgress,
  type LiveRunState,
  type StaticItem,
  tailLines,
} from './live-run-reducer.js';

export function LiveRunView(props: { state: LiveRunState }) {
  const { state } = props;
  const theme = useTheme();
  const { columns, rows } = useScreenSize();
  const width = columns - 1;
  const streamLines = state.current
    ? tailLines(printableText(state.current.text, 'lines'), width, Math.max(3, rows - 6))
    : [];
  return (
    <Box flexDirection="column">
      <Static items={state.items}>{(item) => <StaticLine key={item.id} item={item} width={width} />}</Static>
      {state.pendingReplayed > 0 ? (
        // Counted live until the first new text: then it is printed once, above that turn.
        <Text color={theme.muted}>{staticItemText({ id: -1, kind: 'replayed', count: state.pendingReplayed })}</Text>
      ) : null}
      {state.current ? (
        <Box flexDirection="column">
          <Text bold color={theme.accent}>
            {speakerHeading(state.current.agent, state.current.round, state.current.unit)}{' '}
            <Text color={theme.muted}>…</Text>
          </Text>
          {streamLines.map((line, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: lines of a growing text, identified by position
            <Text key={index}>{line}</Text>
          ))}
        </Box>
      ) : null}
      {state.shell && !state.finished ? (
        // The running command's last lines, dimmed: what it is doing, not a result.
        <Box flexDirection="column">
          {lastLines(printableText(state.shell.text, 'lines'), SHELL_LINES).map((line, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: the last lines of a growing text, by position
            <Text key={index} color={theme.muted}>
              {fitText(`  │ ${line}`, width)}
            </Text>
          ))}
        </Box>
      ) : null}
      {state.parallel && !state.finished ? (
        <Box flexDirection="column">
          <Text color={theme.muted}>{fitText(`step ${state.parallel.number} parallel`, width)}</Text>
          {state.parallel.branches.map((branch) => (
            <Text key={branch.id} color={branch.state === 'failed' ? theme.danger : undefined}>
              {fitText(`  ${describeBranch(branch)}`, width)}
            </Text>
          ))}
        </Box>
      ) : null}
      {state.finished ? null : <StatusLine state={state} width={width} />}
    </Box>
  );
}

/** Lines of a running command's output shown at once. */
const SHELL_LINES = 3;

function lastLines(text: string, count: number): string[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .slice(-count);
}

function StatusLine(props: { state: LiveRunState; width: number }) {
  const theme = useTheme();
  const { progress, mapItems, usage, checkpoint } = props.state;
  const parts = [
    progress ? describeProgress(progress) : null,
    mapItems ? describeItems(mapItems) : null,
    usage ? `${formatTokens(usage.inputTokens, usage.outputTokens)} · ${formatCost(usage.costUsd)}` : null,
    checkpoint ? `checkpoint #${checkpoint.seq}` : null,
  ].filter((part): part is string => part !== null);
  return (
    <Text color={theme.muted}>
      {fitText(`${parts.join(' · ')}${parts.length > 0 ? ' · ' : ''}Ctrl+C saves a checkpoint and stops`, props.width)}
    </Text>
  );
}

function speakerHeading(speaker: string, round: number | null, unit: string): string {
  return round === null ? `[${speaker}]` : `[${speaker}] ${unit} ${round}`;
}

function StaticLine(props: { item: StaticItem; width: number }) {
  const theme = useTheme();
  const { item } = props;
  switch (item.kind) {
    case 'started':
      return <Text color={theme.muted}>{staticItemText(item)}</Text>;
    case 'turn':
      return (
        <Box flexDirection="column" marginBottom={1}>
          <Text bold color={theme.accent}>
            {speakerHeading(item.speaker, item.round, item.unit)}
          </Text>
          <Text>{item.content}</Text>
        </Box>
      );
    case 'replayed':
    case 'notice':
      return <Text color={theme.muted}>{staticItemText(item)}</Text>;
    case 'finished': {
      const color =
        item.result.status === 'completed'
          ? theme.success
          : item.result.status === 'interrupted'
            ? theme.warning
            : item.result.status === 'waiting'
              ? theme.statusColor('waiting')
              : theme.danger;
      return <Text color={color}>{staticItemText(item)}</Text>;
    }
  }
}

/**
 * One item as plain text: the non-TTY output and the Static lines say the same thing. The run's
 * text (turns, notices, errors) may carry terminal controls: they are shown (printableText).
 */
export function staticItemText(item: StaticItem): string {
  return printableText(itemText(item), 'lines');
}

function itemText(item: StaticItem): string {
  switch (item.kind) {
    case 'started':
      return `${item.resumed ? 'Resuming' : 'Session'} ${item.sessionId} (${item.mode})`;
    case 'turn':
      return `${speakerHeading(item.speaker, item.round, item.unit)}\n${item.content}\n`;
    case 'replayed':
      return `↺ ${item.count} turn${item.count === 1 ? '' : 's'} restored from the journal (not run again)`;
    case 'notice':
      return item.text;
    case 'finished': {
      const result = item.result;
      if (result.status === 'completed') return `✓ Session ${result.sessionId} completed.`;
      if (result.status === 'interrupted') {
        const command = result.resumeCommand ?? `conclave --resume ${result.sessionId}`;
        if (result.cancelled)
          return `‖ Not resumed; session ${result.sessionId} is unchanged. Resume it later with:\n  ${command}`;
        const where = result.savedAt ? ` at "${result.savedAt}"` : '';
        return `‖ Interrupted; checkpoint saved${where}. Resume with:\n  ${command}`;
      }
      if (result.status === 'waiting') {
        return `? Session ${result.sessionId} is waiting for your answer${result.question ? `: ${result.question}` : '.'}`;
      }
      return `✗ Session ${result.sessionId} failed${result.message ? `: ${result.message}` : '.'}`;
    }
  }
}
