// `conclave usage`: tokens and cost of every session's model calls, by day, week or month, model,
// provider, workspace, tag or mode, from the journals (through the usage table of the content
// index, which reads only what was appended since it last looked).
import { UsageError } from '@resume/core/spec';
import type { UsageDimension, UsageReport, UsageReportRow, UsageTotals } from '@resume/runner/ledger';
import { z } from 'zod';
import type { CliContext } from '../context/cli-context.js';
import { formatCount, padText } from '../output/format.js';
import { openContentSearch } from '../sessions/content-search.js';
import { sinceToIso } from './sessions-list.js';

const DIMENSIONS = ['day', 'week', 'month', 'model', 'provider', 'workspace', 'tag', 'mode'] as const;
const DIMENSIONS_HINT = `Group by any of: ${DIMENSIONS.join(', ')} (several: --by model,day).`;

const usageOptionsSchema = z.object({
  since: z.string().optional(),
  by: z
    .string()
    .default('day')
    .transform((value) => value.split(',').map((dimension) => dimension.trim().toLowerCase()))
    .pipe(z.array(z.enum(DIMENSIONS, { error: (issue) => `Unknown grouping "${String(issue.input)}" for --by.` }))),
  csv: z.boolean().optional(),
});

export async function usageCommand(context: CliContext, rawOptions: Record<string, unknown>): Promise<number> {
  const parsed = usageOptionsSchema.safeParse(rawOptions);
  if (!parsed.success) {
    throw new UsageError(parsed.error.issues[0]?.message ?? 'Invalid --by.', { hint: DIMENSIONS_HINT });
  }
  const options = parsed.data;
  if (options.csv && context.options.json) throw new UsageError('Choose one of --csv and --json.');
  const by = [...new Set(options.by)] as UsageDimension[];
  const now = context.environment.now();
  const since = options.since === undefined ? null : new Date(sinceToIso(options.since, now));
  const ledger = await import('@resume/runner/ledger');
  const terminal = context.terminal;
  const index = await openContentSearch(context, {
    onIndexing: (count) =>
      terminal.note(terminal.dim(`Reading the usage of ${count} sessions (later reports read only what changed)…`)),
  });
  let report: UsageReport;
  try {
    report = ledger.buildUsageReport(await index.usage(), { by, ...(since ? { since } : {}) });
  } finally {
    index.close();
  }
  if (context.options.json) {
    terminal.data(JSON.stringify({ since: since?.toISOString() ?? null, ...report }));
    return 0;
  }
  if (options.csv) {
    const header = [...by, 'calls', 'input_tokens', 'output_tokens', 'cost_usd', 'unpriced_calls'];
    const lines = report.rows.map((row) =>
      [...by.map((dimension) => row[dimension] ?? ''), ...numbersOf(row).map(String)].map(csvField).join(','),
    );
    terminal.data([header.join(','), ...lines].join('\n'));
    return 0;
  }
  printReport(context, report, since, ledger.lockedSessionsNote(report.locked));
  return 0;
}

function numbersOf(totals: UsageTotals): number[] {
  return [totals.calls, totals.inputTokens, totals.outputTokens, totals.costUsd, totals.unpricedCalls];
}

/** Dollars to the cent, or to a hundredth of a cent below one dollar (a ledger adds small calls up). */
function ledgerCost(costUsd: number): string {
  return `$${costUsd.toFixed(costUsd < 1 ? 4 : 2)}`;
}

function csvField(value: string): string {
  return /[",\n\r]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

function printReport(context: CliContext, report: UsageReport, since: Date | null, lockedNote: string | null): void {
  const terminal = context.terminal;
  const period = since ? `since ${since.toISOString().slice(0, 16).replace('T', ' ')} UTC` : 'all time';
  if (report.total.calls === 0) {
    terminal.note(`No model calls recorded (${period}).`);
  } else {
    const widths = report.by.map((dimension) =>
      Math.min(48, Math.max(dimension.length, ...report.rows.map((row) => (row[dimension] ?? '').length))),
    );
    // The total's label spans the label columns: the first one widens until it is whole.
    const totalLabel = `total, ${period}`;
    const labelsWidth = widths.reduce((sum, width) => sum + width, 0) + 2 * (widths.length - 1);
    widths[0] = (widths[0] ?? 8) + Math.max(0, totalLabel.length - labelsWidth);
    const cells = (row: UsageReportRow | null) => [
      ...report.by.map((dimension, position) => padText(row ? (row[dimension] ?? '') : '', widths[position] ?? 8)),
    ];
    const figures = (totals: UsageTotals) =>
      `${String(totals.calls).padStart(7)}  ${formatCount(totals.inputTokens).padStart(9)}  ${formatCount(totals.outputTokens).padStart(9)}  ${ledgerCost(totals.costUsd).padStart(10)}`;
    terminal.out(
      terminal.dim(
        `${report.by.map((dimension, position) => dimension.toUpperCase().padEnd(widths[position] ?? 8)).join('  ')}  ${'CALLS'.padStart(7)}  ${'INPUT'.padStart(9)}  ${'OUTPUT'.padStart(9)}  ${'COST'.padStart(10)}`,
      ),
    );
    for (const row of report.rows) terminal.out(`${cells(row).join('  ')}  ${figures(row)}`);
    terminal.out(terminal.bold(`${padText(totalLabel, cells(null).join('  ').length)}  ${figures(report.total)}`));
    if (report.by.includes('tag')) {
      terminal.note(
        terminal.dim('A session with several tags counts under each: the tag rows add up to more than the total.'),
      );
    }
  }
  if (report.total.unpricedCalls > 0) {
    terminal.note(
      `${report.total.unpricedCalls} calls used models without a known price: their tokens are counted, their cost is not.`,
    );
  }
  if (lockedNote) terminal.note(lockedNote);
  const { branches, parents } = report.orphans;
  if (parents > 0) {
    terminal.note(
      `${parents} session${parents === 1 ? ' was' : 's were'} deleted for good: their calls up to the branch point of ${branches} branch${branches === 1 ? '' : 'es'} are counted from the branches' copies; what they spent after is no longer known.`,
    );
  }
}
