import { ConclaveError, type ConclaveErrorOptions } from '@resume/core/spec';

/** A saved LangGraph checkpoint cannot be read back: a missing blob, or data in a format this version does not know. */
export class CheckpointDataError extends ConclaveError {
  static override readonly code = 'checkpoint-data';
  readonly sessionId: string;
  readonly threadId: string;

  constructor(details: { sessionId: string; threadId: string; problem: string }, options: ConclaveErrorOptions = {}) {
    super(
      CheckpointDataError.code,
      `LangGraph thread ${JSON.stringify(details.threadId)} (session ${details.sessionId}): ${details.problem}`,
      {
        hint:
          options.hint ??
          `Check the session with: conclave sessions show ${details.sessionId}; a damaged journal is salvaged with: conclave sessions repair ${details.sessionId}`,
        ...(options.cause === undefined ? {} : { cause: options.cause }),
      },
    );
    this.name = 'CheckpointDataError';
    this.sessionId = details.sessionId;
    this.threadId = details.threadId;
  }
}
