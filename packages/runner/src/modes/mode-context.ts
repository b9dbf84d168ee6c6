// What every mode gets from the runner: the live session, how to reach models, where to
// report progress, and the caller's decisions. Modes never touch the store directly.
import type { Session, UncertainDecision } from '@resume/core';
import type {
  ChatMessage,
  ChatModel,
  JsonValue,
  Message,
  MessageInput,
  SessionStore,
  StepSafety,
  ToolDefinition,
  UncertainStepInfo,
} from '@resume/core/spec';
import type { ProviderRegistry } from '../providers/provider-registry.js';
import { HANDLED_REQUESTS_KEY, handledRequestIds, type RequestInbox } from '../runner/checkpoint-requests.js';
import type { RunEvent } from '../runner/run-event.js';
import type { CostGuard } from '../usage/cost-guard.js';
import type { AgentSpec } from './agent-spec.js';

export type ModelResolver = (agent: { name: string; provider?: string; model?: string }) => ChatModel;

/** A tool a model may call; orchestrated and prompt runs execute each call as a durable step. */
export interface ModeTool {
  definition: ToolDefinition;
  /** Reads are `idempotent`; writes and commands are `unsafe` (never re-run without a decision). */
  safety: StepSafety;
  execute(args: JsonValue, context: { signal: AbortSignal; idempotencyKey: string }): Promise<ToolOutcome>;
  /** A tool that asks the user (`ask_user`): answered through `session.waitFor`, not executed as a step. */
  asksUser?: boolean;
  /** An MCP server's tool: the server's name and the tool's own (the definition's name joins them). */
  mcp?: { server: string; tool: string };
}

export interface ToolOutcome {
  content: string;
  isError: boolean;
}

export interface ModeContext {
  session: Session;
  /** For blobs (file snapshots). */
  store: Pick<SessionStore, 'putBlob'>;
  models: ModelResolver;
  /** The providers the models come from, which say whose calls are free (default: the built-in ones). */
  providers?: ProviderRegistry;
  workspaceDir: string;
  env: Record<string, string | undefined>;
  emit: (event: RunEvent) => void;
  /** Decides uncertain unsafe steps; without it the step throws UncertainStepError. */
  onUncertain?: (step: UncertainStepInfo) => UncertainDecision | Promise<UncertainDecision>;
  /**
   * The decision given up front for every uncertain step, when there is one: a shell step's
   * command still running from the interrupted run is stopped first for `rerun`, left alone for
   * `abort`, and otherwise waited for before `onUncertain` is asked.
   */
  uncertainChoice?: UncertainDecision;
  /** Waits between retry attempts (injected by tests). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Refuses a new model call that would pass the run's cost limit (none: no limit). */
  costGuard?: CostGuard | null;
  /** Checkpoint requests from other processes (`conclave checkpoint <id>`), honoured at the next checkpoint. */
  requests?: RequestInbox | null;
  /** Discussions and iterative runs label a checkpoint every N rounds / chunks (default 1: every one). */
  checkpointInterval?: number;
  /** The most items a map step runs at once (`limits.maxParallel`; default 16). */
  maxParallel?: number;
  /** How many map items and group steps run at once, instead of the spec's `parallel` and `max_concurrency`. */
  parallel?: number;
  /** How long one attempt of a workflow step may take when the step sets no `timeout:` (before `defaults.timeout`). */
  stepTimeoutMs?: number;
  /** Keeps a copy of a model call's prompt and returns its blob's digest (only when prompts are captured). */
  keepPrompt?: (prompt: { system?: string; messages: ChatMessage[] }) => Promise<string>;
}

export interface ModeResult {
  conclusion: string | null;
}

type CheckpointRecord = Session['state']['checkpoints'][number];

/** The first checkpoint marked with each label, indexed as a session's checkpoints grow (they are never removed). */
const labelIndexes = new WeakMap<
  readonly CheckpointRecord[],
  { indexed: number; first: Map<string | null, CheckpointRecord> }
>();

/** The first checkpoint marked with `label` (as `checkpoints.find` would answer), without scanning them all each step. */
function firstMarked(checkpoints: readonly CheckpointRecord[], label: string): CheckpointRecord | undefined {
  let index = labelIndexes.get(checkpoints);
  if (!index) {
    index = { indexed: 0, first: new Map() };
    labelIndexes.set(checkpoints, index);
  }
  for (; index.indexed < checkpoints.length; index.indexed += 1) {
    const marked = checkpoints[index.indexed];
    if (marked && !index.first.has(marked.label)) index.first.set(marked.label, marked);
  }
  return index.first.get(label);
}

/**
 * Commits a checkpoint and tells live views. Labels name a position in the run, so a
 * replay that passes an already-marked position only commits what is pending (a message
 * lost to a crash) instead of marking the same place twice. A label marked after seq
 * `markedAfter` was marked by this run (with a step's completion) and is announced here.
 */
export async function checkpoint(
  context: ModeContext,
  label: string,
  markedAfter?: number,
  announcer?: CheckpointAnnouncer,
): Promise<number> {
  const existing = firstMarked(context.session.state.checkpoints, label);
  if (existing) {
    const marked = markedAfter !== undefined && existing.seq > markedAfter;
    if (marked && announcer && existing.seq > context.session.committedSeq) {
      // Marked with a completion that goes in the session's next append (group commit: the
      // next step's start, an interrupt, the run's end), written before anything else runs:
      // nothing is written here, and live views hear of it once that append is durable.
      announcer.later(existing.seq, label);
    } else {
      await context.session.flush();
      // Marked after `markedAfter` (with a step's completion, in the same append): live views hear of it now.
      if (marked) context.emit({ type: 'checkpoint', seq: existing.seq, label });
    }
    await honourRequests(context);
    return existing.seq;
  }
  const seq = await context.session.checkpoint(label);
  announcer?.now();
  context.emit({ type: 'checkpoint', seq, label });
  await honourRequests(context);
  return seq;
}

/**
 * Checkpoints marked with a completion that goes in the session's next append (group commit).
 * A checkpoint event means durable (what a user is told is saved, is): each is announced once
 * an append has carried it.
 */
export interface CheckpointAnnouncer {
  later(seq: number, label: string): void;
  /** Announces those already durable. */
  now(): void;
  /** Makes those still waiting durable (one append), then announces them. */
  settle(): Promise<void>;
}

export function checkpointAnnouncer(context: ModeContext): CheckpointAnnouncer {
  let waiting: { seq: number; label: string }[] = [];
  const now = () => {
    if (waiting.length === 0) return;
    const durable = context.session.committedSeq;
    for (const entry of waiting) if (entry.seq <= durable) context.emit({ type: 'checkpoint', ...entry });
    waiting = waiting.filter((entry) => entry.seq > durable);
  };
  return {
    later(seq, label) {
      waiting.push({ seq, label });
    },
    now,
    async settle() {
      if (waiting.length === 0) return;
      await context.session.flush();
      now();
    },
  };
}

/**
 * A checkpoint of a round or chunk under `checkpointInterval`: labelled every N units (and
 * at the last one); in between the batch is committed without a label (every turn stays
 * durable, the list of checkpoints stays short).
 */
export async function intervalCheckpoint(
  context: ModeContext,
  unit: number,
  last: boolean,
  label: string,
): Promise<number> {
  const interval = Math.max(1, context.checkpointInterval ?? 1);
  if (interval === 1 || last || unit % interval === 0) return checkpoint(context, label);
  const seq = await context.session.flush();
  await honourRequests(context);
  return seq;
}

/** Writes the checkpoints other processes asked for, each once (its id is journaled as handled). */
async function honourRequests(context: ModeContext): Promise<void> {
  for (const request of context.requests?.take() ?? []) {
    const handled = handledRequestIds(context.session);
    if (handled.has(request.id)) continue;
    context.session.record({ type: 'data-set', key: HANDLED_REQUESTS_KEY, value: [...handled, request.id] });
    const label = request.label ?? `requested at ${request.requestedAt}`;
    const seq = await context.session.checkpoint(label);
    context.emit({ type: 'checkpoint', seq, label });
    context.emit({
      type: 'notice',
      text: `Checkpoint "${label}" written at seq ${seq}, as asked by pid ${request.requestedBy.pid} on ${request.requestedBy.host}.`,
    });
  }
}

/**
 * Adds a message unless this step's message is already in the journal. Replayed steps
 * return their recorded output, and a crash may fall between a step's completion and
 * its message's commit: tagging by step key makes both cases land exactly once.
 */
export function ensureStepMessage(
  context: ModeContext,
  stepKey: string,
  message: MessageInput,
): { message: Message; replayed: boolean } {
  const tag = `step:${stepKey}`;
  const existing = context.session.state.messages.find((candidate) => candidate.tags?.includes(tag));
  const replayed = existing !== undefined;
  const stored = existing ?? context.session.addMessage({ ...message, tags: [...(message.tags ?? []), tag] });
  context.emit({ type: 'turn-completed', message: stored, replayed });
  return { message: stored, replayed };
}

/** Records mode state (`data-set`) only when it changed, so replays add nothing. */
export function setData(context: ModeContext, key: string, value: JsonValue): void {
  const current = context.session.state.data[key];
  if (current !== undefined && JSON.stringify(current) === JSON.stringify(value)) return;
  context.session.record({ type: 'data-set', key, value });
}

export type { AgentSpec };

/** Where notices worth keeping are journaled (`data.notices`, shown by `sessions show`). */
export const NOTICES_KEY = 'notices';

/** Tells live views, and journals the notice once (a replay that says it again adds nothing). */
export function keepNotice(context: ModeContext, text: string): void {
  context.emit({ type: 'notice', text });
  const current = context.session.state.data[NOTICES_KEY];
  const notices = Array.isArray(current) ? current : [];
  if (!notices.includes(text)) setData(context, NOTICES_KEY, [...notices, text]);
}

/**
 * Tells live views how far the run is and keeps `data.progress` (what session lists show:
 * "3/4 rounds"). Only forward: a replay passing earlier positions does not rewrite it.
 */
export function reportProgress(context: ModeContext, label: string, done: number, total: number | null): void {
  context.emit({ type: 'progress', label, done, total });
  recordProgress(context, label, done, total);
}

/** Keeps `data.progress` without telling live views (see reportProgress). */
export function recordProgress(context: ModeContext, label: string, done: number, total: number | null): void {
  const current = context.session.state.data.progress;
  const currentDone =
    typeof current === 'object' && current !== null && !Array.isArray(current) && typeof current.done === 'number'
      ? current.done
      : -1;
  if (done > currentDone) setData(context, 'progress', { label, done, total });
}
