// The model interface (docs/architecture.md#models-and-providers). Providers implement it and import nothing else of ours.
import type { Message, ToolCall } from './events.js';

export const MODEL_SPECIFICATION_VERSION = 'v1';

export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

/**
 * A message as models see it. `speaker` names the agent that spoke; providers map other
 * agents' assistant turns to user-side content prefixed with the speaker's name.
 */
export type ChatMessage = Pick<Message, 'role' | 'content'> & {
  speaker?: string | null;
  toolCalls?: ToolCall[];
  toolCallId?: string;
};

/** Hints for offline and test models; real providers ignore them. */
export interface GenerateMetadata {
  /** The agent this call speaks for. */
  agent?: string;
  /** `agent` for a participant, `judge` for the discussion judge, `lead` for an orchestrator... */
  role?: string;
  round?: number;
  /** The judge must conclude now (`--force-consensus`). */
  forceConsensus?: boolean;
  /** Stable key for this call (`<sessionId>:<stepKey>:<occurrence>`), passable to external APIs. */
  idempotencyKey?: string;
}

export interface GenerateRequest {
  messages: ChatMessage[];
  system?: string;
  tools?: ToolDefinition[];
  maxTokens?: number;
  temperature?: number;
  signal?: AbortSignal;
  /** Called with each streamed text fragment as it arrives. */
  onDelta?: (text: string) => void;
  metadata?: GenerateMetadata;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

export type FinishReason = 'stop' | 'length' | 'tool-calls' | 'content-filter' | 'error' | 'other';

export interface GenerateResult {
  message: ChatMessage & { role: 'assistant' };
  toolCalls: ToolCall[];
  usage: Usage;
  /** The model id the provider reports having used. */
  model: string;
  finishReason: FinishReason;
}

export interface ChatModel {
  readonly specificationVersion: typeof MODEL_SPECIFICATION_VERSION;
  /** `scripted`, `openai`, `anthropic`... */
  readonly provider: string;
  readonly modelId: string;
  /**
   * What the model's calls cost in USD per million tokens, when the provider sets it (the
   * scripted provider's configured price); without it the caller's price table decides.
   */
  readonly price?: { input: number; output: number };
  /** Throws ProviderError (typed reason, isRetryable, retryAfterMs). */
  generate(request: GenerateRequest): Promise<GenerateResult>;
}

export interface ChatProvider {
  readonly specificationVersion: typeof MODEL_SPECIFICATION_VERSION;
  readonly name: string;
  chatModel(modelId: string): ChatModel;
  /** Model ids available now (for the availability check before a resume). */
  listModels(options?: { signal?: AbortSignal }): Promise<string[]>;
}
