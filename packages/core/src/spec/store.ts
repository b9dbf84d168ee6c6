// The only thing a store implements (docs/architecture.md#the-store-contract). Every store passes the conformance
// suite in `@resume/core/testing`. Stores know nothing of folds or modes: the engine
// numbers events, derives summaries and snapshots, and hands them over.
import { z } from 'zod';
import { lazySchema } from '../lazy-schema.js';
import type { LeaseHolderInfo } from './errors/session-locked-error.js';
import { UsageError } from './errors/usage-error.js';
import type { JournalEvent, SessionHeader, StepSafety } from './events.js';
import type { SessionQuery, SessionSummary } from './summary.js';

export const STORE_SPECIFICATION_VERSION = 'v1';

export interface AppendBatch {
  /** The seq of the last event the writer has seen; the batch's first event must be expectedSeq + 1. */
  expectedSeq: number;
  /** The writer's lease epoch. A store refuses a batch whose epoch is older than the session's current lease. */
  epoch: number;
  /** Consecutive events, already validated and numbered. */
  events: JournalEvent[];
  /** The session's summary after this batch (kept in the store's index for listing). */
  summary: SessionSummary;
}

export interface ReadRange {
  /** First seq to return (inclusive, default 1). */
  fromSeq?: number;
  /** Last seq to return (inclusive, default the end). */
  toSeq?: number;
}

export interface FoldSnapshot {
  /** The seq of the last event folded into `state`. */
  seq: number;
  /** The snapshot format (the engine refuses formats it does not know and replays instead). */
  formatVersion: number;
  state: unknown;
  /**
   * The operations of the session's ordered replay log up to `seq` (see `ReplayLog`), when the
   * writer had one: an ordered open then reads only the journal after `seq`. Optional for a store
   * to keep; without it an ordered open reads the whole journal as its replay log.
   */
  operations?: JournalEvent[];
}

export interface LeaseHolder {
  pid: number;
  host: string;
}

export interface SessionLease {
  readonly sessionId: string;
  /** Increases with every acquisition; written with every batch (fencing). */
  readonly epoch: number;
  readonly holder: LeaseHolderInfo;
  /** Releases the lease (idempotent). */
  release(): Promise<void>;
}

export interface AcquireLeaseOptions {
  holder: LeaseHolder;
  /** Stores with expiring leases renew them by heartbeat while held. */
  ttlMs?: number;
}

export interface RepairReport {
  sessionId: string;
  /** Last seq kept. */
  keptSeq: number;
  /** Bytes (or records) removed from the journal and kept aside. */
  removedBytes: number;
  /** Where the removed data was kept, if anywhere. */
  savedTo: string | null;
  /** True when nothing was changed: the report says what a repair would do. */
  dryRun?: boolean;
  /** What was (or would be) done, one sentence each; empty when the session is intact. */
  actions?: string[];
  /** Events that are gone after the repair (`last` null when unknown), or null when none. */
  droppedEvents?: { first: number; last: number | null } | null;
  /**
   * Steps whose start was in the removed part (as far as it could still be read), with their
   * safety: their run is no longer in the journal, so a resume runs them again.
   */
  lostSteps?: LostStep[];
}

export interface IntegrityProblem {
  file: string;
  /** Byte offset in the file, when the problem has one. */
  offset: number | null;
  problem: string;
}

export interface VerifyReport {
  sessionId: string;
  /** Last event of the journal's intact prefix. */
  lastSeq: number;
  /** Empty when every file of the session checks out. */
  problems: IntegrityProblem[];
}

/** One batch of a rewritten journal: consecutive events and the session's summary after them. */
export interface RewrittenBatch {
  events: JournalEvent[];
  summary: SessionSummary;
}

/** A session's whole new journal (`rewrite`), numbered from 1 without gaps. */
export interface JournalRewrite {
  /** The last seq of the journal the new one was made from: anything appended since refuses the rewrite. */
  expectedSeq: number;
  /** The lease epoch of the caller, who holds the session's lease while it rewrites. */
  epoch: number;
  /** Every event of the new journal, in batches; the first event is the session's creation (seq 1). */
  batches: RewrittenBatch[];
}

export interface RewriteReport {
  sessionId: string;
  /** The journal's last seq before and after. */
  lastSeqBefore: number;
  lastSeqAfter: number;
  /** Bytes the session's journal took before and after (encoded as the store keeps it). */
  bytesBefore: number;
  bytesAfter: number;
}

/** A step started in the part of a journal a repair removed. */
export interface LostStep {
  key: string;
  occurrence: number;
  safety: StepSafety;
}

/** A change a store's `watch` reports. */
export interface StoreChange {
  sessionId: string;
  change: 'created' | 'updated' | 'deleted';
  /** The journal's last seq after the change (null for a deletion). */
  lastSeq: number | null;
}

/**
 * A request to a session's running writer from another process (`conclave checkpoint <id>`):
 * posted without the lease, never into the journal; the writer polls for requests and acts
 * at its next safe point, journaling what it did.
 */
export const sessionRequestSchema = lazySchema(() =>
  z.object({
    /** Unique within the session. */
    id: z.string().min(1).max(100),
    kind: z.literal('checkpoint'),
    /** The checkpoint's label (null: the writer names it). */
    label: z.string().max(200).nullable(),
    requestedAt: z.string(),
    requestedBy: z.object({ pid: z.number().int(), host: z.string() }),
  }),
);
export type SessionRequest = z.infer<typeof sessionRequestSchema>;
export type SessionRequestInput = Pick<SessionRequest, 'kind' | 'label' | 'requestedBy'>;

/** A request as a store keeps it: the input with a new unique id and the time it was posted. */
export function newSessionRequest(input: SessionRequestInput, now: Date = new Date()): SessionRequest {
  const random = Array.from(crypto.getRandomValues(new Uint8Array(6)), (byte) => byte.toString(16).padStart(2, '0'));
  return sessionRequestSchema.parse({
    id: `${now.getTime().toString(36)}-${random.join('')}`,
    kind: input.kind,
    label: input.label,
    requestedAt: now.toISOString(),
    requestedBy: input.requestedBy,
  });
}

const DERIVED_NAME_PATTERN = /^[a-z0-9][a-z0-9.-]{0,63}$/;

/** Throws UsageError unless `name` is one `putDerived` takes (stores call it first). */
export function checkDerivedName(name: string): void {
  if (typeof name === 'string' && DERIVED_NAME_PATTERN.test(name)) return;
  throw new UsageError(`${JSON.stringify(name)} is not a name for derived data.`, {
    hint: 'Use 1 to 64 of a-z, 0-9, "." and "-", starting with a letter or digit (e.g. "langgraph-index").',
  });
}

export interface SessionStore {
  readonly specificationVersion: typeof STORE_SPECIFICATION_VERSION;
  /** `fs`, `postgres`, `memory`... */
  readonly kind: string;
  /** Where the data lives, for messages (never contains secrets). */
  readonly location: string;

  /** Creates an empty session. Throws SessionExistsError if the id is taken. */
  create(header: SessionHeader): Promise<void>;
  /**
   * Appends one batch atomically and durably: when the promise resolves the whole batch
   * survives a crash; a crash before leaves none of it. Throws AppendConflictError on a
   * seq mismatch, LeaseLostError on a stale epoch, SessionNotFoundError if it does not exist.
   */
  append(sessionId: string, batch: AppendBatch): Promise<void>;
  /** Events in seq order. Throws JournalCorruptedError on data that fails its checksum or schema. */
  read(sessionId: string, range?: ReadRange): AsyncIterable<JournalEvent>;
  /**
   * Optional: the whole journal newest first, a run of consecutive events at a time (each run in
   * seq order: a committed batch on the file store, a page of rows on PostgreSQL), each run
   * checked and decoded only when the iteration reaches it, so a reader that goes back from the
   * newest event and keeps little holds little. Throws as `read` does, when the iteration reaches
   * the damage: the runs after it (newer) were given by then.
   */
  readNewestFirst?(sessionId: string): AsyncIterable<JournalEvent[]>;
  /** The header written by `create`, or null if no such session. */
  getHeader(sessionId: string): Promise<SessionHeader | null>;
  getSummary(sessionId: string): Promise<SessionSummary | null>;
  /** Newest first (updatedAt, then id). Never opens every journal. */
  list(query?: SessionQuery): Promise<SessionSummary[]>;
  /** Removes the session and everything derived from it. Returns false if it did not exist. */
  delete(sessionId: string): Promise<boolean>;

  /** Takes the single-writer lease. Throws SessionLockedError while a live holder has it. */
  acquireLease(sessionId: string, options: AcquireLeaseOptions): Promise<SessionLease>;
  /** Who holds the lease now, if a live holder does (a dead holder's lease reads as null). */
  inspectLease(sessionId: string): Promise<LeaseHolderInfo | null>;

  putSnapshot(sessionId: string, snapshot: FoldSnapshot): Promise<void>;
  getSnapshot(sessionId: string): Promise<FoldSnapshot | null>;

  /**
   * Optional: calls `listener` whenever a session is created, appended to or deleted, by any
   * process on any machine (the PostgreSQL store LISTENs for it). A runner waiting for an answer
   * (`waitFor` with `wait`) is woken by it; without it, it polls.
   */
  watch?(listener: (change: StoreChange) => void): Promise<{ close(): Promise<void> }>;

  /** Stores content by its sha256 (hex) and returns the hash. Idempotent. */
  putBlob(content: Uint8Array): Promise<string>;
  getBlob(hash: string): Promise<Uint8Array | null>;
  /**
   * Optional: removes the blobs no session names and resolves to how many went. A store that has
   * it also removes, when it deletes a session, the blobs only that session named. Both keep a blob
   * put (or put again) since the look for references started or since any live writer took its
   * lease: a running session names a blob it put only at its next checkpoint.
   */
  sweepBlobs?(): Promise<number>;

  /**
   * Salvages the longest provable history of a damaged session (optional capability);
   * `dryRun` reports what would be done without changing anything.
   */
  repair?(sessionId: string, options?: { dryRun?: boolean }): Promise<RepairReport>;
  /** Reads every file of a session in full and reports any damage (optional capability). */
  verify?(sessionId: string): Promise<VerifyReport>;
  /**
   * Replaces a session's journal with a shorter history made from it (optional capability;
   * `pruneThread` of `@resume/langgraph` drops old checkpoints with it). Atomic: a crash at any
   * point leaves the old journal or the new one. The caller holds the session's lease
   * (LeaseLostError when `epoch` is not the current one) and read the journal up to
   * `expectedSeq` (AppendConflictError when it grew since). Events are renumbered from 1, so
   * everything keyed by seq is dropped with the old journal: the snapshot and any data derived
   * from the journal. Blobs stay (`sessions cleanup` removes those no session names). Records
   * are sealed like appends when the store encrypts.
   */
  rewrite?(sessionId: string, rewrite: JournalRewrite): Promise<RewriteReport>;
  /** Compresses a finished session's data; reads stay transparent (optional capability). */
  archive?(sessionId: string): Promise<void>;
  /**
   * Posts a request to the session's writer without the lease and without touching the
   * journal (optional capability; together with `listRequests`). SessionNotFoundError if the
   * session does not exist. Returns the request with its id and time.
   */
  postRequest?(sessionId: string, request: SessionRequestInput): Promise<SessionRequest>;
  /** Every request posted for the session, oldest first (deleted with the session). */
  listRequests?(sessionId: string): Promise<SessionRequest[]>;
  /**
   * Keeps `bytes` under `name` beside the session's journal, replacing what the name held
   * (optional capability; together with `getDerived`). Derived data is what a reader of the
   * journal could rebuild from it, kept so it need not: it is deleted with the session, sealed
   * like the journal when the store encrypts, and removed by every operation that rewrites the
   * journal (a repair, an encryption, dropping or renumbering events), so a reader never finds it
   * describing events that are gone; a reader still checks it against the journal. A name is 1 to
   * 64 of `a-z`, `0-9`, `.`, `-`, starting with a letter or digit (UsageError otherwise);
   * SessionNotFoundError if the session does not exist.
   */
  putDerived?(sessionId: string, name: string, bytes: Uint8Array): Promise<void>;
  /** What `putDerived` kept under `name`: null when never written, removed, or damaged. */
  getDerived?(sessionId: string, name: string): Promise<Uint8Array | null>;

  close(): Promise<void>;
}
