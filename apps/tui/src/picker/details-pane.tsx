// The details of the session under the cursor: lineage tree, checkpoints, resume
// plan and cost. Display only; the hook loads the details lazily.
import { permissionDeniedHint, type SessionSummary } from '@resume/core/spec';
import { Box } from 'ink';
import type { ReactNode } from 'react';
import type { SessionDetails } from '../backend/tui-backend.js';
import { fitText, formatCost, formatProgress, formatTokens } from '../theme/format.js';
import { Text } from '../theme/text.js';
import { damagedSymbol, repairCommand, statusSymbol } from '../theme/theme.js';
import { useTheme } from '../theme/theme-context.js';

export const detailsHeight = 8;

export function DetailsPane(props: {
  summary: SessionSummary | null;
  details: SessionDetails | undefined;
  columns: number;
}) {
  const theme = useTheme();
  const { summary, details, columns } = props;
  const width = columns - 2;
  if (!summary) {
    return (
      <Box height={detailsHeight} flexDirection="column">
        <Text color={theme.muted}>{'─'.repeat(width)}</Text>
      </Box>
    );
  }
  const lines: { key: string; node: ReactNode }[] = [];
  const usage = formatTokens(summary.inputTokens, summary.outputTokens);
  const lineageCost = details && details.lineage.length > 1 ? ` (lineage ${formatCost(details.lineageCostUsd)})` : '';
  const status = summary.unreadable
    ? `${damagedSymbol} unreadable`
    : summary.damage
      ? `${damagedSymbol} damaged (${summary.status})`
      : `${statusSymbol[summary.status]} ${summary.status}`;
  lines.push({
    key: 'facts',
    node: (
      <Text>
        <Text color={summary.damage || summary.unreadable ? theme.danger : theme.statusColor(summary.status)}>
          {status}
        </Text>
        {fitText(
          ` · ${summary.mode} · ${formatProgress(summary)} · ${usage} · ${formatCost(summary.costUsd)}${lineageCost}`,
          width - status.length,
        )}
      </Text>
    ),
  });
  if (summary.unreadable) {
    lines.push({
      key: 'unreadable',
      node: <Text color={theme.danger}>{fitText(summary.unreadable.problem, width)}</Text>,
    });
    lines.push({
      key: 'fix',
      node: <Text color={theme.muted}>{fitText(permissionDeniedHint(summary.unreadable.path), width)}</Text>,
    });
  } else if (summary.damage) {
    lines.push({
      key: 'damage',
      node: (
        <Text color={theme.danger}>
          {fitText(`Damaged: ${summary.damage.problem} (${summary.damage.file})`, width)}
        </Text>
      ),
    });
    lines.push({
      key: 'repair',
      node: (
        <Text color={theme.muted}>{fitText(`See what a repair would do: ${repairCommand(summary.id)}`, width)}</Text>
      ),
    });
  }
  if (summary.status === 'waiting' && summary.waitingFor) {
    lines.push({
      key: 'question',
      node: (
        <Text color={theme.statusColor('waiting')}>
          {fitText(`Waiting for an answer: ${summary.waitingFor.prompt}`, width)}
        </Text>
      ),
    });
    lines.push({
      key: 'answer',
      node: (
        <Text color={theme.muted}>{fitText(`a answers it here (or: conclave answer ${summary.id} "…")`, width)}</Text>
      ),
    });
  }
  if (summary.status === 'sleeping' && summary.wakeAt) {
    lines.push({
      key: 'wake',
      node: (
        <Text color={theme.statusColor('sleeping')}>
          {fitText(`Sleeping until ${summary.wakeAt}: a recover or a resume after that time wakes it`, width)}
        </Text>
      ),
    });
  }
  if (!details) {
    lines.push({ key: 'loading', node: <Text color={theme.muted}>loading details…</Text> });
  } else {
    const lineage = details.lineage;
    if (lineage.length > 1) {
      const shown = lineage.slice(0, 3);
      for (const entry of shown) {
        const indent = entry.depth === 0 ? '' : `${'  '.repeat(entry.depth - 1)}└ `;
        const branch = entry.branchPoint !== null ? ` @${entry.branchPoint}` : '';
        lines.push({
          key: `lineage-${entry.id}`,
          node: (
            <Text bold={entry.current}>
              {entry.depth === 0 ? 'Lineage: ' : '         '}
              {indent}
              <Text color={theme.statusColor(entry.status)}>{statusSymbol[entry.status]}</Text>
              {fitText(` ${entry.title}${branch}${entry.current ? '  ← this' : ''}`, width - 12 - indent.length)}
            </Text>
          ),
        });
      }
      if (lineage.length > shown.length) {
        lines.push({
          key: 'lineage-more',
          node: <Text color={theme.muted}>{`         +${lineage.length - shown.length} more in lineage`}</Text>,
        });
      }
    }
    for (const map of details.queuedItems ?? []) {
      const order = ['running', 'queued', 'failed', 'waiting', 'done'] as const;
      const counts = order.filter((state) => map.counts[state] > 0).map((state) => `${map.counts[state]} ${state}`);
      lines.push({
        key: `queued-${map.stepId}`,
        node: (
          <Text color={theme.accent}>
            {fitText(`Queued items of ${map.stepId}: ${map.items.length} · ${counts.join(' · ')}`, width)}
          </Text>
        ),
      });
      const running = map.items.filter((item) => item.worker !== null);
      if (running.length > 0) {
        const where = running.map((item) => `${item.id} on ${item.worker?.host}:${item.worker?.pid}`);
        lines.push({
          key: `running-${map.stepId}`,
          node: <Text>{fitText(`  running: ${where.join(', ')}`, width)}</Text>,
        });
      }
    }
    const last = details.checkpoints[details.checkpoints.length - 1];
    const graphCheckpoints = details.graphCheckpoints ?? 0;
    lines.push({
      key: 'checkpoints',
      node: (
        <Text>
          {fitText(
            !last && graphCheckpoints > 0
              ? `Checkpoints: ${graphCheckpoints} of the graph (listed by conclave checkpoints list)`
              : `Checkpoints: ${details.checkpoints.length}${last ? `, last #${last.seq}${last.label ? ` "${last.label}"` : ''}` : ''}`,
            width,
          )}
        </Text>
      ),
    });
    const plan = details.plan;
    if (plan) {
      // "resume from X" already says that X runs next: only what else runs is added.
      const next = plan.next.filter((step) => step !== plan.position);
      const parts = [
        plan.position ? `resume from ${plan.position}` : 'resume',
        plan.skipped.length > 0 ? `skip ${plan.skipped.length} done` : null,
        plan.uncertain.length > 0 ? `${plan.uncertain.length} uncertain` : null,
        next.length > 0 ? `next: ${next.join(', ')}` : null,
      ].filter((part): part is string => part !== null);
      lines.push({
        key: 'plan',
        node: <Text color={theme.accent}>{fitText(`Plan: ${parts.join(' · ')}`, width)}</Text>,
      });
      for (const warning of plan.warnings.slice(0, 2)) {
        lines.push({
          key: `warning-${warning}`,
          node: <Text color={theme.warning}>{fitText(`! ${warning}`, width)}</Text>,
        });
      }
    }
  }
  return (
    <Box height={detailsHeight} flexDirection="column" overflow="hidden">
      <Text color={theme.muted}>{fitText(`── ${summary.id} ${'─'.repeat(width)}`, width)}</Text>
      {lines.slice(0, detailsHeight - 1).map((line) => (
        <Box key={line.key}>{line.node}</Box>
      ))}
    </Box>
  );
}
