import { ConclaveError, type ConclaveErrorOptions } from './conclave-error.js';

/** What a session had recorded when it was deleted from under the process writing it. */
export interface DeletedSessionRecord {
  /** Messages (turns, prompts, tool results) it held. */
  messages: number;
  /** Durable steps it had started. */
  steps: number;
  /** What its model calls had cost (null when a price is unknown). */
  costUsd: number | null;
  /** Where the store kept it (the file store: its folder), when the store said. */
  location: string | null;
}

/**
 * The session was deleted from the store while this process held it and was writing it (its
 * folder removed by hand, its rows deleted): what it had recorded is gone, this process can no
 * longer write it, and there is nothing left to resume.
 */
export class SessionDeletedError extends ConclaveError {
  static override readonly code = 'session-deleted';
  readonly sessionId: string;
  readonly lost: DeletedSessionRecord;
  constructor(sessionId: string, lost: DeletedSessionRecord, options: ConclaveErrorOptions = {}) {
    const cost = lost.costUsd
      ? `, with the $${lost.costUsd.toFixed(lost.costUsd < 0.01 ? 4 : 2)} its model calls cost`
      : '';
    const where =
      lost.location === null ? 'was deleted from the store' : `was deleted (its folder ${lost.location} is gone)`;
    super(
      SessionDeletedError.code,
      `Session ${sessionId} ${where} while it ran: its ${plural(lost.messages, 'message')} and ${plural(lost.steps, 'step')} went with it${cost}. Nothing of this run was kept, and there is nothing to resume.`,
      options,
    );
    this.name = 'SessionDeletedError';
    this.sessionId = sessionId;
    this.lost = lost;
  }
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
