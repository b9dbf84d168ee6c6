// Continuation (docs/architecture.md#resume-and-continue): the messages a child session starts with when a session is
// continued with a follow-up: a continuation prompt (previous task, previous conclusion,
// the new follow-up) and the parent's history compacted to the budget. And the resume
// message, added only where a model's context is not exact (continue, branch, changed
// workflow, compacted history): what was done and must not be repeated, what was found,
// where it stopped.
import type { SessionState } from '@resume/core';
import { type Message, type MessageInput, PARENT_HISTORY_TAG } from '@resume/core/spec';
import {
  type CompactionResult,
  type CompactionStrategy,
  createExtractiveCompaction,
  estimateMessageTokens,
  findConclusionIndex,
  findTaskIndex,
  firstSentence,
} from './compaction.js';

export const CONTINUATION_TAG = 'continuation';
export const FOLLOW_UP_TAG = 'follow-up';
export const RESUME_MESSAGE_TAG = 'resume-message';
export { PARENT_HISTORY_TAG };

export interface ContinuationOptions {
  /** Budget for everything the child starts with (prompt, history, follow-up), in estimated tokens. */
  budgetTokens: number;
  strategy?: CompactionStrategy;
  /** Who asks the follow-up (default `user`). */
  speaker?: string | null;
  /** What the parent's numbered passes are called (its mode's `roundUnit`, default `round`). */
  roundUnit?: 'round' | 'chunk' | 'step';
}

export interface ContinuationMessages {
  /** In order: the continuation prompt (system), the parent's history, the follow-up (user). */
  messages: MessageInput[];
  compaction: CompactionResult;
  previousTask: string | null;
  previousConclusion: string | null;
}

function previousTaskOf(messages: readonly Message[]): string | null {
  const index = findTaskIndex(messages);
  return index < 0 ? null : (messages[index] as Message).content;
}

function previousConclusionOf(messages: readonly Message[]): string | null {
  const index = findConclusionIndex(messages);
  return index < 0 ? null : (messages[index] as Message).content;
}

/** The continuation prompt, in the source's wording: previous task, previous conclusion, new follow-up. */
export function continuationPrompt(input: {
  sessionId: string;
  title: string;
  previousTask: string | null;
  previousConclusion: string | null;
  followUp: string;
  /** The parent stopped before concluding (interrupted or failed): said so, never a turn passed off as a conclusion. */
  unfinished?: 'interrupted' | 'failed' | 'running' | 'waiting' | 'sleeping';
}): string {
  return [
    `This is a continuation of session ${input.sessionId} ("${input.title}").`,
    '',
    `Previously you discussed: ${input.previousTask ?? '(no task was recorded)'}`,
    '',
    input.unfinished
      ? `The discussion was ${input.unfinished === 'failed' ? 'stopped by a failure' : input.unfinished === 'waiting' ? 'waiting for an answer from the user' : input.unfinished === 'sleeping' ? 'sleeping until a set time' : 'interrupted'} before it reached a conclusion; the messages below end where it stopped.`
      : `You reached this conclusion: ${input.previousConclusion ?? '(no conclusion was recorded)'}`,
    '',
    `NEW FOLLOW-UP: ${input.followUp}`,
    '',
    'Please address the follow-up while considering your previous discussion. The earlier messages follow; do not repeat work that was already done.',
  ].join('\n');
}

function strip(message: Message): Message {
  // A child journals copies: the parent's seq/at do not belong to it, and the tag says where they came from.
  return {
    role: message.role,
    content: message.content,
    speaker: message.speaker,
    round: message.round,
    ...(message.toolCalls ? { toolCalls: message.toolCalls } : {}),
    ...(message.toolCallId ? { toolCallId: message.toolCallId } : {}),
    // `step:` tags name the parent's steps; kept, they would make the child's own steps look replayed.
    tags: [...new Set([...(message.tags ?? []).filter((tag) => !tag.startsWith('step:')), PARENT_HISTORY_TAG])],
  };
}

/** The messages a continued (child) session starts with. */
export function buildContinuationMessages(
  parentState: SessionState,
  followUp: string,
  options: ContinuationOptions,
): ContinuationMessages {
  const strategy = options.strategy ?? createExtractiveCompaction();
  const history = parentState.messages.map(strip);
  const previousTask = previousTaskOf(history);
  // Only a completed session has a conclusion; the last turn of an interrupted one is not one.
  const unfinished = parentState.status === 'completed' ? undefined : parentState.status;
  const previousConclusion = unfinished ? null : previousConclusionOf(history);
  const prompt: Message = {
    role: 'system',
    content: continuationPrompt({
      sessionId: parentState.header.id,
      title: parentState.title,
      previousTask,
      previousConclusion,
      followUp,
      ...(unfinished ? { unfinished } : {}),
    }),
    speaker: null,
    round: null,
    tags: [CONTINUATION_TAG],
  };
  const question: Message = {
    role: 'user',
    content: followUp,
    speaker: options.speaker ?? null,
    round: null,
    tags: [FOLLOW_UP_TAG],
  };
  const fixedTokens = estimateMessageTokens(prompt) + estimateMessageTokens(question);
  const compaction = strategy.compact(history, {
    budgetTokens: Math.max(0, options.budgetTokens - fixedTokens),
    ...(options.roundUnit ? { roundUnit: options.roundUnit } : {}),
  });
  return {
    messages: [prompt, ...compaction.messages, question],
    compaction,
    previousTask,
    previousConclusion,
  };
}

export type ResumeReason = 'continue' | 'branch' | 'workflow-changed' | 'compacted-history';

const reasonText: Record<ResumeReason, string> = {
  continue: 'This session continues an earlier one.',
  branch: 'This session branches from a checkpoint of an earlier one.',
  'workflow-changed': 'The workflow changed since this session was interrupted.',
  'compacted-history': 'Part of the earlier history was compacted to fit the context.',
};

export interface ResumeMessageOptions {
  /** At most this many findings (the latest assistant turns, first sentence each; default 3). */
  maxFindings?: number;
  /** At most this many completed steps listed by name (default 30). */
  maxSteps?: number;
}

/**
 * The system message for a model whose context is not exact: what was completed (DO NOT
 * REPEAT), what was found, where it stopped. Not used on an exact in-place resume, where
 * the journal gives every model the input it would have had.
 */
export function buildResumeMessage(
  state: SessionState,
  reason: ResumeReason,
  options: ResumeMessageOptions = {},
): MessageInput {
  const maxFindings = options.maxFindings ?? 3;
  const maxSteps = options.maxSteps ?? 30;
  const completed = state.steps.filter((step) => step.status === 'completed');
  const stepNames = completed.slice(0, maxSteps).map((step) => step.key);
  if (completed.length > maxSteps) stepNames.push(`… ${completed.length - maxSteps} more`);
  const tools = state.toolCalls
    .filter((call) => call.completedSeq !== null && call.isError !== true)
    .map((call) => {
      const target =
        typeof call.args === 'object' && call.args !== null && !Array.isArray(call.args)
          ? (call.args.path ?? call.args.command)
          : undefined;
      return typeof target === 'string' ? `${call.name}(${target})` : call.name;
    });
  const findings = state.messages
    .filter((message) => message.role === 'assistant' && message.content.trim().length > 0)
    .slice(-maxFindings)
    .map((message) => `• ${message.speaker ?? 'assistant'}: ${firstSentence(message.content, 240)}`);
  const lastCheckpoint = state.checkpoints[state.checkpoints.length - 1];
  const unfinished = state.steps.filter((step) => step.status === 'started' || step.status === 'failed');
  const task = previousTaskOf(state.messages);

  const content = [
    'SESSION RESUME CONTEXT - CONTINUE FROM WHERE YOU LEFT OFF',
    '',
    reasonText[reason],
    `• Session: ${state.header.id} "${state.title}" (${state.header.mode}, ${state.status})`,
    ...(task === null ? [] : [`• Task: ${firstSentence(task, 400)}`]),
    '',
    'COMPLETED WORK (DO NOT REPEAT):',
    `• Steps completed: ${stepNames.length === 0 ? 'none' : stepNames.join(', ')}`,
    `• Tools successfully executed: ${tools.length === 0 ? 'none' : tools.join(', ')}`,
    '',
    'KEY FINDINGS SO FAR:',
    ...(findings.length === 0 ? ['• none yet'] : findings),
    '',
    'WHERE IT STOPPED:',
    `• Last checkpoint: ${lastCheckpoint ? `${lastCheckpoint.label ?? `seq ${lastCheckpoint.seq}`}` : 'none'}`,
    ...unfinished.map((step) => `• Unfinished: ${step.key} (attempt ${step.attempts.length}, ${step.status})`),
    '',
    'RESUME INSTRUCTION:',
    'Review the context above: what you already completed (DO NOT REPEAT it), what you found, and where you stopped. Continue from there as if this were one continuous session, building on the work already done.',
  ].join('\n');
  return { role: 'system', content, speaker: null, round: null, tags: [RESUME_MESSAGE_TAG] };
}
