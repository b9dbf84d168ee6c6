// Turns what the OpenAI SDK throws into ProviderError with a typed reason. What an error body
// says is read here; which SDK error is which failure, the wording, hints and scrubbing of the
// key are shared (`providerErrorFromSdk`, the error factory), so neither the key nor an
// Authorization value reaches a user.
import {
  createProviderErrorFactory,
  type ProviderCallContext,
  type ProviderError,
  type ProviderErrorReason,
  providerErrorFromSdk,
} from '@resume/core/spec';
import OpenAI from 'openai';

const hints: Partial<Record<ProviderErrorReason, string>> = {
  authentication: 'Check OPENAI_API_KEY (or the key for your OpenAI-compatible server), or use --provider scripted.',
  'model-not-found': 'Check the model id (--model or the agent config); `listModels()` shows what the server offers.',
  'rate-limit': 'Wait and resume the session; completed steps are not repeated.',
  overloaded: 'The server is overloaded; resume the session later.',
  network: 'Check OPENAI_BASE_URL and your network, then resume the session.',
};

/** The factory for this provider's errors about `context.model`. */
export function openAIErrors(context: ProviderCallContext) {
  return createProviderErrorFactory({ provider: 'openai', ...context, hints });
}

export function toProviderError(error: unknown, context: ProviderCallContext): ProviderError {
  const errors = openAIErrors(context);
  return providerErrorFromSdk(error, {
    errors,
    signal: context.signal,
    sdk: OpenAI,
    apiFailure(failure) {
      const detail =
        failure.error && typeof failure.error === 'object' && 'message' in failure.error
          ? String(failure.error.message)
          : failure.message;
      // No status: an error event inside an otherwise successful stream.
      if (failure.status === undefined) return errors.streamFailure(detail);
      return errors.httpFailure(failure.status, detail, failure.headers);
    },
  });
}
