import { ConclaveError, type ConclaveErrorOptions } from './conclave-error.js';

/**
 * On replay the code asked for a different operation than the journal recorded at that
 * point (another step key, another message, a checkpoint with another label), or finished
 * while recorded operations were still ahead. A recorded result is never handed to a
 * different operation.
 */
export class ReplayMismatchError extends ConclaveError {
  static override readonly code = 'replay-mismatch';
  readonly sessionId: string;
  /** 1-based position of the operation in the session's recorded order. */
  readonly position: number;
  /** What the journal recorded there, e.g. `step "fetch" #1` (null: nothing more was recorded). */
  readonly expected: string | null;
  /** What the code asked for, e.g. `message (user)` (null: the code finished). */
  readonly requested: string | null;
  /** For steps: the recorded and requested keys (kept for callers matching on step keys). */
  readonly expectedKey: string | null;
  readonly requestedKey: string | null;
  constructor(
    details: {
      sessionId: string;
      position: number;
      expected: string | null;
      requested: string | null;
      expectedKey?: string | null;
      requestedKey?: string | null;
    },
    options: ConclaveErrorOptions = {},
  ) {
    super(
      ReplayMismatchError.code,
      `Session ${details.sessionId} recorded ${details.expected ?? 'nothing more'} as operation ${details.position}, but the code now asks for ${details.requested ?? 'nothing more (it finished)'}; a recorded result is never reused for a different operation.`,
      options,
    );
    this.name = 'ReplayMismatchError';
    this.sessionId = details.sessionId;
    this.position = details.position;
    this.expected = details.expected;
    this.requested = details.requested;
    this.expectedKey = details.expectedKey ?? null;
    this.requestedKey = details.requestedKey ?? null;
  }
}
