// Turns anything thrown into the ErrorInfo recorded in the journal.
import { ConclaveError, type ErrorInfo, ProviderError } from '../spec/index.js';

export function toErrorInfo(error: unknown): ErrorInfo {
  if (error instanceof Error) {
    const code = ConclaveError.isInstance(error)
      ? error.code
      : typeof (error as { code?: unknown }).code === 'string'
        ? String((error as { code?: unknown }).code)
        : null;
    return {
      name: error.name,
      message: error.message,
      code,
      retryable: ProviderError.isInstance(error) ? error.isRetryable : false,
    };
  }
  return {
    name: 'Error',
    message: typeof error === 'string' ? error : (JSON.stringify(error) ?? String(error)),
    code: null,
    retryable: false,
  };
}

/** Default retry filter: every error except Conclave errors that say they are not retryable. */
export function isRetryableByDefault(error: unknown): boolean {
  if (ProviderError.isInstance(error)) return error.isRetryable;
  if (ConclaveError.isInstance(error)) return false;
  return true;
}
