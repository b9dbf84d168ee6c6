import { ConclaveError, type ConclaveErrorOptions } from '@resume/core/spec';

/** A run or a session names a mode this runner has no registration for. */
export class UnknownModeError extends ConclaveError {
  static override readonly code = 'unknown-mode';
  readonly mode: string;
  readonly registered: string[];
  /** The session whose recorded mode is unknown (null: a new run asked for it). */
  readonly sessionId: string | null;
  constructor(
    input: { mode: string; registered: string[]; sessionId?: string | null },
    options: ConclaveErrorOptions = {},
  ) {
    const known = input.registered.length > 0 ? input.registered.join(', ') : 'none';
    super(
      UnknownModeError.code,
      input.sessionId
        ? `Session ${input.sessionId} runs in mode "${input.mode}", which this runner does not know (registered modes: ${known}).`
        : `Unknown mode "${input.mode}" (registered modes: ${known}).`,
      {
        hint: input.sessionId
          ? `Resume it with a runner that registers the "${input.mode}" mode (createRunner({ modes })).`
          : `Use one of: ${known}.`,
        ...options,
      },
    );
    this.name = 'UnknownModeError';
    this.mode = input.mode;
    this.registered = input.registered;
    this.sessionId = input.sessionId ?? null;
  }
}
