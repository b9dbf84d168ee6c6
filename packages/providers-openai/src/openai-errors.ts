// Turns what the OpenAI SDK throws into ProviderError with a typed reason. Messages are built
// here and scrubbed of the key, so neither the key nor an Authorization value reaches a user.
import { ProviderError, type ProviderErrorReason, retryAfterMs, scrubSecrets } from '@resume/core/spec';
import OpenAI from 'openai';

const PROVIDER = 'openai';

function reasonForStatus(status: number): ProviderErrorReason {
  if (status === 401 || status === 403) return 'authentication';
  if (status === 404) return 'model-not-found';
  if (status === 429) return 'rate-limit';
  if (status === 503 || status === 529) return 'overloaded';
  if (status === 400 || status === 413 || status === 422) return 'bad-request';
  return 'unavailable';
}

const hints: Partial<Record<ProviderErrorReason, string>> = {
  authentication: 'Check OPENAI_API_KEY (or the key for your OpenAI-compatible server), or use --provider scripted.',
  'model-not-found': 'Check the model id (--model or the agent config); `listModels()` shows what the server offers.',
  'rate-limit': 'Wait and resume the session; completed steps are not repeated.',
  overloaded: 'The server is overloaded; resume the session later.',
  network: 'Check OPENAI_BASE_URL and your network, then resume the session.',
};

export interface ErrorContext {
  model: string;
  baseURL: string;
  secrets: Array<string | null | undefined>;
  signal?: AbortSignal | undefined;
}

export function toProviderError(error: unknown, context: ErrorContext): ProviderError {
  if (ProviderError.isInstance(error)) return error;
  const scrub = (text: string) => scrubSecrets(text, context.secrets);
  const make = (
    reason: ProviderErrorReason,
    message: string,
    extra: { status?: number | null; retryAfterMs?: number | null; cause?: unknown } = {},
  ) =>
    new ProviderError(
      {
        reason,
        provider: PROVIDER,
        model: context.model,
        status: extra.status ?? null,
        retryAfterMs: extra.retryAfterMs ?? null,
        message: scrub(message),
      },
      { ...(hints[reason] ? { hint: hints[reason] } : {}), ...(extra.cause ? { cause: extra.cause } : {}) },
    );

  if (context.signal?.aborted || error instanceof OpenAI.APIUserAbortError) {
    return make('aborted', `The call to ${context.model} was aborted.`);
  }
  if (error instanceof OpenAI.APIConnectionError) {
    const timeout = error instanceof OpenAI.APIConnectionTimeoutError;
    return make(
      'network',
      `Could not reach ${context.baseURL} for model ${context.model}${timeout ? ' (timed out)' : ''}.`,
    );
  }
  if (error instanceof OpenAI.APIError) {
    const detail =
      error.error && typeof error.error === 'object' && 'message' in error.error
        ? String(error.error.message)
        : error.message;
    if (error.status === undefined) {
      // An error event inside an otherwise successful stream.
      return make('unavailable', `Model ${context.model} failed while streaming: ${detail}`);
    }
    const reason = reasonForStatus(error.status);
    const what =
      reason === 'model-not-found'
        ? `Model ${context.model} was not found at ${context.baseURL}`
        : `The request to ${context.model} failed with HTTP ${error.status}`;
    return make(reason, `${what}: ${detail}`, {
      status: error.status,
      retryAfterMs: retryAfterMs(error.headers),
    });
  }
  // Anything else during a request is the transport failing (a stream cut mid-way, a reset).
  const message = error instanceof Error ? error.message : String(error);
  return make('network', `The connection to ${context.baseURL} failed during a call to ${context.model}: ${message}`);
}
