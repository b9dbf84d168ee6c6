// What the adapters over the OpenAI and Anthropic SDKs share: which of the SDK's errors is
// which failure (both SDKs throw the same family of error classes), and assembling the tool
// calls a stream sends in pieces. Each adapter keeps what its API says differently: the
// detail of an error body, and which stream event carries which piece.

import { ProviderError } from './errors/provider-error.js';
import { type ProviderErrorFactory, parseToolCallArguments } from './errors/provider-error-factory.js';
import type { ToolCall } from './events.js';

type ErrorClass<Instance = Error> = abstract new (...args: never[]) => Instance;

/** An HTTP error (or an error event in a stream, without a status) as the SDKs report it. */
export interface SdkApiError extends Error {
  readonly status: number | undefined;
  /** The parsed error body. */
  readonly error: unknown;
  readonly headers: { get(name: string): string | null } | undefined;
}

/** The error classes an SDK exports (`OpenAI.APIError`, `Anthropic.APIError`...). */
export interface SdkErrorClasses {
  APIUserAbortError: ErrorClass;
  APIConnectionError: ErrorClass;
  APIConnectionTimeoutError: ErrorClass;
  APIError: ErrorClass<SdkApiError>;
}

/**
 * Turns what an SDK throws during a call into ProviderError: an abort (the caller's signal,
 * or the SDK's), no connection, an API error (`apiFailure` reads its body), and anything else
 * as the transport failing during the request (a stream cut mid-way, a reset).
 */
export function providerErrorFromSdk(
  error: unknown,
  input: {
    errors: ProviderErrorFactory;
    signal: AbortSignal | undefined;
    sdk: SdkErrorClasses;
    apiFailure(error: SdkApiError): ProviderError;
  },
): ProviderError {
  if (ProviderError.isInstance(error)) return error;
  const { errors, sdk } = input;
  if (input.signal?.aborted || error instanceof sdk.APIUserAbortError) return errors.aborted();
  if (error instanceof sdk.APIConnectionError)
    return errors.unreachable({ timedOut: error instanceof sdk.APIConnectionTimeoutError });
  if (error instanceof sdk.APIError) return input.apiFailure(error);
  return errors.connectionFailure(error);
}

/** One streamed piece of a tool call: its id and name arrive first, its arguments as JSON text in parts. */
export interface ToolCallPiece {
  id?: string | null | undefined;
  name?: string | null | undefined;
  arguments?: string | null | undefined;
}

export interface ToolCallDrafts {
  /** Adds a piece to the call at `index` (the stream's position of the call). */
  add(index: number, piece: ToolCallPiece): void;
  /** Whether a call was started at `index`. */
  has(index: number): boolean;
  /** The finished calls in stream order, their arguments parsed (a retryable ProviderError when not a JSON object). */
  toolCalls(): ToolCall[];
}

/** Tool calls assembled from a stream's pieces; `described` names the arguments in errors (`arguments that are`). */
export function createToolCallDrafts(call: { provider: string; model: string; described: string }): ToolCallDrafts {
  const drafts = new Map<number, { id: string; name: string; arguments: string }>();
  return {
    add(index, piece) {
      const draft = drafts.get(index) ?? { id: '', name: '', arguments: '' };
      if (piece.id) draft.id = piece.id;
      if (piece.name) draft.name += piece.name;
      if (piece.arguments) draft.arguments += piece.arguments;
      drafts.set(index, draft);
    },
    has: (index) => drafts.has(index),
    toolCalls: () =>
      [...drafts.entries()]
        .sort(([left], [right]) => left - right)
        .map(([index, draft]) => ({
          id: draft.id || `call_${index}`,
          name: draft.name,
          args: parseToolCallArguments(draft.arguments, { ...call, toolName: draft.name }),
        })),
  };
}
