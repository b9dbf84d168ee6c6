import { ConclaveError, type ConclaveErrorOptions } from './conclave-error.js';

/**
 * A step returned a value the journal cannot keep as it is: JSON would change its shape
 * (a Map, a Set, NaN, a bigint, a class instance without `toJSON`...). The step is recorded
 * as failed; return plain data, or give the step a `codec`.
 */
export class StepOutputError extends ConclaveError {
  static override readonly code = 'step-output-not-json';
  readonly sessionId: string;
  readonly key: string;
  /** Where in the output the problem is, e.g. `output.rows[3].when`. */
  readonly path: string;
  readonly problem: string;
  constructor(
    details: { sessionId: string; key: string; path: string; problem: string },
    options: ConclaveErrorOptions = {},
  ) {
    super(
      StepOutputError.code,
      `Step "${details.key}" of session ${details.sessionId} returned a value the journal cannot record: ${details.path} ${details.problem}. Return plain JSON data (strings, finite numbers, booleans, null, arrays, plain objects) or give the step a codec.`,
      options,
    );
    this.name = 'StepOutputError';
    this.sessionId = details.sessionId;
    this.key = details.key;
    this.path = details.path;
    this.problem = details.problem;
  }
}
