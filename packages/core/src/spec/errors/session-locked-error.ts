import { ConclaveError, type ConclaveErrorOptions } from './conclave-error.js';

export interface LeaseHolderInfo {
  pid: number;
  host: string;
  /** ISO time the holder took the lease. */
  since: string;
}

/** Another live process holds the session's writer lease. */
export class SessionLockedError extends ConclaveError {
  static override readonly code = 'session-locked';
  readonly sessionId: string;
  readonly holder: LeaseHolderInfo;
  constructor(sessionId: string, holder: LeaseHolderInfo, options: ConclaveErrorOptions = {}) {
    super(
      SessionLockedError.code,
      `Session ${sessionId} is in use by pid ${holder.pid} on host ${holder.host} since ${holder.since}.`,
      {
        hint: 'Wait for that process to finish, or stop it; a holder that died is taken over automatically.',
        ...options,
      },
    );
    this.name = 'SessionLockedError';
    this.sessionId = sessionId;
    this.holder = holder;
  }
}
