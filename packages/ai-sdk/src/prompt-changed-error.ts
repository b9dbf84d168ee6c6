import { ConclaveError, type ConclaveErrorOptions } from '@resume/core';

/**
 * On replay, a model call was recorded with another request (prompt, tools or settings)
 * than the one the code sends now: the recorded response answers a different question, so
 * it is not handed back. The code changed since the recorded run (or something the prompt
 * depends on is not recorded, like a tool that is not a durable step).
 */
export class PromptChangedError extends ConclaveError {
  static override readonly code = 'prompt-changed';
  readonly sessionId: string;
  /** The step key of the model call, e.g. `model:generate`. */
  readonly stepKey: string;
  /** sha256 of the recorded request and of the one sent now. */
  readonly recordedHash: string;
  readonly requestedHash: string;
  constructor(
    details: { sessionId: string; stepKey: string; recordedHash: string; requestedHash: string },
    options: ConclaveErrorOptions = {},
  ) {
    super(
      PromptChangedError.code,
      `Session ${details.sessionId} recorded model call "${details.stepKey}" with another request (sha256 ${details.recordedHash.slice(0, 12)}) than the code sends now (${details.requestedHash.slice(0, 12)}); a recorded response is never reused for a different prompt.`,
      {
        hint:
          options.hint ??
          'Run the code that made the recorded calls, make the tools whose results feed the prompt durable (durableTool), or fork the session before this call (session.fork({ at })) to continue differently. durable(session, { verifyRequest: false }) replays without the check.',
        ...(options.cause === undefined ? {} : { cause: options.cause }),
      },
    );
    this.name = 'PromptChangedError';
    this.sessionId = details.sessionId;
    this.stepKey = details.stepKey;
    this.recordedHash = details.recordedHash;
    this.requestedHash = details.requestedHash;
  }
}
