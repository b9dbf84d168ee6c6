// Mock chat models for other packages' tests: canned or computed answers, every call
// recorded, text streamed through onDelta like a real model.
import {
  type ChatModel,
  type ChatProvider,
  type GenerateRequest,
  type GenerateResult,
  MODEL_SPECIFICATION_VERSION,
  ProviderError,
  type ToolCall,
} from '../spec/index.js';

/** A canned answer: its text, or the parts of a result to return (the rest is filled in). */
export type MockResponse = string | (Partial<Omit<GenerateResult, 'message'>> & { text?: string }) | Error;

export interface MockModelOptions {
  modelId?: string;
  provider?: string;
  /** Answers returned in order; a call past the end throws. An Error entry is thrown. */
  responses?: MockResponse[];
  /** Computes the answer (takes precedence over `responses`). */
  respond?: (request: GenerateRequest, callIndex: number) => MockResponse | Promise<MockResponse>;
}

export interface MockModel extends ChatModel {
  /** Every request received, in order (including ones that threw). */
  readonly calls: GenerateRequest[];
}

const estimateTokens = (text: string) => Math.ceil(text.length / 4);

export function createMockModel(options: MockModelOptions = {}): MockModel {
  const modelId = options.modelId ?? 'mock-model';
  const provider = options.provider ?? 'mock';
  const calls: GenerateRequest[] = [];

  const toResult = (response: Exclude<MockResponse, Error>, request: GenerateRequest): GenerateResult => {
    const parts = typeof response === 'string' ? { text: response } : response;
    const text = parts.text ?? '';
    const toolCalls: ToolCall[] = parts.toolCalls ?? [];
    const inputText = (request.system ?? '') + request.messages.map((message) => message.content).join('\n');
    return {
      message: { role: 'assistant', content: text, ...(toolCalls.length > 0 ? { toolCalls } : {}) },
      toolCalls,
      usage: parts.usage ?? { inputTokens: estimateTokens(inputText), outputTokens: estimateTokens(text) },
      model: parts.model ?? modelId,
      finishReason: parts.finishReason ?? (toolCalls.length > 0 ? 'tool-calls' : 'stop'),
    };
  };

  return {
    specificationVersion: MODEL_SPECIFICATION_VERSION,
    provider,
    modelId,
    calls,
    async generate(request) {
      const callIndex = calls.length;
      calls.push(request);
      if (request.signal?.aborted) {
        throw new ProviderError({ reason: 'aborted', provider, model: modelId, message: 'The call was aborted.' });
      }
      let response: MockResponse | undefined;
      if (options.respond) response = await options.respond(request, callIndex);
      else response = options.responses?.[callIndex];
      if (response === undefined) {
        throw new Error(
          `Mock model ${modelId} received call ${callIndex + 1} but has only ${options.responses?.length ?? 0} responses.`,
        );
      }
      if (response instanceof Error) throw response;
      const result = toResult(response, request);
      if (result.message.content) request.onDelta?.(result.message.content);
      return result;
    },
  };
}

/** A provider serving the given mock models (unknown ids get a fresh mock that answers with its id). */
export function createMockProvider(models: Record<string, ChatModel> = {}, name = 'mock'): ChatProvider {
  return {
    specificationVersion: MODEL_SPECIFICATION_VERSION,
    name,
    chatModel(modelId) {
      const existing = models[modelId];
      if (existing) return existing;
      const model = createMockModel({ modelId, provider: name, respond: () => `(${modelId})` });
      models[modelId] = model;
      return model;
    },
    async listModels() {
      return Object.keys(models);
    },
  };
}
