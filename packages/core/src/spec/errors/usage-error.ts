import { ConclaveError, type ConclaveErrorOptions, ExitCode } from './conclave-error.js';

export class UsageError extends ConclaveError {
  static override readonly code = 'usage';
  constructor(message: string, options: ConclaveErrorOptions = {}) {
    super(UsageError.code, ExitCode.usage, message, options);
    this.name = 'UsageError';
  }
}
