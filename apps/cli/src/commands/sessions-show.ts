// `conclave sessions show <id>`: status, lineage, checkpoints, usage and cost (session and
// lineage) and the transcript; `--json` for scripts (the binding fields of docs/architecture.md#the-cli).
import { pendingInput } from '@resume/core/engine';
import { printableText, type SessionHeader } from '@resume/core/spec';
import { type QueuedMapStatus, queuedItemsOf, resumeCommandFor } from '@resume/runner';
import { continueThreadAdvice, graphCheckpointsAdvice } from '@resume/tui/error-hints';
import { z } from 'zod';
import type { CliContext } from '../context/cli-context.js';
import { capitalize, formatCost, formatTokens, formatWhen } from '../output/format.js';
import { lineageOf } from '../sessions/lineage.js';
import { resolveSession } from '../sessions/resolve-session.js';
import {
  renderStepHistory,
  renderTranscript,
  sessionJson,
  sessionNotices,
  shellResultsOf,
  usageByAgent,
} from '../sessions/session-view.js';
import { shortIdsOfStore } from '../sessions/short-ids.js';
import { threadIdOf } from '../sessions/thread-id.js';

const showOptionsSchema = z.object({ transcript: z.boolean().default(false) });

export async function showSessionCommand(
  context: CliContext,
  input: { reference: string; options: Record<string, unknown> },
): Promise<number> {
  const options = showOptionsSchema.parse(input.options);
  const engine = await context.engine();
  const id = await resolveSession(context, input.reference);
  const state = await engine.readSession(id);
  const { lineage, usage } = await lineageOf(engine, state);
  const terminal = context.terminal;
  const shellResults = await shellResultsOf(engine.store, state);
  const queuedItems = await queuedItemsOf(engine, state);
  if (context.options.json) {
    const json = sessionJson(state, lineage, usage, shellResults);
    terminal.data(JSON.stringify(queuedItems.length > 0 ? { ...json, queuedItems } : json, null, 2));
    return 0;
  }
  const shortId = await shortIdsOfStore(context, [id, ...lineage.map((entry) => entry.id)]);
  const statusColour =
    state.status === 'completed' ? terminal.green : state.status === 'failed' ? terminal.red : terminal.yellow;
  terminal.out(terminal.bold(printableText(state.title, 'line')));
  terminal.out(`  id:          ${state.header.id}`);
  const metadata = state.metadata;
  if (metadata?.name) terminal.out(`  name:        ${printableText(metadata.name, 'line')}`);
  const marks = [
    ...(metadata?.pinned ? ['pinned'] : []),
    ...(metadata?.archivedAt ? [`archived ${formatWhen(metadata.archivedAt)}`] : []),
    ...(metadata?.tags ?? []).map((tag) => `#${tag}`),
  ];
  if (marks.length > 0) terminal.out(`  organized:   ${marks.join('  ')}`);
  terminal.out(`  mode:        ${state.header.mode}`);
  terminal.out(
    `  status:      ${statusColour(state.status)}${state.statusReason ? ` (${state.statusReason})` : ''}` +
      (state.recoveries > 0 ? `, resumed ${state.recoveries} time${state.recoveries === 1 ? '' : 's'}` : ''),
  );
  if (state.error) terminal.out(`  error:       ${printableText(state.error.message, 'lines')}`);
  terminal.out(`  created:     ${formatWhen(state.createdAt)}    updated: ${formatWhen(state.updatedAt)}`);
  if (state.header.workspaceDir) terminal.out(`  workspace:   ${state.header.workspaceDir}`);
  if (lineage.length > 0) {
    const chain = [...lineage]
      .reverse()
      .map((entry) => (entry.exists ? `${shortId(entry.id)} "${entry.title}"` : `${shortId(entry.id)} (deleted)`));
    const mapItemOf = state.header.options.mapItemOf as { mapId?: unknown } | undefined;
    const relation =
      typeof mapItemOf?.mapId === 'string'
        ? `an item of map step "${printableText(mapItemOf.mapId, 'line')}" of`
        : state.header.branchPoint === null
          ? 'continued from'
          : `branched at #${state.header.branchPoint} of`;
    terminal.out(`  lineage:     ${[...chain, 'this session'].join(' → ')}  (${relation} the parent)`);
  }
  terminal.out(
    `  usage:       ${formatTokens(state.usage.inputTokens, state.usage.outputTokens)}, ${formatCost(state.usage.costUsd)}` +
      (lineage.length > 0 ? `  (lineage: ${formatCost(usage.costUsd)})` : ''),
  );
  const agents = Object.entries(usageByAgent(state));
  if (agents.length > 1) {
    for (const [agent, totals] of agents)
      terminal.out(
        `    ${agent.padEnd(16)} ${formatTokens(totals.inputTokens, totals.outputTokens)}, ${formatCost(totals.costUsd)}`,
      );
  }
  const last = state.checkpoints[state.checkpoints.length - 1];
  const graphCheckpoints = state.graphCheckpoints ?? 0;
  terminal.out(
    last || graphCheckpoints === 0
      ? `  checkpoints: ${state.checkpoints.length}` +
          (last
            ? ` (last #${last.seq}${last.label ? ` "${last.label}"` : ''}; all: conclave checkpoints list ${shortId(id)})`
            : '')
      : `  checkpoints: ${graphCheckpoints} of the graph (all: conclave checkpoints list ${shortId(id)}; ` +
          `${graphCheckpointsAdvice(threadIdOf(state.header) ?? id)})`,
  );
  const uncertain = state.steps.filter((step) => step.status === 'started');
  if (uncertain.length > 0) terminal.out(`  unfinished:  ${uncertain.map((step) => step.key).join(', ')}`);
  const variables = Object.entries(state.variables);
  if (variables.length > 0)
    terminal.out(`  variables:   ${variables.map(([name, value]) => `${name}=${JSON.stringify(value)}`).join(', ')}`);
  for (const notice of sessionNotices(state)) terminal.out(`  notice:      ${printableText(notice, 'line')}`);
  for (const line of renderQueuedItems(queuedItems)) terminal.out(line);
  if (state.steps.length > 0) {
    terminal.out(`  steps:       ${state.steps.length}`);
    for (const line of renderStepHistory(state, { shellResults })) terminal.out(line);
  }
  terminal.out();
  terminal.out(terminal.bold(`${capitalize('transcript')} (${state.messages.length} messages)`));
  for (const line of renderTranscript(state, { full: options.transcript, maxLength: 1200, style: terminal }))
    terminal.out(line);
  const question = pendingInput(state);
  if (state.status === 'waiting' && question) {
    terminal.out();
    terminal.out(terminal.bold(`Waiting for an answer to "${question.key}": `) + question.prompt);
    terminal.out(`Answer with: conclave answer ${id} "…"`);
  }
  if (state.status === 'sleeping' && state.wakeAt) {
    terminal.out();
    terminal.out(`${terminal.bold('Sleeping until')} ${formatWhen(state.wakeAt)} (${state.wakeAt}).`);
  }
  if (state.status === 'interrupted' || state.status === 'failed') {
    terminal.out();
    terminal.out(resumeAdvice(id, state.header));
  }
  return 0;
}

/** How to pick an unfinished session up again: a LangGraph thread continues in the app that runs the graph. */
function resumeAdvice(id: string, header: SessionHeader): string {
  if (header.mode === 'langgraph') return continueThreadAdvice(threadIdOf(header) ?? id);
  return `Resume with: ${resumeCommandFor(id, header.mode)}`;
}

/** The most item lines shown per map step; `--json` lists every item. */
const ITEM_LINES = 40;

/** A queued run's map items: counts by state, then the items not done, running ones first. */
function renderQueuedItems(maps: QueuedMapStatus[]): string[] {
  const lines: string[] = [];
  const order = ['running', 'queued', 'failed', 'waiting', 'done'] as const;
  for (const map of maps) {
    const counts = order.filter((state) => map.counts[state] > 0).map((state) => `${map.counts[state]} ${state}`);
    lines.push(
      `  queued items: map step "${printableText(map.stepId, 'line')}", ${map.items.length} in all: ${counts.join(', ')}`,
    );
    const listed = order
      .filter((state) => state !== 'done')
      .flatMap((state) => map.items.filter((item) => item.state === state));
    for (const item of listed.slice(0, ITEM_LINES)) {
      const where = item.worker ? ` on ${item.worker.host}:${item.worker.pid}` : '';
      const child = item.sessionId ? `  (session ${item.sessionId})` : '';
      lines.push(`    ${printableText(item.id, 'line').padEnd(16)} ${item.state}${where}${child}`);
    }
    if (listed.length > ITEM_LINES) {
      lines.push(`    … ${listed.length - ITEM_LINES} more not done (all of them: conclave sessions show <id> --json)`);
    }
  }
  return lines;
}
