// The engine and session API (DESIGN 4, binding names). Implemented in engine/engine.ts
// and engine/session.ts.
import type { CheckpointRecord, SessionState } from '../journal/state.js';
import type {
  ErrorInfo,
  EventInput,
  JournalEvent,
  JsonValue,
  Message,
  MessageInput,
  SessionHeader,
  SessionMode,
  SessionQuery,
  SessionStore,
  SessionSummary,
  StepSafety,
  UncertainStepInfo,
} from '../spec/index.js';

export type UncertainDecision = 'rerun' | 'skip' | 'abort';

export interface RetryPolicy {
  /** Total attempts, the first one included (default 1: no retry). */
  attempts: number;
  /** Delay before attempt n+1: initialMs * factor^(n-1), capped at maxMs (default 1000, 2, 30000). */
  backoff?: { initialMs?: number; factor?: number; maxMs?: number };
  /** Whether an error is worth another attempt (default: every error except ConclaveErrors that are not retryable). */
  retryOn?: (error: unknown) => boolean;
}

export interface StepContext {
  /** 1-based; a reopened session continues the count. */
  attempt: number;
  /** `<sessionId>:<stepKey>:<occurrence>`, stable across attempts and processes. */
  idempotencyKey: string;
  /** Aborted when the session is interrupted. */
  signal: AbortSignal;
  /** Errors of the earlier attempts of this step, oldest first. */
  previousFailures: ErrorInfo[];
}

export interface StepOptions<T> {
  /** `idempotent` (default; LLM calls, reads) re-runs when uncertain; `unsafe` asks first. */
  safety?: StepSafety;
  retry?: RetryPolicy;
  /** Decides what happens to an uncertain unsafe step; without it an UncertainStepError is thrown. */
  onUncertain?: (step: UncertainStepInfo) => UncertainDecision | Promise<UncertainDecision>;
  /** The value a skipped step returns (default null). */
  skipValue?: T;
  /** Turns the output into JSON for the journal and back (default: the value must be JSON). */
  codec?: { encode(value: T): JsonValue; decode(value: JsonValue): T };
  /** Injected for tests: how to wait between attempts. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

export interface CreateSessionInput {
  title: string;
  mode: SessionMode;
  workspaceDir?: string | null;
  parentId?: string | null;
  branchPoint?: number | null;
  specHash?: string | null;
  options?: Record<string, JsonValue>;
  git?: SessionHeader['git'];
  /** Events written in the same first batch as `session-created` (e.g. the task message). */
  initialEvents?: EventInput[];
}

export interface OpenSessionOptions {
  /** Stop after this many resumes of an unfinished session (default 10). */
  maxRecoveries?: number;
  /** Open without counting a recovery or changing the status (e.g. to complete a follow-up). */
  countRecovery?: boolean;
}

export interface ForkOptions {
  /** The checkpoint seq to branch from (default: the last event). */
  at?: number;
  title: string;
  mode?: SessionMode;
  options?: Record<string, JsonValue>;
}

export interface Session {
  readonly id: string;
  /** The folded state, including events not yet committed. */
  readonly state: SessionState;
  /** The lease epoch this writer holds. */
  readonly epoch: number;
  /** Aborted by `interrupt()`; steps receive it. */
  readonly signal: AbortSignal;

  step<T>(key: string, fn: (context: StepContext) => Promise<T>, options?: StepOptions<T>): Promise<T>;
  /** Joins the current batch; durable at the next checkpoint or step. */
  addMessage(message: MessageInput): Message;
  /** Joins the current batch any other event (data-set, usage-recorded, file-snapshot-taken...). */
  record(event: EventInput): JournalEvent;
  /** Commits pending events durably and marks a checkpoint; returns its seq. */
  checkpoint(label?: string): Promise<number>;
  /** Commits pending events durably without a checkpoint mark. */
  flush(): Promise<number>;
  /** A new session whose journal is this one's up to `at`, with parentId/branchPoint set. */
  fork(options: ForkOptions): Promise<Session>;
  complete(): Promise<void>;
  fail(error: unknown): Promise<void>;
  /** Aborts in-flight steps, journals `interrupted` and commits. */
  interrupt(reason?: string): Promise<void>;
  /** Commits what is pending and releases the lease. */
  close(): Promise<void>;
  /** The checkpoints so far. */
  checkpoints(): CheckpointRecord[];
}

export interface EngineOptions {
  store: SessionStore;
  /** Scrubs secrets from everything written (see security/redactor). */
  redact?: <T>(value: T) => T;
  /** Injected clock for tests. */
  now?: () => Date;
  /** Process identity for leases (default: this process). */
  holder?: { pid: number; host: string };
  /** Write a fold snapshot every N events (default 1000). */
  snapshotEvery?: number;
  /** Step outputs larger than this many bytes go to the blob store (default 64 KiB). */
  blobThreshold?: number;
}

export interface Engine {
  readonly store: SessionStore;
  createSession(input: CreateSessionInput): Promise<Session>;
  /** Takes the writer lease and folds the journal (from the latest snapshot). */
  openSession(id: string, options?: OpenSessionOptions): Promise<Session>;
  /** Folds a session without taking the lease (show, export, planning). */
  readSession(id: string, options?: { at?: number }): Promise<SessionState>;
  readEvents(id: string, range?: { fromSeq?: number; toSeq?: number }): AsyncIterable<JournalEvent>;
  /** Summaries newest first; `running` sessions without a live lease show as `interrupted`. */
  listSessions(query?: SessionQuery): Promise<SessionSummary[]>;
  /** Refuses a session held by a live process unless force. */
  deleteSession(id: string, options?: { force?: boolean }): Promise<void>;
  /** Resolves a full id or a unique prefix of at least 6 characters. */
  resolveSessionId(reference: string): Promise<string>;
  close(): Promise<void>;
}
