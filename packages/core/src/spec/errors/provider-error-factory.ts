// The SDK-independent half of turning a provider's failures into ProviderError: the reason
// an HTTP status stands for, the wording of each kind of failure, the provider's hints, and
// scrubbing the key out of every message. Each adapter keeps the other half (which of its
// SDK's errors is which failure) in its own package.
import { type JsonValue, jsonValueSchema } from '../events.js';
import { retryAfterMs } from '../retry-after.js';
import { scrubSecrets } from '../secret-shapes.js';
import { ProviderError, type ProviderErrorReason } from './provider-error.js';

/** The reason an HTTP error status stands for, the same for every provider's API. */
export function providerErrorReasonForStatus(status: number): ProviderErrorReason {
  if (status === 401 || status === 403) return 'authentication';
  if (status === 404) return 'model-not-found';
  if (status === 429) return 'rate-limit';
  if (status === 503 || status === 529) return 'overloaded';
  if (status === 400 || status === 413 || status === 422) return 'bad-request';
  return 'unavailable';
}

/** The call a failure happened in, as an adapter knows it. */
export interface ProviderCallContext {
  model: string;
  /** Where the calls go; network and not-found messages name it. */
  baseURL: string;
  /** Values scrubbed from every message (the API key), besides the known secret shapes. */
  secrets: Iterable<string | null | undefined>;
  /** The caller's signal: once it has aborted, any failure is reported as an abort. */
  signal?: AbortSignal | undefined;
}

export interface ProviderErrorFactoryOptions extends ProviderCallContext {
  provider: string;
  /** What to do next, by reason; a failure may bring its own instead. */
  hints: Partial<Record<ProviderErrorReason, string>>;
}

export interface ProviderErrorDetails {
  status?: number | null;
  retryAfterMs?: number | null;
  /** Default: what ProviderError derives from the reason and status. */
  isRetryable?: boolean;
  /** Default: the provider's hint for the reason. */
  hint?: string;
}

export interface ProviderErrorFactory {
  /** Any failure: the message is scrubbed of secrets and the reason's hint attached. */
  create(reason: ProviderErrorReason, message: string, details?: ProviderErrorDetails): ProviderError;
  /** The caller's signal aborted the call. */
  aborted(): ProviderError;
  /** No connection could be made (or it timed out before an answer). */
  unreachable(options: { timedOut: boolean }): ProviderError;
  /** The server answered with an HTTP error status; `detail` is what its error body says. */
  httpFailure(
    status: number,
    detail: string,
    headers: { get(name: string): string | null } | null | undefined,
  ): ProviderError;
  /** An error event inside a stream that had started with 200. */
  streamFailure(detail: string, reason?: ProviderErrorReason, isRetryable?: boolean): ProviderError;
  /** The transport failed during a request (a stream cut mid-way, a reset). */
  connectionFailure(error: unknown): ProviderError;
  /** The stream ended without saying why: the answer is incomplete. */
  streamEndedEarly(): ProviderError;
}

export function createProviderErrorFactory(options: ProviderErrorFactoryOptions): ProviderErrorFactory {
  const { provider, model, baseURL } = options;
  const create = (reason: ProviderErrorReason, message: string, details: ProviderErrorDetails = {}) => {
    const hint = details.hint ?? options.hints[reason];
    return new ProviderError(
      {
        reason,
        provider,
        model,
        status: details.status ?? null,
        retryAfterMs: details.retryAfterMs ?? null,
        ...(details.isRetryable !== undefined ? { isRetryable: details.isRetryable } : {}),
        message: scrubSecrets(message, options.secrets),
      },
      hint ? { hint } : {},
    );
  };
  return {
    create,
    aborted: () => create('aborted', `The call to ${model} was aborted.`),
    unreachable: ({ timedOut }) =>
      create('network', `Could not reach ${baseURL} for model ${model}${timedOut ? ' (timed out)' : ''}.`),
    httpFailure(status, detail, headers) {
      const reason = providerErrorReasonForStatus(status);
      const what =
        reason === 'model-not-found'
          ? `Model ${model} was not found at ${baseURL}`
          : `The request to ${model} failed with HTTP ${status}`;
      return create(reason, `${what}: ${detail}`, { status, retryAfterMs: retryAfterMs(headers) });
    },
    streamFailure: (detail, reason = 'unavailable', isRetryable) =>
      create(reason, `Model ${model} failed while streaming: ${detail}`, {
        ...(isRetryable !== undefined ? { isRetryable } : {}),
      }),
    connectionFailure(error) {
      const message = error instanceof Error ? error.message : String(error);
      return create('network', `The connection to ${baseURL} failed during a call to ${model}: ${message}`);
    },
    streamEndedEarly: () =>
      create('network', `The stream from ${baseURL} for model ${model} ended before the answer was complete.`, {
        hint: 'Resume the session; the call is made again.',
      }),
  };
}

/**
 * The arguments of a tool call, streamed as JSON text: an object, `{}` for none. Anything
 * else is a retryable ProviderError (the model may call the tool properly next time);
 * `described` names the text in its message (`arguments that are`, `input that is`).
 */
export function parseToolCallArguments(
  text: string,
  call: { provider: string; model: string; toolName: string; described: string },
): { [key: string]: JsonValue } {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  const parsed = jsonValueSchema.safeParse(value);
  if (parsed.success && typeof parsed.data === 'object' && parsed.data !== null && !Array.isArray(parsed.data)) {
    return parsed.data;
  }
  throw new ProviderError({
    reason: 'unavailable',
    provider: call.provider,
    model: call.model,
    isRetryable: true,
    message: `Model ${call.model} called tool ${call.toolName || '(unnamed)'} with ${call.described} not a JSON object.`,
  });
}
