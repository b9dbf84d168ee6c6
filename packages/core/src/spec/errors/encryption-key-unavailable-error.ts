import { ConclaveError, type ConclaveErrorOptions } from './conclave-error.js';

/**
 * Encrypted session data names a key the keyring does not hold. Nothing is read or changed;
 * `keyId` says which key to supply.
 */
export class EncryptionKeyUnavailableError extends ConclaveError {
  static override readonly code = 'encryption-key-unavailable';
  readonly keyId: string;
  readonly sessionId: string | null;
  /** The file (or table) holding the encrypted data. */
  readonly location: string;
  constructor(
    details: { keyId: string; sessionId: string | null; location: string },
    options: ConclaveErrorOptions = {},
  ) {
    const what = details.sessionId === null ? details.location : `Session ${details.sessionId}`;
    super(
      EncryptionKeyUnavailableError.code,
      `${what} is encrypted with key ${details.keyId}, which is not available (${details.location}); nothing was changed.`,
      options,
    );
    this.name = 'EncryptionKeyUnavailableError';
    this.keyId = details.keyId;
    this.sessionId = details.sessionId;
    this.location = details.location;
  }
}
