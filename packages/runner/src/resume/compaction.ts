// History compaction for continuations: fit a parent's transcript into a token budget.
// The strategy is pluggable; the default keeps the task, the conclusion and the latest
// turns verbatim and replaces the middle by a deterministic extractive summary (the first
// sentence of each turn, labelled with its speaker), so the same history always compacts
// to the same messages and a scripted run stays reproducible.
import type { Message } from '@resume/core/spec';

/** Rough token count: about 4 characters per token, plus a small per-message overhead. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

const MESSAGE_OVERHEAD_TOKENS = 4;

export function estimateMessageTokens(message: Pick<Message, 'content' | 'speaker'>): number {
  return estimateTokens(message.content) + estimateTokens(message.speaker ?? '') + MESSAGE_OVERHEAD_TOKENS;
}

export function estimateMessagesTokens(messages: readonly Pick<Message, 'content' | 'speaker'>[]): number {
  return messages.reduce((total, message) => total + estimateMessageTokens(message), 0);
}

export interface CompactionOptions {
  budgetTokens: number;
  estimate?: (message: Message) => number;
  /** What the session's numbered passes are called in the summary (default `round`). */
  roundUnit?: 'round' | 'chunk' | 'step';
}

export interface CompactionResult {
  messages: Message[];
  /** Whether anything was summarized or left out. */
  compacted: boolean;
  /** Messages kept word for word. */
  keptCount: number;
  /** Messages represented only by the summary. */
  summarizedCount: number;
  /** Messages not even in the summary (the budget was too small). */
  omittedCount: number;
  estimatedTokens: number;
  /** The task and conclusion alone exceed the budget (they are kept anyway). */
  overBudget: boolean;
}

export interface CompactionStrategy {
  readonly name: string;
  compact(messages: readonly Message[], options: CompactionOptions): CompactionResult;
}

/** Tags that mark a message as the conclusion of a session (the judge's verdict, a final answer). */
export const CONCLUSION_TAGS = ['judge', 'final', 'conclusion', 'consensus'] as const;

/** Index of the task: the first user message. */
export function findTaskIndex(messages: readonly Message[]): number {
  return messages.findIndex((message) => message.role === 'user');
}

/** Index of the conclusion: the last message tagged as one, else the last assistant message. */
export function findConclusionIndex(messages: readonly Message[]): number {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index] as Message;
    if (message.tags?.some((tag) => (CONCLUSION_TAGS as readonly string[]).includes(tag))) return index;
    if (message.speaker === 'judge' && message.role === 'assistant') return index;
  }
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    if ((messages[index] as Message).role === 'assistant') return index;
  }
  return -1;
}

/** The first sentence (or line) of a text, at most `maxLength` characters. */
export function firstSentence(text: string, maxLength = 160): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const match = /^(.+?[.!?])(\s|$)/.exec(flat);
  const sentence = match?.[1] ?? flat;
  return sentence.length <= maxLength ? sentence : `${sentence.slice(0, maxLength - 1).trimEnd()}…`;
}

function summaryLine(message: Message, unit: string): string {
  const who = message.speaker ?? message.role;
  const round = message.round === null ? '' : ` (${unit} ${message.round})`;
  const text = message.toolCalls?.length
    ? `called ${message.toolCalls.map((call) => call.name).join(', ')}`
    : firstSentence(message.content);
  return `- ${who}${round}: ${text}`;
}

export const SUMMARY_TAG = 'compacted-history';

function summaryMessage(lines: readonly string[], omitted: number): Message {
  const header = `Summary of ${lines.length + omitted} earlier messages (compacted to fit the context; first sentence of each):`;
  const omittedLine = omitted > 0 ? [`- (${omitted} older messages left out)`] : [];
  return {
    role: 'system',
    content: [header, ...omittedLine, ...lines].join('\n'),
    speaker: null,
    round: null,
    tags: [SUMMARY_TAG],
  };
}

export interface ExtractiveCompactionOptions {
  /** Share of the budget left after task and conclusion that goes to latest turns (default 0.6). */
  latestShare?: number;
}

/** The default strategy: task + conclusion + latest turns verbatim, an extractive summary of the middle. */
export function createExtractiveCompaction(settings: ExtractiveCompactionOptions = {}): CompactionStrategy {
  const latestShare = settings.latestShare ?? 0.6;
  return {
    name: 'extractive',
    compact(messages, options) {
      const estimate = options.estimate ?? estimateMessageTokens;
      const total = messages.reduce((sum, message) => sum + estimate(message), 0);
      if (total <= options.budgetTokens) {
        return {
          messages: [...messages],
          compacted: false,
          keptCount: messages.length,
          summarizedCount: 0,
          omittedCount: 0,
          estimatedTokens: total,
          overBudget: false,
        };
      }
      const pinned = new Set<number>();
      const taskIndex = findTaskIndex(messages);
      const conclusionIndex = findConclusionIndex(messages);
      if (taskIndex >= 0) pinned.add(taskIndex);
      if (conclusionIndex >= 0) pinned.add(conclusionIndex);
      const pinnedTokens = [...pinned].reduce((sum, index) => sum + estimate(messages[index] as Message), 0);
      let remaining = options.budgetTokens - pinnedTokens;

      // Latest turns, newest first, while they fit their share; they stay contiguous.
      const latest = new Set<number>();
      let latestBudget = Math.floor(Math.max(0, remaining) * latestShare);
      for (let index = messages.length - 1; index >= 0; index -= 1) {
        if (pinned.has(index)) continue;
        const cost = estimate(messages[index] as Message);
        if (cost > latestBudget) break;
        latest.add(index);
        latestBudget -= cost;
        remaining -= cost;
      }

      // The middle: one summary line per message, dropping the oldest lines until it fits.
      const middle: number[] = [];
      for (let index = 0; index < messages.length; index += 1) {
        if (!pinned.has(index) && !latest.has(index)) middle.push(index);
      }
      const lines = middle.map((index) => summaryLine(messages[index] as Message, options.roundUnit ?? 'round'));
      // The fewest oldest lines to drop so the summary fits (binary search: fewer kept lines, fewer tokens).
      const fits = (drop: number) => estimate(summaryMessage(lines.slice(drop), drop)) <= remaining;
      let low = 0;
      let high = lines.length;
      while (low < high) {
        const middleDrop = Math.floor((low + high) / 2);
        if (fits(middleDrop)) high = middleDrop;
        else low = middleDrop + 1;
      }
      const omitted = low;
      const summary = omitted < lines.length ? summaryMessage(lines.slice(omitted), omitted) : null;

      // Original order; the summary takes the place of the first summarized message.
      const result: Message[] = [];
      let summaryPlaced = false;
      for (let index = 0; index < messages.length; index += 1) {
        if (pinned.has(index) || latest.has(index)) {
          result.push(messages[index] as Message);
        } else if (!summaryPlaced && summary !== null) {
          result.push(summary);
          summaryPlaced = true;
        }
      }
      const estimatedTokens = result.reduce((sum, message) => sum + estimate(message), 0);
      return {
        messages: result,
        compacted: true,
        keptCount: pinned.size + latest.size,
        summarizedCount: middle.length - omitted,
        omittedCount: omitted,
        estimatedTokens,
        overBudget: pinnedTokens > options.budgetTokens,
      };
    },
  };
}
