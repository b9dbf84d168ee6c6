// Turns what the Anthropic SDK throws into ProviderError with a typed reason (including
// 529 `overloaded_error`, also when it arrives as an error event inside a stream). Messages
// are built here and scrubbed of the key.
import Anthropic from '@anthropic-ai/sdk';
import { ProviderError, type ProviderErrorReason, retryAfterMs, scrubSecrets } from '@resume/core/spec';
import { errorBodySchema } from './anthropic-api.js';

const PROVIDER = 'anthropic';

function reasonForStatus(status: number): ProviderErrorReason {
  if (status === 401 || status === 403) return 'authentication';
  if (status === 404) return 'model-not-found';
  if (status === 429) return 'rate-limit';
  if (status === 503 || status === 529) return 'overloaded';
  if (status === 400 || status === 413 || status === 422) return 'bad-request';
  return 'unavailable';
}

const reasonsByErrorType: Record<string, ProviderErrorReason> = {
  authentication_error: 'authentication',
  permission_error: 'authentication',
  not_found_error: 'model-not-found',
  rate_limit_error: 'rate-limit',
  overloaded_error: 'overloaded',
  invalid_request_error: 'bad-request',
  request_too_large: 'bad-request',
  api_error: 'unavailable',
};

const hints: Partial<Record<ProviderErrorReason, string>> = {
  authentication: 'Check ANTHROPIC_API_KEY, or use --provider scripted.',
  'model-not-found': 'Check the model id (--model or the agent config); `listModels()` shows what is available.',
  'rate-limit': 'Wait and resume the session; completed steps are not repeated.',
  overloaded: 'Anthropic is overloaded; resume the session in a moment.',
  network: 'Check ANTHROPIC_BASE_URL and your network, then resume the session.',
};

export interface ErrorContext {
  model: string;
  baseURL: string;
  secrets: Array<string | null | undefined>;
  signal?: AbortSignal | undefined;
}

export function toProviderError(error: unknown, context: ErrorContext): ProviderError {
  if (ProviderError.isInstance(error)) return error;
  const make = (
    reason: ProviderErrorReason,
    message: string,
    extra: { status?: number | null; retryAfterMs?: number | null; isRetryable?: boolean } = {},
  ) =>
    new ProviderError(
      {
        reason,
        provider: PROVIDER,
        model: context.model,
        status: extra.status ?? null,
        retryAfterMs: extra.retryAfterMs ?? null,
        ...(extra.isRetryable !== undefined ? { isRetryable: extra.isRetryable } : {}),
        message: scrubSecrets(message, context.secrets),
      },
      hints[reason] ? { hint: hints[reason] } : {},
    );

  if (context.signal?.aborted || error instanceof Anthropic.APIUserAbortError) {
    return make('aborted', `The call to ${context.model} was aborted.`);
  }
  if (error instanceof Anthropic.APIConnectionError) {
    const timeout = error instanceof Anthropic.APIConnectionTimeoutError;
    return make(
      'network',
      `Could not reach ${context.baseURL} for model ${context.model}${timeout ? ' (timed out)' : ''}.`,
    );
  }
  if (error instanceof Anthropic.APIError) {
    const body = errorBodySchema.safeParse(error.error);
    const detail = body.success ? (body.data.error.message ?? body.data.error.type) : error.message;
    const typed = body.success ? reasonsByErrorType[body.data.error.type] : undefined;
    if (error.status === undefined) {
      // An `error` event inside a stream that had started with 200.
      const reason = typed ?? 'unavailable';
      return make(reason, `Model ${context.model} failed while streaming: ${detail}`, {
        isRetryable: reason === 'overloaded' || reason === 'rate-limit' || reason === 'unavailable',
      });
    }
    const reason = reasonForStatus(error.status);
    const what =
      reason === 'model-not-found'
        ? `Model ${context.model} was not found at ${context.baseURL}`
        : `The request to ${context.model} failed with HTTP ${error.status}`;
    return make(reason, `${what}: ${detail}`, { status: error.status, retryAfterMs: retryAfterMs(error.headers) });
  }
  const message = error instanceof Error ? error.message : String(error);
  return make('network', `The connection to ${context.baseURL} failed during a call to ${context.model}: ${message}`);
}
