// The usage screen (`u` in the picker): what every session's model calls cost in all, and a bar
// per day over the last days, scaled to the costliest day (to its calls when nothing was priced).
import { Box } from 'ink';
import type { UsageView } from '../backend/tui-backend.js';
import { helpLine, usageKeys } from '../keys/key-bindings.js';
import { fitText, formatCost, formatCount } from '../theme/format.js';
import { Text } from '../theme/text.js';
import { useTheme } from '../theme/theme-context.js';

export function UsagePane(props: {
  usage: { view: UsageView | null; error: string | null };
  columns: number;
  height: number;
}) {
  const theme = useTheme();
  const width = props.columns - 2;
  const { view, error } = props.usage;
  const title = <Text color={theme.muted}>{fitText(`── Usage of every session ${'─'.repeat(width)}`, width)}</Text>;
  if (!view) {
    return (
      <Box flexDirection="column" height={props.height} overflow="hidden">
        {title}
        <Text color={error ? theme.danger : theme.muted}>{fitText(error ?? 'Reading the usage…', width)}</Text>
      </Box>
    );
  }
  const byCost = view.days.some((day) => day.costUsd > 0);
  const measure = (day: UsageView['days'][number]) => (byCost ? day.costUsd : day.calls);
  const largest = Math.max(0, ...view.days.map(measure));
  // `2026-11-26  $12.40  1.2k calls ` then the bar.
  const labelWidth = 10 + 2 + 8 + 2 + 11;
  const barRoom = Math.max(4, width - labelWidth - 1);
  // Notes above the bars take their lines from the days shown (a long one wraps).
  const noteLines =
    (view.deletedParents > 0 ? 1 : 0) + (view.uncounted ? Math.ceil(view.uncounted.length / Math.max(1, width)) : 0);
  const days = view.days.slice(-Math.max(1, props.height - 4 - noteLines));
  const { total } = view;
  return (
    <Box flexDirection="column" height={props.height} overflow="hidden">
      {title}
      <Text>
        {fitText(
          `Total: ${formatCost(total.costUsd)}, ${formatCount(total.calls)} calls, ${formatCount(total.inputTokens)} in / ${formatCount(total.outputTokens)} out tokens`,
          width,
        )}
      </Text>
      {view.deletedParents > 0 ? (
        <Text color={theme.muted}>
          {fitText(
            `${view.deletedParents} deleted session${view.deletedParents === 1 ? '' : 's'} counted from their branches' copies`,
            width,
          )}
        </Text>
      ) : null}
      {view.uncounted ? <Text color={theme.warning}>{view.uncounted}</Text> : null}
      {days.map((day) => {
        const bar = largest === 0 ? 0 : Math.round((measure(day) / largest) * barRoom);
        return (
          <Text key={day.day}>
            {`${day.day}  ${formatCost(day.costUsd).padStart(8)}  ${`${formatCount(day.calls)} calls`.padStart(11)} `}
            <Text color={theme.accent}>{'█'.repeat(bar)}</Text>
          </Text>
        );
      })}
      <Text color={theme.muted}>
        {fitText(`${helpLine(usageKeys)}   conclave usage --by model,day for more`, width)}
      </Text>
    </Box>
  );
}
