import { ConclaveError, type ConclaveErrorOptions } from './conclave-error.js';

/**
 * The run stopped to wait for a person: `session.waitFor(key, ...)` journaled its question
 * and the session is `waiting` until someone answers (`engine.respond`). Not a failure:
 * running the job again after the answer continues it (the CLI exits 0).
 */
export class WaitingForInputError extends ConclaveError {
  static override readonly code = 'waiting-for-input';
  readonly sessionId: string;
  /** The name the code waits under, e.g. `approval`. */
  readonly key: string;
  /** The question, as the code asked it. */
  readonly prompt: string;
  constructor(details: { sessionId: string; key: string; prompt: string }, options: ConclaveErrorOptions = {}) {
    super(
      WaitingForInputError.code,
      `Session ${details.sessionId} is waiting for "${details.key}": ${details.prompt}`,
      {
        hint:
          options.hint ??
          `Answer it with engine.respond(sessionId, '${details.key}', value), then run the job again to continue.`,
        ...(options.cause === undefined ? {} : { cause: options.cause }),
      },
    );
    this.name = 'WaitingForInputError';
    this.sessionId = details.sessionId;
    this.key = details.key;
    this.prompt = details.prompt;
  }
}
