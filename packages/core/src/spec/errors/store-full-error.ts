import { formatBytes } from '../format-bytes.js';
import { ConclaveError, type ConclaveErrorOptions } from './conclave-error.js';

/**
 * The disk holding the store ran out of space (ENOSPC) or the user's quota (EDQUOT).
 * What was acknowledged before is kept; the write that failed never counted as done.
 */
export class StoreFullError extends ConclaveError {
  static override readonly code = 'store-full';
  /** The file or directory whose write failed. */
  readonly path: string;
  /** The store's data home (or the folder an export was written to). */
  readonly location: string;
  /** Bytes still available to this user on that file system, when known. */
  readonly freeBytes: number | null;
  constructor(
    details: { path: string; location: string; freeBytes: number | null; quota?: boolean },
    options: ConclaveErrorOptions = {},
  ) {
    const free = details.freeBytes === null ? 'free space unknown' : `${formatBytes(details.freeBytes)} free`;
    super(
      StoreFullError.code,
      `The ${details.quota ? 'disk quota' : 'disk'} for ${details.location} is full (${free}): could not write ${details.path}. Everything saved before this is kept.`,
      {
        hint: 'Free some space (or raise the quota), then run the same command again; an interrupted session resumes where it stopped.',
        ...options,
      },
    );
    this.name = 'StoreFullError';
    this.path = details.path;
    this.location = details.location;
    this.freeBytes = details.freeBytes;
  }
}
