import { ConclaveError, type ConclaveErrorOptions } from './conclave-error.js';

/** Data written by a newer Conclave (or not Conclave data at all). */
export class UnsupportedFormatError extends ConclaveError {
  static override readonly code = 'format-unsupported';
  readonly formatVersion: number | null;
  constructor(what: string, formatVersion: number | null, options: ConclaveErrorOptions = {}) {
    super(
      UnsupportedFormatError.code,
      formatVersion === null
        ? `${what} has no recognisable format version.`
        : `${what} uses format version ${formatVersion}, newer than this Conclave understands.`,
      { hint: 'Upgrade Conclave to read it.', ...options },
    );
    this.name = 'UnsupportedFormatError';
    this.formatVersion = formatVersion;
  }
}
