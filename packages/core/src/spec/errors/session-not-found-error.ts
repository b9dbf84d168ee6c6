import type { SessionSummary } from '../summary.js';
import { ConclaveError, type ConclaveErrorOptions } from './conclave-error.js';

export interface SessionNotFoundErrorOptions extends ConclaveErrorOptions {
  /** The most recent sessions, when the thrower looked them up (the engine does). */
  recent?: SessionSummary[];
  /** Where the store looked for the session (the file store: its folder), when it says. */
  location?: string;
}

/** No session matches a reference (an id, a prefix, an index). */
export class SessionNotFoundError extends ConclaveError {
  static override readonly code = 'session-not-found';
  /** What the caller asked for, as given. */
  readonly reference: string;
  /** @deprecated The same as `reference`. */
  readonly sessionRef: string;
  /** The most recent sessions (newest first), or null when the thrower did not look them up. */
  readonly recent: SessionSummary[] | null;
  /** Where the store looked for the session, or null when it did not say. */
  readonly location: string | null;
  constructor(
    reference: string,
    message = `No session matches "${reference}".`,
    options: SessionNotFoundErrorOptions = {},
  ) {
    const { recent, location, ...rest } = options;
    super(SessionNotFoundError.code, message, rest);
    this.name = 'SessionNotFoundError';
    this.reference = reference;
    this.sessionRef = reference;
    this.recent = recent ?? null;
    this.location = location ?? null;
  }
}
