// Turns anything thrown into the ErrorInfo recorded in the journal, and says whether an
// error is worth another attempt by default. The two agree: what the journal calls
// `retryable` is what the default retry filter would do with the error.
import { ConclaveError, type ErrorInfo, ProviderError } from '../spec/index.js';

/** Default retry filter: every error except Conclave errors that are not retryable (provider errors say). */
export function isRetryableByDefault(error: unknown): boolean {
  if (ProviderError.isInstance(error)) return error.isRetryable;
  if (ConclaveError.isInstance(error)) return false;
  return true;
}

/** `retryable`: what the step's retry filter decided (default: `isRetryableByDefault`). */
export function toErrorInfo(error: unknown, retryable: boolean = isRetryableByDefault(error)): ErrorInfo {
  if (error instanceof Error) {
    const code = ConclaveError.isInstance(error)
      ? error.code
      : typeof (error as { code?: unknown }).code === 'string'
        ? String((error as { code?: unknown }).code)
        : null;
    return { name: error.name, message: error.message, code, retryable };
  }
  return {
    name: 'Error',
    message: typeof error === 'string' ? error : (JSON.stringify(error) ?? String(error)),
    code: null,
    retryable,
  };
}
