// Turns what the Anthropic SDK throws into ProviderError with a typed reason (including
// 529 `overloaded_error`, also when it arrives as an error event inside a stream). Which SDK
// What an error body says is read here; which SDK error is which failure, the wording, hints
// and scrubbing of the key are shared (`providerErrorFromSdk`, the error factory).
import Anthropic from '@anthropic-ai/sdk';
import {
  createProviderErrorFactory,
  type ProviderCallContext,
  type ProviderError,
  type ProviderErrorReason,
  providerErrorFromSdk,
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
  const errors = anthropicErrors(context);
  return providerErrorFromSdk(error, {
    errors,
    signal: context.signal,
    sdk: Anthropic,
    apiFailure(failure) {
      const body = errorBodySchema.safeParse(failure.error);
      const detail = body.success ? (body.data.error.message ?? body.data.error.type) : failure.message;
      const typed = body.success ? reasonsByErrorType[body.data.error.type] : undefined;
      if (failure.status === undefined) {
        // An `error` event inside a stream that had started with 200.
        const reason = typed ?? 'unavailable';
        const isRetryable = reason === 'overloaded' || reason === 'rate-limit' || reason === 'unavailable';
        return errors.streamFailure(detail, reason, isRetryable);
      }
      return errors.httpFailure(failure.status, detail, failure.headers);
    },
  });
}
