// The base of every error Conclave throws on purpose. `code` is stable (scripts
// and front ends match on it), `exitCode` is what the CLI exits with (docs/architecture.md#the-cli),
// and the message says what happened and what to do next.

const marker = Symbol.for('conclave.error');

/** Exit codes (binding, docs/architecture.md#the-cli). */
export const ExitCode = {
  success: 0,
  failed: 1,
  usage: 64,
  corrupted: 65,
  notFound: 66,
  unavailable: 69,
  /** The disk holding the store is full (or over quota); nothing acknowledged was lost (sysexits EX_IOERR). */
  storeFull: 74,
  inUse: 75,
  /** The operating system refused access to a file or folder (sysexits EX_NOPERM). */
  noPermission: 77,
  interrupted: 130,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export interface ConclaveErrorOptions {
  cause?: unknown;
  /** What to do next, printed under the message. */
  hint?: string;
}

export class ConclaveError extends Error {
  static readonly code: string = 'conclave-error';
  readonly [marker] = true;
  readonly code: string;
  readonly exitCode: ExitCode;
  readonly hint: string | undefined;

  constructor(code: string, exitCode: ExitCode, message: string, options: ConclaveErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ConclaveError';
    this.code = code;
    this.exitCode = exitCode;
    this.hint = options.hint;
  }

  /**
   * Works across duplicate installs (no `instanceof`): `SessionNotFoundError.isInstance(error)`
   * checks the marker and, on a subclass, the subclass's code.
   */
  static isInstance<T extends abstract new (...args: never[]) => ConclaveError>(
    this: T & { code: string },
    error: unknown,
  ): error is InstanceType<T> {
    if (typeof error !== 'object' || error === null || !(marker in error)) return false;
    return this.code === ConclaveError.code || (error as ConclaveError).code === this.code;
  }
}
