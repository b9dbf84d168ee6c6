// Turns what the OpenAI SDK throws into ProviderError with a typed reason. Which SDK error is
// which failure is decided here; the wording, hints and scrubbing of the key come from the
// shared factory, so neither the key nor an Authorization value reaches a user.
import {
  createProviderErrorFactory,
  type ProviderCallContext,
  ProviderError,
  type ProviderErrorReason,
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
  if (ProviderError.isInstance(error)) return error;
  const errors = openAIErrors(context);
  if (context.signal?.aborted || error instanceof OpenAI.APIUserAbortError) return errors.aborted();
  if (error instanceof OpenAI.APIConnectionError) {
    return errors.unreachable({ timedOut: error instanceof OpenAI.APIConnectionTimeoutError });
  }
  if (error instanceof OpenAI.APIError) {
    const detail =
      error.error && typeof error.error === 'object' && 'message' in error.error
        ? String(error.error.message)
        : error.message;
    // No status: an error event inside an otherwise successful stream.
    if (error.status === undefined) return errors.streamFailure(detail);
    return errors.httpFailure(error.status, detail, error.headers);
  }
  // Anything else during a request is the transport failing (a stream cut mid-way, a reset).
  return errors.connectionFailure(error);
}
