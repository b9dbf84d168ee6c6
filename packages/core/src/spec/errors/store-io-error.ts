import { ConclaveError, type ConclaveErrorOptions } from './conclave-error.js';

/** The store could not make data durable (e.g. fsync failed). Fatal for that store instance. */
export class StoreIoError extends ConclaveError {
  static override readonly code = 'store-io';
  readonly path: string | null;
  constructor(message: string, path: string | null, options: ConclaveErrorOptions = {}) {
    super(StoreIoError.code, message, options);
    this.name = 'StoreIoError';
    this.path = path;
  }
}
