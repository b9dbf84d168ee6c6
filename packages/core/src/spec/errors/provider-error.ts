import { ConclaveError, type ConclaveErrorOptions } from './conclave-error.js';

export type ProviderErrorReason =
  | 'authentication'
  | 'model-not-found'
  | 'rate-limit'
  | 'overloaded'
  | 'bad-request'
  | 'network'
  | 'aborted'
  | 'unavailable';

/**
 * A model provider failed. `isRetryable` is true for 408/409/429/5xx and network errors;
 * `retryAfterMs` carries the provider's retry-after when it gave one. Messages never contain secrets.
 */
export class ProviderError extends ConclaveError {
  static override readonly code = 'provider-error';
  readonly reason: ProviderErrorReason;
  readonly provider: string;
  readonly model: string | null;
  readonly status: number | null;
  readonly isRetryable: boolean;
  readonly retryAfterMs: number | null;
  constructor(
    details: {
      reason: ProviderErrorReason;
      provider: string;
      model?: string | null;
      status?: number | null;
      message: string;
      isRetryable?: boolean;
      retryAfterMs?: number | null;
    },
    options: ConclaveErrorOptions = {},
  ) {
    super(ProviderError.code, details.message, options);
    this.name = 'ProviderError';
    this.reason = details.reason;
    this.provider = details.provider;
    this.model = details.model ?? null;
    this.status = details.status ?? null;
    this.isRetryable =
      details.isRetryable ??
      (details.reason === 'rate-limit' ||
        details.reason === 'overloaded' ||
        details.reason === 'network' ||
        (details.status !== null &&
          details.status !== undefined &&
          (details.status === 408 || details.status === 409 || details.status >= 500)));
    this.retryAfterMs = details.retryAfterMs ?? null;
  }
}
