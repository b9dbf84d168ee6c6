// The engine and session API (binding names, docs/engine.md). Implemented in engine/engine.ts
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
  SessionStatus,
  SessionStore,
  SessionSummary,
  StepProcess,
  StepSafety,
  StoppedStepProcess,
  UncertainStepInfo,
} from '../spec/index.js';
import type { Jsonify, JsonStepFunction } from './json-output.js';
import type { MetadataChange } from './metadata.js';

/** What `waitFor` needs of a schema: zod schemas (and any Standard Schema with `safeParse`) fit. */
export interface AnswerSchema<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { message: string } };
}

export interface WaitForOptions<T> {
  /** The shape of the answer: a recorded answer is parsed with it, and its JSON Schema is journaled with the question. */
  schema: AnswerSchema<T>;
  /** The question, as shown to whoever answers. */
  prompt: string;
  /**
   * Keep this process waiting for the answer instead of ending the run: the lease is released
   * while it waits (so another process can answer), the store's `watch` (PostgreSQL) or a poll
   * wakes it, and the code continues with the answer. `timeoutMs` ends the wait as if `wait`
   * were off. Default: the run ends at once (`WaitingForInputError`), status `waiting`.
   */
  wait?: boolean | { timeoutMs?: number; pollMs?: number };
}

export interface SleepOptions {
  /**
   * The key of the step that records the wake time (default `sleep`; occurrences count as for
   * any step). Give one when the same code sleeps in several places that may move.
   */
  key?: string;
}

export interface RespondOptions {
  /** Who answered (a user name, an email), journaled with the answer. */
  answeredBy?: string | null;
  /** Which question of that name when it was asked more than once (default: the open one). */
  occurrence?: number;
}

export type UncertainDecision = 'rerun' | 'skip' | 'abort';

/**
 * How a reopened session matches what the code asks for against what its journal recorded.
 * - `ordered` (the default): every journaled operation (steps, messages, records, labelled
 *   checkpoints) replays in code order from the journal, returning what was recorded and
 *   appending nothing, until the code passes the recorded end; then it runs live. Asking for
 *   something else than what was recorded at that point is a `ReplayMismatchError`. This is
 *   the durable-execution model of DBOS, Inngest and Temporal: re-run the same function.
 * - `keyed`: steps are memoized by key and occurrence (recorded ones in recorded order); every
 *   other write appends. For resumable state machines that look at `session.state` to decide
 *   what to do next (Conclave's own modes), which may legitimately take another course on
 *   resume (start at another chunk, add a resume message).
 */
export type ReplayPolicy = 'ordered' | 'keyed';

export interface RetryPolicy {
  /** Total attempts, the first one included (default 1: no retry). */
  attempts: number;
  /** Delay before attempt n+1: initialMs * factor^(n-1), capped at maxMs (default 1000, 2, 30000). */
  backoff?: { initialMs?: number; factor?: number; maxMs?: number };
  /** Whether an error is worth another attempt (default: `isRetryableByDefault`). */
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

/** What an attempt's start records besides its number (see `prepareAttempt`). */
export interface AttemptStart {
  process?: StepProcess;
  stoppedProcess?: StoppedStepProcess;
}

/** What `beforeRetry` is told about the attempt about to run. */
export interface RetryContext {
  /** The attempt about to run (1-based, counted over the whole step like `StepContext.attempt`). */
  attempt: number;
  /** Its place in the current retry budget: 3 of `maxAttempts` (a failure resumed later starts a new budget at 1). */
  attemptInBudget: number;
  /** `retry.attempts` (1 without a retry policy). */
  maxAttempts: number;
  /** Errors of the earlier attempts of this step, oldest first; the last one is why this retry happens. */
  previousFailures: ErrorInfo[];
  /** Aborted when the session is interrupted. */
  signal: AbortSignal;
}

/** A step's function: may be sync or async. */
export type StepFunction<T> = (context: StepContext) => T | Promise<T>;

/** Turns a step's output into JSON for the journal and back; the step then returns `T` itself. */
export interface StepCodec<T> {
  encode(value: T): JsonValue;
  decode(value: JsonValue): T;
}

interface BaseStepOptions {
  /** `idempotent` (default; LLM calls, reads) re-runs when uncertain; `unsafe` asks first. */
  safety?: StepSafety;
  retry?: RetryPolicy;
  /**
   * Runs between a failed attempt and the next one, before the backoff wait: in this process
   * right after the failure is journaled, and when a reopened session goes on with a failed
   * step. What it journals (a fixing step, a checkpoint) comes before the next attempt's start,
   * so an interrupt while it runs never leaves that attempt uncertain; the backoff counts from
   * the failure, so its time is not waited twice. An error it throws ends the step as it is
   * (the failure stays journaled and a resume calls it again).
   */
  beforeRetry?: (context: RetryContext) => void | Promise<void>;
  /**
   * Keyed replay only: the step is new in a plan edited since the journal was written (a
   * workflow step inserted before steps that already ran). It runs although recorded steps
   * that come after its place are still to be asked for; without it that is a
   * `ReplayMismatchError`. Only for callers whose keys are stable ids.
   */
  inserted?: boolean;
  /**
   * Marks a checkpoint with this label (given the attempt that passed) in the same durable
   * append as the step's completion: one disk write instead of two. Not marked when the step
   * is replayed from the journal or skipped, nor when a checkpoint with that label exists.
   */
  checkpointOnCompletion?: (attempt: number) => string;
  /**
   * Group commit: the step's completion (and its `checkpointOnCompletion` checkpoint) is not
   * written on its own but goes in the session's next durable append, which is always written
   * before anything else runs: the next step's start (durable before its function runs), a
   * checkpoint, `flush()`, or the session's completion, failure, interrupt or close. A step that
   * is followed by another step is then one disk write instead of two. Until that write, a crash
   * leaves the step started and not completed (uncertain), exactly as a crash during its own
   * completion's write would. Not for a step whose output is acted on outside the session before
   * the next step starts: call `flush()` first. Ignored for outputs stored as blobs.
   */
  completionWithNextAppend?: boolean;
  /**
   * Called right before each attempt's start is journaled; what it returns is journaled with the
   * start: the process the attempt will run its command in (started, and held until the start
   * is durable, so a command never runs without its record), and an earlier attempt's command
   * that was stopped first. Its function runs once that start is durable.
   */
  prepareAttempt?: (attempt: { attempt: number; idempotencyKey: string }) => Promise<AttemptStart | undefined>;
  /** Injected for tests: how to wait between attempts. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /**
   * The concurrent branch this step runs in (a member of a parallel group, an item of a map),
   * journaled with its start. Keyed replay checks the order of steps within each branch only,
   * so branches may interleave differently on every run. Ordered replay needs one sequence of
   * operations and does not support concurrent steps.
   */
  branch?: string;
}

/**
 * What happens to an unsafe step that started but never finished. Without `onUncertain` an
 * `UncertainStepError` is thrown. A handler may answer `skip`, so it comes with the value the
 * skipped step returns (`skipValue`, required, of the step's own type).
 */
type UncertainHandling<T> =
  | { onUncertain?: undefined; skipValue?: T }
  | {
      onUncertain: (step: UncertainStepInfo) => NeverSkip | Promise<NeverSkip>;
      skipValue?: T;
    }
  | {
      onUncertain: (step: UncertainStepInfo) => UncertainDecision | Promise<UncertainDecision>;
      skipValue: T;
    };
type NeverSkip = Exclude<UncertainDecision, 'skip'>;

export type StepOptions<T> = BaseStepOptions & UncertainHandling<T> & { codec?: undefined };
export type CodecStepOptions<T> = BaseStepOptions & UncertainHandling<T> & { codec: StepCodec<T> };

export interface CreateSessionInput {
  title: string;
  /** Free-form kind of work, shown in listings (default `custom`). */
  mode?: SessionMode;
  /** A session id chosen by the caller (`createSessionId()`); default: a new one. */
  id?: string;
  workspaceDir?: string | null;
  parentId?: string | null;
  branchPoint?: number | null;
  specHash?: string | null;
  options?: Record<string, JsonValue>;
  git?: SessionHeader['git'];
  /**
   * Set-up events written in the same first batch as `session-created` (e.g. the task
   * message). They are not operations of the session's code: a replay does not expect them.
   */
  initialEvents?: EventInput[];
  /** How the session replays when reopened in this process (default `ordered`). */
  replay?: ReplayPolicy;
}

export interface OpenSessionOptions {
  /**
   * Crashes in a row without progress after which the session is not opened again (default
   * 10). Clean interrupts and failures never count; a completed step or a checkpoint resets it.
   */
  maxRecoveries?: number;
  /** Open even past `maxRecoveries`. */
  force?: boolean;
  /** Open without counting a recovery or changing the status (e.g. to fork from it). */
  countRecovery?: boolean;
  /** Default `ordered`. */
  replay?: ReplayPolicy;
}

export interface ForkOptions {
  /** The checkpoint seq to branch from (default: the last event). */
  at?: number;
  title: string;
  mode?: SessionMode;
  options?: Record<string, JsonValue>;
  /** Default: the parent session's policy. */
  replay?: ReplayPolicy;
}

/** `engine.run`: the session to resume (its id) or to create (with an optional caller-chosen id). */
export type RunTarget = string | CreateSessionInput;

export interface RunOptions extends Omit<OpenSessionOptions, 'replay' | 'countRecovery'> {}

export interface Session {
  readonly id: string;
  /** The folded state of the whole journal, including events not yet committed. */
  readonly state: SessionState;
  /** The lease epoch this writer holds. */
  readonly epoch: number;
  /** Aborted by `interrupt()`; steps receive it. */
  readonly signal: AbortSignal;
  readonly replayPolicy: ReplayPolicy;
  /** Whether recorded operations are still ahead of the code (ordered replay). */
  readonly replaying: boolean;
  /** Seq of the last event known durable (`state.lastSeq` may be ahead: events not yet appended). */
  readonly committedSeq: number;

  /**
   * A durable step: runs `fn` once and journals its output; a replay returns the recorded
   * output without calling `fn`. Returns the output as the journal keeps it (`Jsonify<T>`),
   * or with a `codec`, the decoded `T`.
   */
  step<T>(key: string, fn: StepFunction<T>, options: CodecStepOptions<T>): Promise<T>;
  step<T>(key: string, fn: JsonStepFunction<T, StepFunction<T>>, options?: StepOptions<T>): Promise<Jsonify<T>>;
  /** Joins the current batch; durable at the next checkpoint or step. Replays return the recorded message. */
  addMessage(message: MessageInput): Message;
  /** Joins the current batch any other event (data-set, usage-recorded, file-snapshot-taken...). */
  record(event: EventInput): JournalEvent;
  /**
   * Asks a person and waits for the answer: journals the question (a replayed operation like
   * any other), and unless `wait` says otherwise ends the run with `WaitingForInputError`,
   * status `waiting`. Once `engine.respond` recorded the answer, running the job again
   * returns it here, parsed with `schema`.
   */
  waitFor<T>(key: string, options: WaitForOptions<T>): Promise<T>;
  /**
   * A durable timer: journals the wake time (a step, so a replay keeps the first run's time),
   * marks the session `sleeping` until then and waits. Reopened before the wake time, it
   * sleeps only what is left; after it, it returns at once. Interrupted while it sleeps, the
   * session stays `sleeping` with its wake time, for whoever recovers it (`engine.recover`).
   */
  sleep(ms: number, options?: SleepOptions): Promise<void>;
  /** `sleep` until a time (a `Date` or an ISO string); a time already past returns at once. */
  sleepUntil(time: Date | string, options?: SleepOptions): Promise<void>;
  /** Commits pending events durably and marks a checkpoint; returns its seq. */
  checkpoint(label?: string): Promise<number>;
  /** Commits pending events durably without a checkpoint mark. */
  flush(): Promise<number>;
  /** A new session whose journal is this one's up to `at`, with parentId/branchPoint set. */
  fork(options: ForkOptions): Promise<Session>;
  /** Marks the session completed; later writes are refused (`SessionFinishedError`). */
  complete(): Promise<void>;
  /** Marks the session failed; later writes are refused until it is opened again. */
  fail(error: unknown): Promise<void>;
  /** Aborts in-flight steps, journals `interrupted` and commits. */
  interrupt(reason?: string): Promise<void>;
  /** Commits what is pending and releases the lease. */
  close(): Promise<void>;
  /** The checkpoints so far. */
  checkpoints(): CheckpointRecord[];
}

/** A registered job: the code a session of it runs, given the input it was started with. */
export type RegisteredJob<I extends JsonValue, R> = (session: Session, input: I) => R | Promise<R>;

export interface RegisterOptions<I extends JsonValue> {
  /**
   * The version of the job's code (`"3"`, a git commit, a date). Sessions record it when they
   * start; `recover` resumes only sessions recorded under this version (or one `versions` lets
   * it take), since a replay needs the code that wrote the journal.
   */
  version: string;
  /** The title of a started session (default: the job's name). */
  title?: (input: I) => string;
}

export interface StartOptions extends RunOptions {
  /** The session's id (`createSessionId()`), to know it before the run ends; default: a new one. */
  id?: string;
  /** Default: the job's `title`, else its name. */
  title?: string;
}

export interface RecoverOptions {
  /**
   * Recorded versions this process's code may resume as well, per job: `{ nightly: ['2'] }` when
   * version 3 replays what version 2 recorded (a migration). Others are left (`other-version`).
   */
  versions?: Record<string, readonly string[]>;
  /** Only these sessions; a session named here is resumed even when it waits for a decision. */
  ids?: readonly string[];
  /** How many sessions run at once (default 8). */
  concurrency?: number;
  maxRecoveries?: number;
}

/** Why `recover` left a session of a registered job alone. */
export type LeftReason =
  /** Its job is not registered in this process. */
  | 'not-registered'
  /** It was recorded under another version of the job (`version`) than the one registered (`runningVersion`). */
  | 'other-version'
  /** It sleeps until `wakeAt`, still ahead. */
  | 'not-due'
  /** An unsafe step of it was uncertain and its job gave no decision (or said abort): a person decides. */
  | 'needs-decision'
  /** Another process holds it (resumed it first). */
  | 'in-use';

export interface RecoveryReport {
  /** The sessions resumed, with the status each ended in and the error it ended with (null when it completed). */
  recovered: { id: string; job: string; version: string; status: SessionStatus; error: ErrorInfo | null }[];
  left: {
    id: string;
    job: string;
    version: string;
    reason: LeftReason;
    runningVersion?: string;
    wakeAt?: string;
  }[];
  /** The earliest wake time of a sleeping session left for later: when to recover again. */
  nextWakeAt: string | null;
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
  /**
   * Create-or-resume in one call: opens the session `target` names (an id, or a create input
   * whose `id` exists already; else creates it), runs `job` with it while holding the lease,
   * completes it when `job` returns, records an interruption or a failure when it throws, and
   * closes it. Re-running the same `job` after a crash replays what was recorded (ordered).
   */
  run<R>(target: RunTarget, job: (session: Session) => R | Promise<R>, options?: RunOptions): Promise<R>;
  /**
   * Answers the open `waitFor(key)` question of a session (checked against the JSON Schema
   * journaled with it; `InputRejectedError` when it does not fit or nothing is asked), and
   * journals it with who answered and when. The session becomes `interrupted`: ready to run
   * again, unless a process is waiting for it (`wait`), which continues on its own.
   */
  respond(id: string, key: string, value: JsonValue, options?: RespondOptions): Promise<void>;
  /**
   * Renames, tags, pins or archives a session (a `metadata-changed` event, nothing when the change
   * changes nothing) and returns its summary. Takes the writer lease: SessionLockedError while
   * a live process runs it. A name taken by another session is refused (UsageError naming it).
   */
  changeMetadata(id: string, change: MetadataChange): Promise<SessionSummary>;
  /** Takes the writer lease and folds the journal (from the latest snapshot). */
  openSession(id: string, options?: OpenSessionOptions): Promise<Session>;
  /** Folds a session without taking the lease (show, export, planning). */
  readSession(id: string, options?: { at?: number }): Promise<SessionState>;
  readEvents(id: string, range?: { fromSeq?: number; toSeq?: number }): AsyncIterable<JournalEvent>;
  /**
   * Summaries newest first; `running` sessions without a live lease show as `interrupted`.
   * Sessions in the trash (`changeMetadata(id, { trashed: true })`) are left out.
   */
  listSessions(query?: SessionQuery): Promise<SessionSummary[]>;
  /** The sessions in the trash, the longest there first (`trashedAt`). */
  listTrash(): Promise<SessionSummary[]>;
  /** Refuses a session held by a live process unless force. */
  deleteSession(id: string, options?: { force?: boolean }): Promise<void>;
  /** Resolves a full id, a session's name, or a unique prefix of at least 6 characters. */
  resolveSessionId(reference: string): Promise<string>;
  /** Names a job with the version of its code, for `start` and `recover` (docs/engine.md). */
  register<I extends JsonValue, R>(name: string, job: RegisteredJob<I, R>, options: RegisterOptions<I>): void;
  /**
   * Runs a new session of a registered job with `input` (journaled in its header with the job's
   * name and version), as `run` does, and resolves to the job's result.
   */
  start<R = unknown>(name: string, input: JsonValue, options?: StartOptions): Promise<R>;
  /**
   * Resumes every session of a registered job that can go on: interrupted by a crash or a stop,
   * sleeping past its wake time, or answered after waiting for input; whose lease is free and
   * whose recorded version this code runs. Resolves when the runs it started have ended.
   */
  recover(options?: RecoverOptions): Promise<RecoveryReport>;
  close(): Promise<void>;
}
