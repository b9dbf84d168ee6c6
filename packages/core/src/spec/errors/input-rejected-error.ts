import { ConclaveError, type ConclaveErrorOptions } from './conclave-error.js';

/**
 * An answer to `session.waitFor` that does not fit the schema the question was asked with
 * (or that nobody asked for). Nothing is journaled: the session keeps waiting.
 */
export class InputRejectedError extends ConclaveError {
  static override readonly code = 'input-rejected';
  readonly sessionId: string;
  readonly key: string;
  constructor(details: { sessionId: string; key: string; problem: string }, options: ConclaveErrorOptions = {}) {
    super(
      InputRejectedError.code,
      `The answer to "${details.key}" of session ${details.sessionId} was not accepted: ${details.problem}`,
      options,
    );
    this.name = 'InputRejectedError';
    this.sessionId = details.sessionId;
    this.key = details.key;
  }
}
