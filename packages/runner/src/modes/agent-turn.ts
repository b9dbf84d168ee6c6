// One model call as a durable step: the call runs once, its answer is journaled, and a
// replay returns the recorded answer without calling the model. Shared by every mode.

import type { MessageRecord } from '@resume/core';
import { lazySchema } from '@resume/core/lazy-schema';
import {
  type ChatMessage,
  ConclaveError,
  type GenerateMetadata,
  type JsonValue,
  ProviderError,
  type ToolDefinition,
  toolCallSchema,
} from '@resume/core/spec';
import { z } from 'zod';
import { builtinProviders } from '../providers/builtin-providers.js';
import { costOf } from '../usage/cost.js';
import { averageOutputTokens, estimateCallCost, lastInputTokens } from '../usage/cost-guard.js';
import type { AgentSpec } from './agent-spec.js';
import type { ModeContext } from './mode-context.js';
import { StepTimedOutError } from './step-timed-out-error.js';

export const turnOutputSchema = lazySchema(() =>
  z.object({
    content: z.string(),
    toolCalls: z.array(toolCallSchema),
    model: z.string(),
    provider: z.string(),
    finishReason: z.string(),
    inputTokens: z.number().int().nonnegative(),
    outputTokens: z.number().int().nonnegative(),
  }),
);
export type TurnOutput = z.infer<typeof turnOutputSchema>;

const turnCodec = {
  encode: (value: TurnOutput): JsonValue => value as unknown as JsonValue,
  // The journal is a boundary: a recorded answer is validated before a mode trusts it.
  decode: (value: JsonValue): TurnOutput => turnOutputSchema.parse(value),
};

export interface AgentTurnInput {
  key: string;
  /** The key is a stable id that may be new before recorded steps (see the engine's `inserted`). */
  inserted?: boolean;
  /** The concurrent branch the call runs in (a parallel group's member, a map item), journaled with it. */
  branch?: string;
  agent: AgentSpec;
  messages: ChatMessage[];
  system?: string;
  tools?: ToolDefinition[];
  round?: number | null;
  metadata?: GenerateMetadata;
  /** A checkpoint marked with the turn's completion (see the engine's `checkpointOnCompletion`). */
  checkpointOnCompletion?: (attempt: number) => string;
  /** How long one call may take: a slower one fails (a StepTimedOutError, retried like a provider's hiccup). */
  timeoutMs?: number;
}

const retryableProviderError = (error: unknown): boolean =>
  (ProviderError.isInstance(error) && error.isRetryable) || StepTimedOutError.isInstance(error);

/** Runs (or replays) one model call; usage is journaled with the call it belongs to. */
export async function runAgentTurn(context: ModeContext, input: AgentTurnInput): Promise<TurnOutput> {
  const { session } = context;
  const recorded = session.state.steps.findLast((step) => step.key === input.key);
  const replayed = recorded !== undefined && (recorded.status === 'completed' || recorded.status === 'skipped');
  // A replayed turn returns its recorded answer at once: nobody is speaking.
  if (!replayed)
    context.emit({ type: 'turn-started', agent: input.agent.name, round: input.round ?? null, stepKey: input.key });
  let release: () => void = () => undefined;
  let resolved: ReturnType<ModeContext['models']> | null = null;
  if (context.costGuard && !replayed) {
    // Only a call that will really be made is checked: a replayed answer costs nothing.
    resolved = context.models(input.agent);
    release = context.costGuard.admit({
      stepKey: input.key,
      model: resolved.modelId,
      estimateUsd: estimateCallCost({
        model: resolved.modelId,
        free: (context.providers ?? builtinProviders).isFree(resolved.provider),
        price: resolved.price,
        ...(input.system !== undefined ? { system: input.system } : {}),
        messages: input.messages,
        outputTokens: averageOutputTokens(session.state),
        inputTokensAtLeast: lastInputTokens(session.state, input.agent.name),
      }),
    });
  }
  try {
    return await callModel(context, input, resolved);
  } finally {
    release();
  }
}

function callModel(
  context: ModeContext,
  input: AgentTurnInput,
  resolved: ReturnType<ModeContext['models']> | null,
): Promise<TurnOutput> {
  const { session } = context;
  return session.step(
    input.key,
    async (step) => {
      const model = resolved ?? context.models(input.agent);
      const timeout = input.timeoutMs === undefined ? null : AbortSignal.timeout(input.timeoutMs);
      const result = await model
        .generate({
          messages: input.messages,
          ...(input.system !== undefined ? { system: input.system } : {}),
          ...(input.tools && input.tools.length > 0 ? { tools: input.tools } : {}),
          signal: timeout ? AbortSignal.any([step.signal, timeout]) : step.signal,
          onDelta: (text) => context.emit({ type: 'delta', agent: input.agent.name, text }),
          metadata: { agent: input.agent.name, ...input.metadata, idempotencyKey: step.idempotencyKey },
        })
        .catch((error: unknown) => {
          // Our own deadline, not an interrupt: a failed attempt like any other.
          if (timeout?.aborted && !step.signal.aborted && input.timeoutMs !== undefined)
            throw new StepTimedOutError({ what: `${input.agent.name}'s model call`, timeoutMs: input.timeoutMs });
          throw error;
        });
      const promptBlob = context.keepPrompt
        ? await context.keepPrompt({
            ...(input.system !== undefined ? { system: input.system } : {}),
            messages: input.messages,
          })
        : undefined;
      session.record({
        type: 'usage-recorded',
        provider: model.provider,
        model: result.model,
        agent: input.agent.name,
        round: input.round ?? null,
        stepKey: input.key,
        inputTokens: result.usage.inputTokens,
        outputTokens: result.usage.outputTokens,
        costUsd: costOf(result.model, result.usage, {
          free: (context.providers ?? builtinProviders).isFree(model.provider),
          price: model.price,
        }),
        ...(promptBlob !== undefined ? { promptBlob } : {}),
      });
      return {
        content: result.message.content,
        toolCalls: result.toolCalls,
        model: result.model,
        provider: model.provider,
        finishReason: result.finishReason,
        inputTokens: result.usage.inputTokens,
        outputTokens: result.usage.outputTokens,
      };
    },
    {
      safety: 'idempotent',
      retry: { attempts: 3, retryOn: retryableProviderError },
      codec: turnCodec,
      ...(input.inserted ? { inserted: true } : {}),
      ...(input.branch !== undefined ? { branch: input.branch } : {}),
      ...(input.checkpointOnCompletion ? { checkpointOnCompletion: input.checkpointOnCompletion } : {}),
      ...(context.sleep ? { sleep: context.sleep } : {}),
    },
  );
}

/** A journaled message as a model sees it. */
export function toChatMessage(message: MessageRecord): ChatMessage {
  return {
    role: message.role,
    content: message.content,
    speaker: message.speaker,
    ...(message.toolCalls ? { toolCalls: message.toolCalls } : {}),
    ...(message.toolCallId ? { toolCallId: message.toolCallId } : {}),
  };
}

/**
 * The shared transcript as model input: system messages of the journal (continuation
 * context, resume messages) go into the system prompt, the rest are turns.
 */
export function transcriptInput(
  messages: MessageRecord[],
  systemPrompt: string,
): { system: string; messages: ChatMessage[] } {
  const context = messages.filter((message) => message.role === 'system').map((message) => message.content);
  return {
    system: [systemPrompt, ...context].join('\n\n'),
    messages: messages.filter((message) => message.role !== 'system').map(toChatMessage),
  };
}

export function isConclaveError(error: unknown): error is ConclaveError {
  return ConclaveError.isInstance(error);
}
