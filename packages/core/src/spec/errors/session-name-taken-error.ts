import { ConclaveError, type ConclaveErrorOptions } from './conclave-error.js';

/** Session names are unique per store: `takenName` is already held by session `holderId`. */
export class SessionNameTakenError extends ConclaveError {
  static override readonly code = 'session-name-taken';
  readonly takenName: string;
  readonly holderId: string;
  constructor(details: { name: string; holderId: string; holderTitle: string }, options: ConclaveErrorOptions = {}) {
    super(
      SessionNameTakenError.code,
      `The name "${details.name}" is taken by session ${details.holderId} (${details.holderTitle}).`,
      options,
    );
    this.name = 'SessionNameTakenError';
    this.takenName = details.name;
    this.holderId = details.holderId;
  }
}
