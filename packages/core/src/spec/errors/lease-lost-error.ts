import { ConclaveError, type ConclaveErrorOptions } from './conclave-error.js';

/** This writer's lease was taken over (fencing): it must stop writing. */
export class LeaseLostError extends ConclaveError {
  static override readonly code = 'lease-lost';
  readonly sessionId: string;
  constructor(sessionId: string, message?: string, options: ConclaveErrorOptions = {}) {
    super(
      LeaseLostError.code,
      message ?? `Session ${sessionId} was taken over by another process; this process may no longer write it.`,
      options,
    );
    this.name = 'LeaseLostError';
    this.sessionId = sessionId;
  }
}
