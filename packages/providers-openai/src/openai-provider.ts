// Chat models over the official `openai` SDK: Chat Completions with streaming, tool calls,
// usage and abort. Works with any OpenAI-compatible server by base URL (Ollama, vLLM,
// LM Studio, llama.cpp server, OpenRouter).
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
import OpenAI from 'openai';
import { chatCompletionChunkSchema, modelListSchema } from './openai-api.js';
import { openAIErrors, toProviderError } from './openai-errors.js';
import { toOpenAIMessages, toOpenAITools } from './openai-messages.js';

export const OPENAI_PROVIDER_NAME = 'openai';
const OFFICIAL_BASE_URL = 'https://api.openai.com/v1';

export interface OpenAIProviderOptions {
  /** Default `OPENAI_API_KEY`. Optional for a custom base URL (local servers rarely need one). */
  apiKey?: string;
  /** Default `OPENAI_BASE_URL`, else the OpenAI API. */
  baseURL?: string;
  /** Default `OPENAI_ORG_ID`. */
  organization?: string;
  /** Default `OPENAI_PROJECT_ID`. */
  project?: string;
  /** The model `chatModel()` uses when given an empty id. */
  defaultModel?: string;
  /** SDK retries for 408/409/429/5xx and connection errors (default 2). */
  maxRetries?: number;
  /** Per-request timeout in milliseconds (SDK default: 10 minutes). */
  timeout?: number;
  /** Custom fetch (proxies, tests). */
  fetch?: typeof globalThis.fetch;
  /**
   * Which request field carries maxTokens: OpenAI's own API wants `max_completion_tokens`
   * (required by reasoning models); many compatible servers only know `max_tokens`.
   * Default: `max_completion_tokens` for the OpenAI API, `max_tokens` for a custom base URL.
   */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  /** Where the OPENAI_* defaults are read from (default process.env). */
  env?: Record<string, string | undefined>;
}

const finishReasons: Record<string, FinishReason> = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool-calls',
  function_call: 'tool-calls',
  content_filter: 'content-filter',
};

export function createOpenAIProvider(options: OpenAIProviderOptions = {}): ChatProvider {
  const env = options.env ?? process.env;
  const customBaseURL = options.baseURL ?? (env.OPENAI_BASE_URL || undefined);
  const baseURL = (customBaseURL ?? OFFICIAL_BASE_URL).replace(/\/+$/, '');
  const apiKey = options.apiKey ?? (env.OPENAI_API_KEY || undefined);
  const maxTokensField = options.maxTokensField ?? (customBaseURL ? 'max_tokens' : 'max_completion_tokens');
  const secrets = [apiKey];

  let client: OpenAI | undefined;
  const getClient = (model: string): OpenAI => {
    if (client) return client;
    if (!apiKey && !customBaseURL) {
      throw new ProviderError(
        {
          reason: 'authentication',
          provider: OPENAI_PROVIDER_NAME,
          model,
          message: 'No OpenAI API key is configured.',
        },
        { hint: 'Set OPENAI_API_KEY, point OPENAI_BASE_URL at a compatible server, or use --provider scripted.' },
      );
    }
    client = new OpenAI({
      // Local servers accept any key; the SDK insists on one.
      apiKey: apiKey ?? 'no-key',
      baseURL,
      organization: options.organization ?? env.OPENAI_ORG_ID ?? null,
      project: options.project ?? env.OPENAI_PROJECT_ID ?? null,
      maxRetries: options.maxRetries ?? 2,
      ...(options.timeout !== undefined ? { timeout: options.timeout } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
      // Libraries do not write to the console; failures surface as ProviderError.
      logLevel: 'off',
    });
    return client;
  };

  const chatModel = (requestedId: string): ChatModel => {
    const modelId = requestedId || options.defaultModel || 'gpt-4o';
    const errorContext = (signal?: AbortSignal) => ({ model: modelId, baseURL, secrets, signal });

    return {
      specificationVersion: MODEL_SPECIFICATION_VERSION,
      provider: OPENAI_PROVIDER_NAME,
      modelId,
      async generate(request: GenerateRequest): Promise<GenerateResult> {
        const openai = getClient(modelId);
        const tools = toOpenAITools(request.tools);
        let text = '';
        const drafts = createToolCallDrafts({
          provider: OPENAI_PROVIDER_NAME,
          model: modelId,
          described: 'arguments that are',
        });
        let finish: string | null = null;
        let usage: { prompt_tokens: number; completion_tokens: number } | null = null;
        let reportedModel: string | null = null;
        let refused = false;
        try {
          const stream = await openai.chat.completions.create(
            {
              model: modelId,
              messages: toOpenAIMessages(request),
              stream: true,
              stream_options: { include_usage: true },
              ...(tools ? { tools } : {}),
              ...(request.maxTokens !== undefined ? { [maxTokensField]: request.maxTokens } : {}),
              ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
            },
            { ...(request.signal ? { signal: request.signal } : {}) },
          );
          for await (const raw of stream) {
            const parsed = chatCompletionChunkSchema.safeParse(raw);
            if (!parsed.success) {
              throw new ProviderError({
                reason: 'unavailable',
                provider: OPENAI_PROVIDER_NAME,
                model: modelId,
                message: `${baseURL} sent a stream chunk that is not a chat completion chunk (${parsed.error.issues[0]?.message ?? 'invalid'}).`,
              });
            }
            const chunk = parsed.data;
            reportedModel = chunk.model ?? reportedModel;
            if (chunk.usage) usage = chunk.usage;
            for (const choice of chunk.choices) {
              if (choice.index !== 0) continue;
              const delta = choice.delta;
              if (delta?.content) {
                text += delta.content;
                request.onDelta?.(delta.content);
              }
              // A refusal arrives in its own field; it is the answer the user should see.
              if (delta?.refusal) {
                refused = true;
                text += delta.refusal;
                request.onDelta?.(delta.refusal);
              }
              for (const call of delta?.tool_calls ?? [])
                drafts.add(call.index, { id: call.id, name: call.function?.name, arguments: call.function?.arguments });
              if (choice.finish_reason) finish = choice.finish_reason;
            }
          }
        } catch (error) {
          throw toProviderError(error, errorContext(request.signal));
        }

        // The SDK ends the stream quietly when its signal aborts.
        if (request.signal?.aborted) throw toProviderError(request.signal.reason, errorContext(request.signal));
        if (finish === null) {
          // The stream ended without saying why: the connection was cut before the answer was complete.
          throw openAIErrors(errorContext(request.signal)).streamEndedEarly();
        }

        const toolCalls = drafts.toolCalls();

        const inputEstimate = JSON.stringify(request.messages).length + (request.system?.length ?? 0);
        return {
          message: {
            role: 'assistant',
            content: text,
            speaker: request.metadata?.agent ?? null,
            ...(toolCalls.length > 0 ? { toolCalls } : {}),
          },
          toolCalls,
          // Servers that ignore include_usage get the 4-characters-per-token estimate.
          usage: usage
            ? { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens }
            : { inputTokens: Math.ceil(inputEstimate / 4), outputTokens: Math.ceil(text.length / 4) },
          model: reportedModel ?? modelId,
          finishReason: refused ? 'content-filter' : (finishReasons[finish] ?? 'other'),
        };
      },
    };
  };

  return {
    specificationVersion: MODEL_SPECIFICATION_VERSION,
    name: OPENAI_PROVIDER_NAME,
    chatModel,
    async listModels(listOptions = {}) {
      const openai = getClient(options.defaultModel ?? '');
      try {
        const ids: string[] = [];
        for await (const model of openai.models.list({
          ...(listOptions.signal ? { signal: listOptions.signal } : {}),
        })) {
          const parsed = modelListSchema.element.safeParse(model);
          if (parsed.success) ids.push(parsed.data.id);
        }
        return ids;
      } catch (error) {
        throw toProviderError(error, { model: '(model list)', baseURL, secrets, signal: listOptions.signal });
      }
    },
  };
}
