// What `sessions show --json` prints (the binding fields of docs/architecture.md#the-cli and more) and the readable
// transcript shared by `sessions show` and `sessions export --format md`.
import type { SessionState, StepRecord } from '@resume/core';
import { printableText, type SessionStore, type SessionSummary } from '@resume/core/spec';
import type { EventsLostInRepair } from '@resume/runner';
import { z } from 'zod';
import { formatCost, formatTokens, formatWhen } from '../output/format.js';

export interface LineageEntry {
  id: string;
  title: string | null;
  /** False when the parent was deleted: the chain stops there. */
  exists: boolean;
}

export interface UsageView {
  inputTokens: number;
  outputTokens: number;
  costUsd: number | null;
}

/** What a shell step printed and how it ended, as `sessions show` lists it. */
export interface ShellResultView {
  /** Null when the step was skipped (an uncertain run the user chose not to repeat). */
  exitCode: number | null;
  stdoutTail: string;
  stderrTail: string;
  skipped: boolean;
}

/** The result a workflow records for a shell step (docs/workflow-spec.md). */
const shellResultSchema = z.object({
  exitCode: z.number().int().nullable(),
  stdoutTail: z.string(),
  stderrTail: z.string(),
  skipped: z.boolean().optional(),
});

/** Each completed shell step's result, read from the journal or, when it was large, from its blob. */
export async function shellResultsOf(
  store: Pick<SessionStore, 'getBlob'>,
  state: SessionState,
): Promise<Map<StepRecord, ShellResultView>> {
  const results = new Map<StepRecord, ShellResultView>();
  for (const step of state.steps) {
    if (step.status !== 'completed' || !step.key.endsWith('/shell')) continue;
    let output: unknown = step.output;
    if (output === undefined && step.outputBlob !== undefined) {
      const content = await store.getBlob(step.outputBlob);
      output = content ? parseJsonOrNull(Buffer.from(content).toString('utf8')) : undefined;
    }
    const parsed = shellResultSchema.safeParse(output);
    if (!parsed.success) continue;
    const { exitCode, stdoutTail, stderrTail, skipped } = parsed.data;
    results.set(step, { exitCode, stdoutTail, stderrTail, skipped: skipped === true });
  }
  return results;
}

function parseJsonOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

export function sessionJson(
  state: SessionState,
  lineage: LineageEntry[],
  lineageUsage: UsageView,
  shellResults: ReadonlyMap<StepRecord, ShellResultView> = new Map(),
) {
  return {
    id: state.header.id,
    title: state.title,
    name: state.metadata?.name ?? null,
    tags: state.metadata?.tags ?? [],
    pinned: state.metadata?.pinned ?? false,
    archivedAt: state.metadata?.archivedAt ?? null,
    mode: state.header.mode,
    status: state.status,
    statusReason: state.statusReason,
    error: state.error,
    parentId: state.header.parentId,
    branchPoint: state.header.branchPoint,
    workspaceDir: state.header.workspaceDir,
    createdAt: state.createdAt,
    updatedAt: state.updatedAt,
    lastSeq: state.lastSeq,
    recoveries: state.recoveries,
    lineage,
    messages: state.messages.map((message) => ({
      seq: message.seq,
      at: message.at,
      role: message.role,
      speaker: message.speaker,
      content: message.content,
      round: message.round,
      ...(message.toolCalls ? { toolCalls: message.toolCalls } : {}),
      ...(message.toolCallId ? { toolCallId: message.toolCallId } : {}),
      ...(message.tags ? { tags: message.tags } : {}),
    })),
    checkpoints: state.checkpoints.map((checkpoint) => ({
      seq: checkpoint.seq,
      label: checkpoint.label,
      at: checkpoint.at,
    })),
    variables: state.variables,
    notices: sessionNotices(state),
    steps: state.steps.map((step) => ({
      key: step.key,
      occurrence: step.occurrence,
      status: step.status,
      safety: step.safety,
      /** The concurrent branch it ran in (a parallel group's member), or null. */
      branch: step.branch,
      attempts: step.attempts.length,
      /** A shell step's exit code and output tails; null for other steps. */
      shell: shellResults.get(step) ?? null,
      attemptHistory: step.attempts.map((attempt) => ({
        attempt: attempt.attempt,
        startedAt: attempt.startedAt,
        error: attempt.error?.message ?? null,
      })),
    })),
    usage: {
      inputTokens: state.usage.inputTokens,
      outputTokens: state.usage.outputTokens,
      costUsd: state.usage.costUsd,
    },
    lineageUsage,
    usageByAgent: usageByAgent(state),
    files: Object.values(state.files).map((file) => ({ path: file.path, hash: file.hash, access: file.access })),
  };
}

/** What the run said worth keeping (`map step review had no items`), journaled as `data.notices`. */
export function sessionNotices(state: SessionState): string[] {
  const notices = state.data.notices;
  return Array.isArray(notices) ? notices.filter((notice): notice is string => typeof notice === 'string') : [];
}

/**
 * Each step with its attempts, for `sessions show`: "step[tests]/shell  completed at attempt 3"
 * and one line per failed attempt with the first line of its error.
 */
export function renderStepHistory(
  state: SessionState,
  options: { maxSteps?: number; shellResults?: ReadonlyMap<StepRecord, ShellResultView> } = {},
): string[] {
  const max = options.maxSteps ?? 40;
  const lines: string[] = [];
  for (const step of state.steps.slice(-max)) {
    const label = step.occurrence > 1 ? `${step.key} (#${step.occurrence})` : step.key;
    const last = step.attempts.at(-1);
    const outcome =
      step.status === 'completed'
        ? `completed${step.attempts.length > 1 ? ` at attempt ${last?.attempt}` : ''}`
        : step.status === 'failed'
          ? `failed at attempt ${last?.attempt}${step.willRetry ? ' (will retry)' : ''}`
          : step.status === 'started'
            ? `unfinished: attempt ${last?.attempt} started and never finished`
            : 'skipped by choice';
    const shell = options.shellResults?.get(step);
    const ended = !shell ? '' : shell.skipped ? ' · skipped, not run again' : ` · exit ${shell.exitCode}`;
    lines.push(
      `    ${label.padEnd(28)} ${outcome}${step.branch === null ? '' : ` · in parallel branch ${step.branch}`}${ended}`,
    );
    if (shell) lines.push(...outputTail(shell));
    for (const attempt of step.attempts) {
      if (attempt.error === null) continue;
      lines.push(
        `      attempt ${attempt.attempt}: ${printableText(attempt.error.message.split('\n')[0] ?? '', 'line')}`,
      );
    }
  }
  if (state.steps.length > max) lines.unshift(`    … ${state.steps.length - max} earlier steps`);
  return lines;
}

/** The last lines a shell step printed: stdout's, then stderr's marked as such. */
function outputTail(shell: ShellResultView): string[] {
  const lastLines = (text: string, count: number) =>
    text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .slice(-count)
      .map((line) => printableText(line, 'line'));
  return [
    ...lastLines(shell.stdoutTail, 3).map((line) => `      │ ${line}`),
    ...lastLines(shell.stderrTail, 2).map((line) => `      │ stderr: ${line}`),
  ];
}

export function usageByAgent(state: SessionState): Record<string, UsageView> {
  const byAgent: Record<string, UsageView> = {};
  // A branch's copies of its parent's calls are the parent's usage, not this session's.
  for (const record of state.usageRecords) {
    if (record.inherited) continue;
    const name = record.agent ?? record.model;
    const entry = byAgent[name] ?? { inputTokens: 0, outputTokens: 0, costUsd: 0 };
    entry.inputTokens += record.inputTokens;
    entry.outputTokens += record.outputTokens;
    entry.costUsd = entry.costUsd === null || record.costUsd === null ? null : entry.costUsd + record.costUsd;
    byAgent[name] = entry;
  }
  return byAgent;
}

export interface TranscriptOptions {
  /** Show tool call arguments and results instead of one folded line. */
  full: boolean;
  /** Longest message body shown when not full (characters). */
  maxLength?: number;
  /** Markdown (export) instead of terminal text. */
  markdown?: boolean;
  style?: { bold(text: string): string; dim(text: string): string; cyan(text: string): string };
}

const plain = { bold: (text: string) => text, dim: (text: string) => text, cyan: (text: string) => text };

/** Speakers, rounds, tool calls folded into one line each unless `full`. */
export function renderTranscript(state: SessionState, options: TranscriptOptions): string[] {
  const style = options.style ?? plain;
  const lines: string[] = [];
  let round: number | null = null;
  const results = new Map(state.toolCalls.map((call) => [call.callId, call]));
  for (const message of state.messages) {
    if (message.role === 'tool' && !options.full) continue;
    if (message.round !== null && message.round !== round) {
      round = message.round;
      lines.push('', options.markdown ? `## Round ${round}` : style.dim(`── round ${round} ──`));
    }
    const speaker = message.speaker ?? message.role;
    const label = printableText(message.role === 'system' ? `${speaker} (system)` : speaker, 'line');
    let body = printableText(message.content.trim(), 'lines');
    if (!options.full && options.maxLength && body.length > options.maxLength)
      body = `${body.slice(0, options.maxLength)}… (${body.length - options.maxLength} more characters; --transcript shows all)`;
    if (options.markdown) {
      lines.push('', `**${label}**${message.role === 'tool' ? ' (tool result)' : ''}:`, '', body || '_(no text)_');
    } else {
      lines.push('', style.bold(`[${label}]`) + (message.role === 'tool' ? style.dim(' tool result') : ''));
      if (body) lines.push(...body.split('\n').map((line) => `  ${line}`));
    }
    const calls = message.toolCalls ?? [];
    if (calls.length > 0) {
      if (options.full) {
        for (const call of calls) {
          const result = results.get(call.id);
          lines.push(
            `  ${style.cyan('↳')} ${printableText(`${call.name}(${JSON.stringify(call.args)})`, 'line')}` +
              (result?.result !== undefined ? ` → ${truncateJson(result.result, 400)}` : ''),
          );
        }
      } else {
        const names = calls.map((call) => call.name).join(', ');
        lines.push(`  ${style.cyan('↳')} ${calls.length} tool call${calls.length === 1 ? '' : 's'}: ${names}`);
      }
    }
  }
  return lines;
}

function truncateJson(value: unknown, length: number): string {
  const text = printableText(JSON.stringify(value), 'line');
  return text.length > length ? `${text.slice(0, length)}…` : text;
}

/** `events 49..50 were lost in a repair (it kept events 1..48)`, for an export's output line and text. */
export function describeEventsLost(lost: EventsLostInRepair): string {
  const range = lost.last === null ? `events ${lost.first} onwards` : `events ${lost.first}..${lost.last}`;
  return `${range} were lost in a repair (it kept events 1..${lost.keptSeq})`;
}

/**
 * A whole session as a Markdown document (export --format md). Controls in the session's text
 * are shown, not kept (printableText), so the file is safe to `cat`; the JSON export is exact.
 */
export function renderMarkdown(
  state: SessionState,
  lineageUsage: UsageView,
  lostInRepair: readonly EventsLostInRepair[] = [],
): string {
  const lines = [
    `# ${printableText(state.title, 'line')}`,
    '',
    `- Session: \`${state.header.id}\``,
    `- Mode: ${state.header.mode}`,
    `- Status: ${state.status}`,
    `- Created: ${formatWhen(state.createdAt)}; updated: ${formatWhen(state.updatedAt)}`,
    ...(state.header.parentId ? [`- Parent: \`${state.header.parentId}\``] : []),
    `- Usage: ${formatTokens(state.usage.inputTokens, state.usage.outputTokens)}, ${formatCost(state.usage.costUsd)}` +
      (state.header.parentId ? ` (lineage: ${formatCost(lineageUsage.costUsd)})` : ''),
    ...lostInRepair.map((lost) => `- Missing: ${describeEventsLost(lost)}`),
    '',
    ...renderTranscript(state, { full: true, markdown: true }),
    '',
  ];
  return printableText(lines.join('\n'), 'lines');
}

export function describeProgress(summary: Pick<SessionSummary, 'progress' | 'status'>): string {
  const progress = summary.progress;
  if (!progress) return '';
  if (progress.total !== null) return `${progress.label} ${progress.done}/${progress.total}`;
  // Labels are plural ("turns"); one of them reads "1 turn".
  return `${progress.done} ${progress.done === 1 ? progress.label.replace(/s$/, '') : progress.label}`;
}
