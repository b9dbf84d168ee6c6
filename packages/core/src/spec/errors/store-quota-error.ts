import { formatBytes } from '../format-bytes.js';
import { ConclaveError, type ConclaveErrorOptions } from './conclave-error.js';

/** What a space limit is set on: the whole data home, or one session. */
export type StoreQuotaLimit = 'maxHomeBytes' | 'maxSessionBytes';

export interface StoreQuotaDetails {
  limit: StoreQuotaLimit;
  /** The limit, in bytes. */
  limitBytes: number;
  /** What the home (or the session) holds now. */
  usedBytes: number;
  /** The write that would have passed the limit. */
  writingBytes: number;
  /** The store's data home. */
  location: string;
  /** The session being written. */
  sessionId: string | null;
  /** The biggest sessions of the home, biggest first (what uses the space). */
  biggest: { id: string; bytes: number }[];
  /** For the session limit: what in the session takes the space. */
  parts?: { journal: number; snapshots: number; other: number };
}

/**
 * A write would take the data home, or a session, past the space limit the config sets
 * (`limits.maxHomeBytes`, `limits.maxSessionBytes`): refused before anything is written, like
 * a full disk but before it. What was acknowledged before is kept; once space is freed or the
 * limit raised, the session resumes where it stopped.
 */
export class StoreQuotaError extends ConclaveError {
  static override readonly code = 'store-quota';
  readonly limit: StoreQuotaLimit;
  readonly limitBytes: number;
  readonly usedBytes: number;
  readonly location: string;
  readonly sessionId: string | null;
  readonly biggest: { id: string; bytes: number }[];
  constructor(details: StoreQuotaDetails, options: ConclaveErrorOptions = {}) {
    const field = `limits.${details.limit}`;
    const holder =
      details.limit === 'maxSessionBytes' ? `Session ${details.sessionId ?? ''}` : `The data home ${details.location}`;
    const parts = details.parts
      ? ` (journal ${formatBytes(details.parts.journal)}, snapshots ${formatBytes(details.parts.snapshots)}, other ${formatBytes(details.parts.other)})`
      : '';
    const biggest =
      details.biggest.length === 0
        ? ''
        : ` The biggest sessions: ${details.biggest.map((session) => `${session.id} ${formatBytes(session.bytes)}`).join(', ')}.`;
    super(
      StoreQuotaError.code,
      `${holder} holds ${formatBytes(details.usedBytes)}${parts}: writing ${formatBytes(details.writingBytes)} more would pass ${field} (${formatBytes(details.limitBytes)}). Stopped at the last checkpoint; everything saved before this is kept.${biggest} Free some space or raise ${field}, then resume: it goes on where it stopped.`,
      // The next step (which commands free space) is worded by the front ends, from `limit` and `sessionId`.
      options,
    );
    this.name = 'StoreQuotaError';
    this.limit = details.limit;
    this.limitBytes = details.limitBytes;
    this.usedBytes = details.usedBytes;
    this.location = details.location;
    this.sessionId = details.sessionId;
    this.biggest = details.biggest;
  }
}
