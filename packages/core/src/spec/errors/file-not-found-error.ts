import { ConclaveError, type ConclaveErrorOptions } from './conclave-error.js';

export class FileNotFoundError extends ConclaveError {
  static override readonly code = 'file-not-found';
  readonly path: string;
  constructor(path: string, message = `File not found: ${path}`, options: ConclaveErrorOptions = {}) {
    super(FileNotFoundError.code, message, options);
    this.name = 'FileNotFoundError';
    this.path = path;
  }
}
