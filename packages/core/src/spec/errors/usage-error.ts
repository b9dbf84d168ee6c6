import { ConclaveError, type ConclaveErrorOptions } from './conclave-error.js';

export class UsageError extends ConclaveError {
  static override readonly code = 'usage';
  constructor(message: string, options: ConclaveErrorOptions = {}) {
    super(UsageError.code, message, options);
    this.name = 'UsageError';
  }
}
