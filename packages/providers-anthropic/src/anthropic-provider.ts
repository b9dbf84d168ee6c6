// Chat models over the official `@anthropic-ai/sdk`: the Messages API with streaming,
// tool use (input_json_delta assembled), usage, abort and typed errors.
import Anthropic from '@anthropic-ai/sdk';
import {
  type ChatModel,
  type ChatProvider,
  createToolCallDrafts,
  type FinishReason,
  type GenerateRequest,
  type GenerateResult,
  MODEL_SPECIFICATION_VERSION,
  ProviderError,
} from '@resume/core/spec';
import { modelInfoSchema, streamEventSchema } from './anthropic-api.js';
import { anthropicErrors, toProviderError } from './anthropic-errors.js';
import { toAnthropicMessages, toAnthropicTools } from './anthropic-messages.js';

export const ANTHROPIC_PROVIDER_NAME = 'anthropic';
const OFFICIAL_BASE_URL = 'https://api.anthropic.com';

export interface AnthropicProviderOptions {
  /** Default `ANTHROPIC_API_KEY`. */
  apiKey?: string;
  /** Default `ANTHROPIC_BASE_URL`, else the Anthropic API. */
  baseURL?: string;
  /** The model `chatModel()` uses when given an empty id. */
  defaultModel?: string;
  /** `max_tokens` when a request gives none (the API requires it; default 4096). */
  defaultMaxTokens?: number;
  /** SDK retries for 408/409/429/5xx/529 and connection errors (default 2). */
  maxRetries?: number;
  /** Per-request timeout in milliseconds. */
  timeout?: number;
  fetch?: typeof globalThis.fetch;
  /** Where the ANTHROPIC_* defaults are read from (default process.env). */
  env?: Record<string, string | undefined>;
}

const finishReasons: Record<string, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  tool_use: 'tool-calls',
  refusal: 'content-filter',
};

export function createAnthropicProvider(options: AnthropicProviderOptions = {}): ChatProvider {
  const env = options.env ?? process.env;
  const baseURL = (options.baseURL ?? (env.ANTHROPIC_BASE_URL || OFFICIAL_BASE_URL)).replace(/\/+$/, '');
  const apiKey = options.apiKey ?? (env.ANTHROPIC_API_KEY || undefined);
  const secrets = [apiKey];

  let client: Anthropic | undefined;
  const getClient = (model: string): Anthropic => {
    if (client) return client;
    if (!apiKey) {
      throw new ProviderError(
        {
          reason: 'authentication',
          provider: ANTHROPIC_PROVIDER_NAME,
          model,
          message: 'No Anthropic API key is configured.',
        },
        { hint: 'Set ANTHROPIC_API_KEY, or use --provider scripted.' },
      );
    }
    client = new Anthropic({
      apiKey,
      baseURL,
      maxRetries: options.maxRetries ?? 2,
      ...(options.timeout !== undefined ? { timeout: options.timeout } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
      logLevel: 'off',
    });
    return client;
  };

  const chatModel = (requestedId: string): ChatModel => {
    const modelId = requestedId || options.defaultModel || 'claude-sonnet-4-6';
    return {
      specificationVersion: MODEL_SPECIFICATION_VERSION,
      provider: ANTHROPIC_PROVIDER_NAME,
      modelId,
      async generate(request: GenerateRequest): Promise<GenerateResult> {
        const anthropic = getClient(modelId);
        const context = { model: modelId, baseURL, secrets, signal: request.signal };
        const { system, messages } = toAnthropicMessages(request);
        const tools = toAnthropicTools(request.tools);
        // Text blocks by index; tool_use blocks are assembled as tool calls.
        const texts = new Map<number, string>();
        const toolUses = createToolCallDrafts({
          provider: ANTHROPIC_PROVIDER_NAME,
          model: modelId,
          described: 'input that is',
        });
        let inputTokens = 0;
        let outputTokens = 0;
        let stopReason: string | null = null;
        let reportedModel: string | null = null;
        let stopped = false;
        try {
          const stream = await anthropic.messages.create(
            {
              model: modelId,
              max_tokens: request.maxTokens ?? options.defaultMaxTokens ?? 4096,
              messages,
              stream: true,
              ...(system !== undefined ? { system } : {}),
              ...(tools ? { tools } : {}),
              ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
            },
            { ...(request.signal ? { signal: request.signal } : {}) },
          );
          for await (const raw of stream) {
            const parsed = streamEventSchema.safeParse(raw);
            if (!parsed.success) {
              throw new ProviderError({
                reason: 'unavailable',
                provider: ANTHROPIC_PROVIDER_NAME,
                model: modelId,
                message: `${baseURL} sent a stream event that does not match the Messages API (${parsed.error.issues[0]?.message ?? 'invalid'}).`,
              });
            }
            const event = parsed.data;
            if ('message' in event && event.type === 'message_start') {
              reportedModel = event.message.model ?? null;
              const usage = event.message.usage;
              inputTokens =
                (usage?.input_tokens ?? 0) +
                (usage?.cache_creation_input_tokens ?? 0) +
                (usage?.cache_read_input_tokens ?? 0);
              outputTokens = usage?.output_tokens ?? 0;
            } else if ('content_block' in event) {
              const block = event.content_block;
              if (block.type === 'text')
                texts.set(event.index, 'text' in block && typeof block.text === 'string' ? block.text : '');
              else if (block.type === 'tool_use')
                toolUses.add(event.index, {
                  id: 'id' in block && typeof block.id === 'string' ? block.id : '',
                  name: 'name' in block && typeof block.name === 'string' ? block.name : '',
                });
            } else if ('delta' in event && event.type === 'content_block_delta') {
              const delta = event.delta;
              const text = texts.get(event.index);
              if (text !== undefined && 'text' in delta && typeof delta.text === 'string') {
                texts.set(event.index, text + delta.text);
                request.onDelta?.(delta.text);
              } else if (
                toolUses.has(event.index) &&
                'partial_json' in delta &&
                typeof delta.partial_json === 'string'
              ) {
                toolUses.add(event.index, { arguments: delta.partial_json });
              }
            } else if ('delta' in event && event.type === 'message_delta') {
              stopReason = event.delta.stop_reason ?? stopReason;
              // message_delta carries the cumulative output count.
              if (event.usage?.output_tokens !== undefined && event.usage.output_tokens !== null) {
                outputTokens = event.usage.output_tokens;
              }
            } else if (event.type === 'message_stop') {
              stopped = true;
            }
          }
        } catch (error) {
          throw toProviderError(error, context);
        }
        if (request.signal?.aborted) throw toProviderError(request.signal.reason, context);
        if (!stopped && stopReason === null) {
          throw anthropicErrors(context).streamEndedEarly();
        }

        const text = [...texts.entries()]
          .sort(([left], [right]) => left - right)
          .map(([, blockText]) => blockText)
          .join('');
        const toolCalls = toolUses.toolCalls();

        return {
          message: {
            role: 'assistant',
            content: text,
            speaker: request.metadata?.agent ?? null,
            ...(toolCalls.length > 0 ? { toolCalls } : {}),
          },
          toolCalls,
          usage: { inputTokens, outputTokens },
          model: reportedModel ?? modelId,
          finishReason: stopReason === null ? 'other' : (finishReasons[stopReason] ?? 'other'),
        };
      },
    };
  };

  return {
    specificationVersion: MODEL_SPECIFICATION_VERSION,
    name: ANTHROPIC_PROVIDER_NAME,
    chatModel,
    async listModels(listOptions = {}) {
      const anthropic = getClient(options.defaultModel ?? '');
      try {
        const ids: string[] = [];
        for await (const model of anthropic.models.list(
          {},
          { ...(listOptions.signal ? { signal: listOptions.signal } : {}) },
        )) {
          const parsed = modelInfoSchema.safeParse(model);
          if (parsed.success) ids.push(parsed.data.id);
        }
        return ids;
      } catch (error) {
        throw toProviderError(error, { model: '(model list)', baseURL, secrets, signal: listOptions.signal });
      }
    },
  };
}
