import { ConclaveError, type ConclaveErrorOptions } from './conclave-error.js';

/**
 * A journal (or snapshot, index, export) failed its checksum or schema at a known place.
 * With a `sessionId`, the store's `repair` can keep the valid prefix before `offset`.
 */
export class JournalCorruptedError extends ConclaveError {
  static override readonly code = 'journal-corrupted';
  readonly sessionId: string | null;
  readonly file: string;
  readonly offset: number | null;
  /** What is wrong, without the file and offset (`checksum mismatch`). */
  readonly problem: string;
  constructor(
    details: { sessionId: string | null; file: string; offset: number | null; problem: string },
    options: ConclaveErrorOptions = {},
  ) {
    const where = details.offset === null ? details.file : `${details.file} at byte ${details.offset}`;
    super(JournalCorruptedError.code, `Session data is corrupted: ${details.problem} (${where}).`, options);
    this.name = 'JournalCorruptedError';
    this.sessionId = details.sessionId;
    this.file = details.file;
    this.offset = details.offset;
    this.problem = details.problem;
  }
}
