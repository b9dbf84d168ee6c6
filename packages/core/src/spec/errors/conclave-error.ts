// The base of every error Conclave throws on purpose. `code` is stable (scripts and front ends
// match on it, and the front ends' one table turns it into an exit code: @resume/runner/exit-codes,
// docs/architecture.md#the-cli), and the message says what happened and what to do next.

const marker = Symbol.for('conclave.error');

export interface ConclaveErrorOptions {
  cause?: unknown;
  /** What to do next, printed under the message. */
  hint?: string;
}

export class ConclaveError extends Error {
  static readonly code: string = 'conclave-error';
  readonly [marker] = true;
  readonly code: string;
  readonly hint: string | undefined;

  constructor(code: string, message: string, options: ConclaveErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ConclaveError';
    this.code = code;
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
