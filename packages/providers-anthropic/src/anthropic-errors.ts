// Turns what the Anthropic SDK throws into ProviderError with a typed reason (including
// 529 `overloaded_error`, also when it arrives as an error event inside a stream). Which SDK
// error is which failure is decided here; the wording, hints and scrubbing of the key come
// from the shared factory.
import Anthropic from '@anthropic-ai/sdk';
import {
  createProviderErrorFactory,
  type ProviderCallContext,
  ProviderError,
  type ProviderErrorReason,
} from '@resume/core/spec';
import { errorBodySchema } from './anthropic-api.js';

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

/** The factory for this provider's errors about `context.model`. */
export function anthropicErrors(context: ProviderCallContext) {
  return createProviderErrorFactory({ provider: 'anthropic', ...context, hints });
}

export function toProviderError(error: unknown, context: ProviderCallContext): ProviderError {
  if (ProviderError.isInstance(error)) return error;
  const errors = anthropicErrors(context);
  if (context.signal?.aborted || error instanceof Anthropic.APIUserAbortError) return errors.aborted();
  if (error instanceof Anthropic.APIConnectionError) {
    return errors.unreachable({ timedOut: error instanceof Anthropic.APIConnectionTimeoutError });
  }
  if (error instanceof Anthropic.APIError) {
    const body = errorBodySchema.safeParse(error.error);
    const detail = body.success ? (body.data.error.message ?? body.data.error.type) : error.message;
    const typed = body.success ? reasonsByErrorType[body.data.error.type] : undefined;
    if (error.status === undefined) {
      // An `error` event inside a stream that had started with 200.
      const reason = typed ?? 'unavailable';
      const isRetryable = reason === 'overloaded' || reason === 'rate-limit' || reason === 'unavailable';
      return errors.streamFailure(detail, reason, isRetryable);
    }
    return errors.httpFailure(error.status, detail, error.headers);
  }
  return errors.connectionFailure(error);
}
