// A live session: one writer holding the lease, folding its own events as it appends
// them. Owns the durable step protocol (docs/architecture.md#durable-steps-and-replay): start record durable before the
// function runs, completed steps replayed without calling it, uncertain steps decided
// by their declared safety, attempts journaled; and the replay policy (types.ts): in
// `ordered` replay every operation the code asks for is matched against the journal's
// recorded operations, in order, until the code passes the recorded end.
import { AsyncLocalStorage } from 'node:async_hooks';
import { type Folder, summarize } from '../journal/fold.js';
import type { CheckpointRecord, SessionState, StepRecord } from '../journal/state.js';
import {
  type ErrorInfo,
  type EventInput,
  type FailedAttempt,
  InputRejectedError,
  InterruptedError,
  type JournalEvent,
  type JsonValue,
  type Message,
  type MessageInput,
  parseJournalEvent,
  ReplayMismatchError,
  SessionDeletedError,
  SessionFinishedError,
  type SessionLease,
  SessionNotFoundError,
  type SessionStore,
  StepAbortedError,
  StepFailedError,
  StepOutputError,
  type StepSafety,
  type StepScope,
  UncertainStepError,
  type UncertainStepInfo,
  UsageError,
  WaitingForInputError,
} from '../spec/index.js';
import { isRetryableByDefault, toErrorInfo } from './error-info.js';
import { type Jsonify, type JsonStepFunction, toJournalJson } from './json-output.js';
import { quotedQuestion } from './quoted-question.js';
import { describeOperation, ReplayLog, sameJson } from './replay-log.js';
import { backoffDelay, sleep as defaultSleep } from './retry.js';
import type {
  CodecStepOptions,
  ForkOptions,
  ReplayPolicy,
  Session,
  SleepOptions,
  StepCodec,
  StepFunction,
  StepOptions,
  WaitForOptions,
} from './types.js';
import { acquireLeaseInHandover, answerSchemaJson, waitForAnswer } from './wait.js';

export interface SessionContext {
  store: SessionStore;
  holder: { pid: number; host: string };
  redact: <T>(value: T) => T;
  now: () => Date;
  snapshotEvery: number;
  blobThreshold: number;
  fork(parent: LiveSession, options: ForkOptions): Promise<Session>;
}

// 3: the state keeps the recovery streak (older snapshots are ignored and the journal replayed).
// 4: the state keeps the questions asked with waitFor (`inputs`).
// 5: steps carry the concurrent branch they ran in (`branch`).
export const SNAPSHOT_FORMAT_VERSION = 5;

const MAX_TIMER_MS = 2 ** 31 - 1;

const LIFECYCLE_TYPES = new Set<string>(['session-created', 'session-resumed', 'status-changed']);

/** Which step's function is running (writes inside it belong to that step). */
const stepScopes = new AsyncLocalStorage<{ session: LiveSession; scope: StepScope }>();

const isAbort = (error: unknown, signal: AbortSignal): boolean =>
  signal.aborted ||
  (error instanceof Error && (error.name === 'AbortError' || (error as { reason?: unknown }).reason === 'aborted'));

/** Errors that end a replay before the code reached the recorded end: the session rewinds. */
const endsReplay = (error: unknown): boolean =>
  UncertainStepError.isInstance(error) || StepAbortedError.isInstance(error) || ReplayMismatchError.isInstance(error);

type AnyStepOptions<T> = StepOptions<T> | CodecStepOptions<T>;

export class LiveSession implements Session {
  readonly id: string;
  readonly replayPolicy: ReplayPolicy;
  readonly #context: SessionContext;
  readonly #folder: Folder;
  #lease: SessionLease;
  readonly #abort = new AbortController();
  /** Ordered replay only: the recorded operations and how far the code has come. */
  #log: ReplayLog | null;
  #pending: JournalEvent[] = [];
  #committedSeq: number;
  #snapshotSeq: number;
  #commitChain: Promise<unknown> = Promise.resolve();
  #broken: unknown = null;
  #closed = false;
  readonly #occurrences = new Map<string, number>();
  /** waitFor occurrences per key (a namespace apart from the steps'). */
  readonly #inputOccurrences = new Map<string, number>();
  /** Keyed replay: index in state.steps of the next recorded step replay expects. */
  #replayCursor = 0;
  /** Keyed replay of concurrent branches: the same cursor per branch. */
  readonly #branchCursors = new Map<string, number>();
  readonly #consumed = new Set<StepRecord>();
  /** Labels of state.checkpoints as far as indexed (a step's completion checkpoint is marked once per label). */
  #labelIndex: { of: CheckpointRecord[] | null; indexed: number; labels: Set<string | null> } = {
    of: null,
    indexed: 0,
    labels: new Set(),
  };
  /** Position of each step in state.steps (steps are only ever appended), so replay stays linear. */
  readonly #positions = new Map<StepRecord, number>();

  /** `pending`: events already folded into `folder` but not yet appended (a new session's first batch). */
  constructor(
    context: SessionContext,
    folder: Folder,
    lease: SessionLease,
    snapshotSeq: number,
    options: { pending?: JournalEvent[]; policy: ReplayPolicy; log?: ReplayLog },
  ) {
    this.#context = context;
    this.#folder = folder;
    this.#lease = lease;
    this.id = folder.state.header.id;
    this.#pending = [...(options.pending ?? [])];
    this.#committedSeq = folder.state.lastSeq - this.#pending.length;
    this.#snapshotSeq = snapshotSeq;
    this.replayPolicy = options.policy;
    this.#log = options.policy === 'ordered' ? (options.log ?? new ReplayLog()) : null;
  }

  /**
   * Engine only: writes a new session's first events (set-up, or a fork's copied journal)
   * outside of any replay, then lets an ordered session replay the copied operations.
   */
  writeInitial(events: EventInput[]): JournalEvent[] {
    return events.map((input) => this.#append(input, null));
  }

  replayFrom(log: ReplayLog): void {
    if (this.#log) this.#log = log;
  }

  /** Engine only: journals a resume of an unfinished session (and its return to running). */
  async resumed(details: { recovery: number; pid: number; host: string; crashed: boolean }): Promise<void> {
    this.#append({ type: 'session-resumed', ...details }, null);
    if (this.state.status !== 'running') {
      this.#append({ type: 'status-changed', status: 'running', reason: 'resumed', error: null }, null);
    }
    await this.flush();
  }

  get state(): SessionState {
    return this.#folder.state;
  }

  get epoch(): number {
    return this.#lease.epoch;
  }

  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  get replaying(): boolean {
    return this.#log?.replaying ?? false;
  }

  /** Seq of the last event known durable. */
  get committedSeq(): number {
    return this.#committedSeq;
  }

  checkpoints(): CheckpointRecord[] {
    return [...this.state.checkpoints];
  }

  #assertWritable(): void {
    if (this.#closed) throw new UsageError(`Session ${this.id} is closed; open it again to write.`);
    if (this.#broken) throw this.#broken;
  }

  /** New operations are refused once the session completed or failed (replays are not new). */
  #assertUnfinished(operation: string): void {
    const status = this.state.status;
    if (status === 'completed' || status === 'failed') {
      throw new SessionFinishedError({ sessionId: this.id, status, operation });
    }
  }

  /** The step whose function is running this code, if it is one of this session's. */
  #scope(): StepScope | null {
    const current = stepScopes.getStore();
    return current && current.session === this ? current.scope : null;
  }

  /** The ordered log when this call is an operation of the code (not inside a step's function). */
  #orderedLog(): ReplayLog | null {
    return this.#log && this.#scope() === null ? this.#log : null;
  }

  #mismatch(log: ReplayLog, requested: string, requestedKey: string | null = null): ReplayMismatchError {
    const next = log.peek();
    const error = new ReplayMismatchError({
      sessionId: this.id,
      position: log.position,
      expected: next ? describeOperation(next) : null,
      requested,
      expectedKey:
        next && 'key' in next && typeof next.key === 'string' && next.type.startsWith('step-') ? next.key : null,
      requestedKey,
    });
    this.#rewind();
    return error;
  }

  /** A failed replay leaves the session as it was opened: the next call replays from the start. */
  #rewind(): void {
    this.#log?.rewind();
    this.#occurrences.clear();
    this.#inputOccurrences.clear();
  }

  /** Appends an event to the pending batch (numbered, stamped, scrubbed and validated). */
  #append(input: EventInput, scope: StepScope | null): JournalEvent {
    const event = parseJournalEvent(
      this.#context.redact({
        ...input,
        seq: this.state.lastSeq + 1,
        at: this.#context.now().toISOString(),
        ...(scope ? { within: scope } : {}),
      }),
    );
    this.#folder.apply(event);
    this.#pending.push(event);
    return event;
  }

  record(input: EventInput): JournalEvent {
    this.#assertWritable();
    if (LIFECYCLE_TYPES.has(input.type)) {
      throw new UsageError(
        `"${input.type}" events are written by the engine itself; use complete(), fail() or interrupt().`,
      );
    }
    const log = this.#orderedLog();
    if (log?.replaying) return this.#replayRecord(log, input);
    this.#assertUnfinished(`a ${input.type} event`);
    const event = this.#append(input, this.#scope());
    if (log) log.append(event);
    return event;
  }

  /** Ordered replay of a write: the recorded event when it is the same, else a mismatch. */
  #replayRecord(log: ReplayLog, input: EventInput): JournalEvent {
    const recorded = log.peek() as JournalEvent;
    // Invalid input fails as it would live (a ZodError), and the replay position does not move.
    const candidate = parseJournalEvent(this.#context.redact({ ...input, seq: recorded.seq, at: recorded.at }));
    if (!sameJson(candidate, recorded)) throw this.#mismatch(log, describeOperation(candidate));
    log.advance();
    return recorded;
  }

  addMessage(message: MessageInput): Message {
    const event = this.record({ type: 'message-added', message });
    return (event as Extract<JournalEvent, { type: 'message-added' }>).message;
  }

  flush(): Promise<number> {
    const run = this.#commitChain.then(() => this.#commitPending());
    this.#commitChain = run.catch(() => undefined);
    return run;
  }

  async checkpoint(label?: string): Promise<number> {
    this.#assertWritable();
    const log = this.#orderedLog();
    if (log?.replaying) {
      const next = log.peek();
      if (next?.type === 'checkpoint-marked' && next.label === (label ?? null)) {
        log.advance();
        await this.flush();
        return next.seq;
      }
      // An unlabelled checkpoint with nothing pending recorded nothing: nothing to match.
      if (label === undefined) {
        await this.flush();
        return log.passedSeq || this.#committedSeq;
      }
      throw this.#mismatch(log, `checkpoint "${label}"`);
    }
    if (this.#pending.length === 0 && label === undefined) {
      await this.flush();
      return this.#committedSeq;
    }
    this.#assertUnfinished(label === undefined ? 'a checkpoint' : `checkpoint "${label}"`);
    const marker = this.#append({ type: 'checkpoint-marked', label: label ?? null }, this.#scope());
    if (log) log.append(marker);
    await this.flush();
    return marker.seq;
  }

  async #commitPending(): Promise<number> {
    if (this.#broken) throw this.#broken;
    if (this.#pending.length === 0) return this.#committedSeq;
    const events = this.#pending;
    this.#pending = [];
    try {
      await this.#context.store.append(this.id, {
        expectedSeq: this.#committedSeq,
        epoch: this.#lease.epoch,
        events,
        summary: summarize(this.state),
      });
    } catch (error) {
      // The in-memory state is now ahead of the journal: this writer must stop. A session this
      // writer holds that the store no longer has was deleted from under it (its folder removed
      // by hand): that is said as such, with what went with it.
      this.#broken = SessionNotFoundError.isInstance(error)
        ? new SessionDeletedError(
            this.id,
            {
              messages: this.state.messages.length,
              steps: this.state.steps.length,
              costUsd: this.state.usage.costUsd,
              location: error.location,
            },
            { cause: error },
          )
        : error;
      throw this.#broken;
    }
    this.#committedSeq = events.at(-1)?.seq ?? this.#committedSeq;
    if (this.#committedSeq - this.#snapshotSeq >= this.#context.snapshotEvery && this.#pending.length === 0) {
      this.#snapshotSeq = this.#committedSeq;
      // A snapshot is derived data that only makes opening faster: failing to write one
      // (a full disk, say) must not fail the append the journal already holds.
      // An ordered session's replay log goes with it (copied: the code may go on while it is written).
      const operations = this.#log ? { operations: [...this.#log.operations] } : {};
      await this.#context.store
        .putSnapshot(this.id, {
          seq: this.#committedSeq,
          formatVersion: SNAPSHOT_FORMAT_VERSION,
          state: this.state,
          ...operations,
        })
        .catch(() => undefined);
    }
    return this.#committedSeq;
  }

  // ---- durable steps -------------------------------------------------------

  step<T>(key: string, fn: StepFunction<T>, options: CodecStepOptions<T>): Promise<T>;
  step<T>(key: string, fn: JsonStepFunction<T, StepFunction<T>>, options?: StepOptions<T>): Promise<Jsonify<T>>;
  async step<T>(key: string, fn: StepFunction<T>, options: AnyStepOptions<T> = {}): Promise<unknown> {
    this.#assertWritable();
    if (key.length === 0) throw new UsageError('A step key must not be empty.');
    const scope = this.#scope();
    if (options.branch !== undefined) this.#assertBranch(key, options.branch, scope);
    const occurrence = (this.#occurrences.get(key) ?? 0) + 1;
    this.#occurrences.set(key, occurrence);
    const recorded = this.#folder.step(key, occurrence);
    const log = this.#orderedLog();
    // A final failure the code went on from replays as that failure: when more was recorded after
    // it, or when the session completed after it (the code caught it and finished).
    let wentOn = this.state.status === 'completed';
    try {
      if (log?.replaying) {
        const next = log.peek();
        const matches =
          next !== undefined &&
          (next.type === 'step-started' || next.type === 'step-skipped') &&
          next.key === key &&
          next.occurrence === occurrence;
        if (!matches) throw this.#mismatch(log, `step "${key}" #${occurrence}`, key);
        log.advance();
        wentOn ||= log.replaying;
      } else if (!log && scope === null) {
        this.#checkKeyedOrder(key, recorded, options.inserted === true, options.branch ?? null);
      }
      if (!recorded) this.#assertUnfinished(`step "${key}"`);
      const replayedFailure = recorded?.status === 'failed' && !recorded.willRetry && wentOn;
      return await this.#runStep(key, occurrence, scope, recorded, replayedFailure, fn, options);
    } catch (error) {
      if (endsReplay(error)) {
        if (log) this.#rewind();
        else if (this.#occurrences.get(key) === occurrence) this.#occurrences.set(key, occurrence - 1);
      }
      throw error;
    }
  }

  async #runStep<T>(
    key: string,
    occurrence: number,
    scope: StepScope | null,
    recorded: StepRecord | undefined,
    replayedFailure: boolean,
    fn: StepFunction<T>,
    options: AnyStepOptions<T>,
  ): Promise<unknown> {
    if (recorded?.status === 'completed') return this.#decodeRecorded(recorded, options);
    if (recorded?.status === 'skipped') {
      if (recorded.output !== undefined) return this.#decode(recorded.output, options);
      return options.skipValue === undefined
        ? undefined
        : this.#decode(this.#encode(key, options.skipValue, options), options);
    }
    if (replayedFailure && recorded) {
      throw new StepFailedError({
        sessionId: this.id,
        key,
        occurrence,
        attempts: failedAttempts(recorded),
        replayed: true,
      });
    }

    const safety = options.safety ?? recorded?.safety ?? 'idempotent';
    let attempt = 1;
    let roundStart = 1;
    if (recorded) {
      const last = recorded.attempts.at(-1);
      if (recorded.status === 'started' && last) {
        // Uncertain: started, no outcome. Idempotent steps run again; unsafe ones need a decision.
        attempt = last.attempt;
        if (safety === 'unsafe') {
          const info = this.#uncertainInfo(recorded, last.attempt, last.startedAt);
          const decision = options.onUncertain ? await options.onUncertain(info) : null;
          if (decision === null) throw new UncertainStepError(info);
          if (decision === 'abort') throw new StepAbortedError(this.id, key);
          if (decision === 'skip') return this.#skip(key, occurrence, scope, options);
        }
        roundStart = this.#roundStart(recorded);
      } else if (recorded.status === 'failed' && last) {
        attempt = last.attempt + 1;
        // A final failure being resumed gets a fresh retry budget; a pending retry continues its count
        // after what is left of its backoff.
        roundStart = recorded.willRetry ? this.#roundStart(recorded) : attempt;
        await this.#betweenAttempts(options, {
          attempt,
          roundStart,
          previousFailures: failuresOf(recorded),
          failedAt: last.failedAt ? Date.parse(last.failedAt) : null,
          backoff: recorded.willRetry,
        });
      }
    }
    return this.#runAttempts(key, occurrence, scope, safety, attempt, roundStart, fn, options);
  }

  async #skip<T>(key: string, occurrence: number, scope: StepScope | null, options: AnyStepOptions<T>) {
    if (options.skipValue === undefined) {
      throw new UsageError(`Step "${key}" was skipped but has no skipValue to return; give the step one.`);
    }
    const output = this.#encode(key, options.skipValue, options);
    this.#append(
      {
        type: 'step-skipped',
        key,
        occurrence,
        reason: 'uncertain step skipped by choice',
        ...(output === undefined ? {} : { output }),
      },
      scope,
    );
    await this.flush();
    return this.#decode(output, options);
  }

  /** The `beforeRetry` hook, then what is left of the backoff since the failure. */
  async #betweenAttempts<T>(
    options: AnyStepOptions<T>,
    next: {
      attempt: number;
      roundStart: number;
      previousFailures: ErrorInfo[];
      failedAt: number | null;
      backoff: boolean;
    },
  ): Promise<void> {
    if (options.beforeRetry) {
      if (this.signal.aborted) throw new InterruptedError(this.id);
      try {
        await options.beforeRetry({
          attempt: next.attempt,
          attemptInBudget: next.attempt - next.roundStart + 1,
          maxAttempts: Math.max(1, options.retry?.attempts ?? 1),
          previousFailures: next.previousFailures,
          signal: this.signal,
        });
      } catch (error) {
        if (isAbort(error, this.signal))
          throw new InterruptedError(this.id, 'Interrupted between attempts.', { cause: error });
        throw error;
      }
    }
    if (!next.backoff || !options.retry) return;
    const elapsed = next.failedAt === null ? 0 : Math.max(0, this.#context.now().getTime() - next.failedAt);
    const remaining = Math.max(0, backoffDelay(options.retry, next.attempt - 1) - elapsed);
    await (options.sleep ?? defaultSleep)(remaining, this.signal).catch(() => {
      throw new InterruptedError(this.id);
    });
  }

  /** The attempt number that opened the current retry round (after the last final failure). */
  #roundStart(step: StepRecord): number {
    let start = step.attempts[0]?.attempt ?? 1;
    for (const attempt of step.attempts) {
      if (attempt.error !== null && !attempt.willRetry) start = attempt.attempt + 1;
    }
    return start;
  }

  /** A step's branch is a name, and only keyed replay can match steps that run concurrently. */
  #assertBranch(key: string, branch: string, scope: StepScope | null): void {
    if (branch.length === 0) throw new UsageError(`Step "${key}" names an empty branch; give the branch a name.`);
    if (this.#log && scope === null) {
      throw new UsageError(
        `Step "${key}" runs in branch "${branch}", but this session replays in code order, which needs one sequence of steps: open it with replay: 'keyed' to run steps concurrently.`,
      );
    }
  }

  /**
   * Keyed replay: recorded steps must still be asked for in their recorded order, within
   * their branch (concurrent branches interleave differently on every run). A step of the
   * main line comes after every branch before it has joined, so any recorded step it has
   * not reached is a divergence.
   */
  #checkKeyedOrder(key: string, recorded: StepRecord | undefined, inserted: boolean, branch: string | null): void {
    const steps = this.state.steps;
    if (recorded) {
      this.#consumed.add(recorded);
      const index = this.#positionOf(recorded);
      if (recorded.branch === null && index >= this.#replayCursor) this.#replayCursor = index + 1;
      if (recorded.branch !== null && index >= (this.#branchCursors.get(recorded.branch) ?? 0))
        this.#branchCursors.set(recorded.branch, index + 1);
      return;
    }
    if (inserted) return;
    // A new step while the journal still holds steps of its branch this run has not reached: the code diverged.
    const from = branch === null ? this.#replayCursor : (this.#branchCursors.get(branch) ?? 0);
    for (let index = from; index < steps.length; index += 1) {
      const pending = steps[index];
      if (pending && (branch === null || pending.branch === branch) && !this.#consumed.has(pending)) {
        throw new ReplayMismatchError({
          sessionId: this.id,
          position: index + 1,
          expected: `step "${pending.key}" #${pending.occurrence}`,
          requested: `step "${key}"`,
          expectedKey: pending.key,
          requestedKey: key,
        });
      }
    }
  }

  #positionOf(step: StepRecord): number {
    const steps = this.state.steps;
    for (let index = this.#positions.size; index < steps.length; index += 1) {
      const indexed = steps[index];
      if (indexed) this.#positions.set(indexed, index);
    }
    return this.#positions.get(step) ?? -1;
  }

  #uncertainInfo(step: StepRecord, attempt: number, startedAt: string): UncertainStepInfo {
    return {
      sessionId: this.id,
      key: step.key,
      occurrence: step.occurrence,
      attempt,
      safety: step.safety,
      idempotencyKey: step.idempotencyKey,
      startedAt,
      previousFailures: failuresOf(step),
      ...(step.attempts.at(-1)?.process ? { process: step.attempts.at(-1)?.process } : {}),
    };
  }

  async #runAttempts<T>(
    key: string,
    occurrence: number,
    scope: StepScope | null,
    safety: StepSafety,
    firstAttempt: number,
    roundStart: number,
    fn: StepFunction<T>,
    options: AnyStepOptions<T>,
  ): Promise<unknown> {
    const idempotencyKey = `${this.id}:${key}:${occurrence}`;
    const maxAttempts = Math.max(1, options.retry?.attempts ?? 1);
    const retryOn = options.retry?.retryOn ?? isRetryableByDefault;
    const log = scope === null ? this.#log : null;
    for (let attempt = firstAttempt; ; attempt += 1) {
      if (this.signal.aborted) throw new InterruptedError(this.id);
      const details = options.prepareAttempt ? await options.prepareAttempt({ attempt, idempotencyKey }) : undefined;
      const started = this.#append(
        {
          type: 'step-started',
          key,
          occurrence,
          attempt,
          safety,
          idempotencyKey,
          ...(options.branch !== undefined ? { branch: options.branch } : {}),
          ...(details?.process ? { process: details.process } : {}),
          ...(details?.stoppedProcess ? { stoppedProcess: details.stoppedProcess } : {}),
        },
        scope,
      );
      if (log) log.append(started);
      const record = this.#folder.step(key, occurrence);
      if (record && !this.#consumed.has(record)) {
        this.#consumed.add(record);
        const position = this.#positionOf(record) + 1;
        if (record.branch === null) this.#replayCursor = Math.max(this.#replayCursor, position);
        else this.#branchCursors.set(record.branch, Math.max(this.#branchCursors.get(record.branch) ?? 0, position));
      }
      await this.flush();
      const previousFailures = record ? failuresOf(record) : [];
      let output: JsonValue | undefined;
      try {
        const value = await stepScopes.run({ session: this, scope: { key, occurrence } }, () =>
          fn({ attempt, idempotencyKey, signal: this.signal, previousFailures }),
        );
        output = this.#encode(key, value, options);
      } catch (error) {
        if (isAbort(error, this.signal))
          throw new InterruptedError(this.id, 'Interrupted during a step.', { cause: error });
        const retryable = !StepOutputError.isInstance(error) && retryOn(error);
        const willRetry = retryable && attempt - roundStart + 1 < maxAttempts;
        this.#append(
          { type: 'step-failed', key, occurrence, attempt, error: toErrorInfo(error, retryable), willRetry },
          scope,
        );
        await this.flush();
        if (!willRetry) {
          const failed = this.#folder.step(key, occurrence);
          throw new StepFailedError(
            { sessionId: this.id, key, occurrence, attempts: failed ? failedAttempts(failed) : [] },
            { cause: error },
          );
        }
        const failed = this.#folder.step(key, occurrence);
        await this.#betweenAttempts(options, {
          attempt: attempt + 1,
          roundStart,
          previousFailures: failed ? failuresOf(failed) : [],
          failedAt: this.#context.now().getTime(),
          backoff: true,
        });
        continue;
      }
      const size = output === undefined ? 0 : JSON.stringify(output).length;
      if (output !== undefined && size > this.#context.blobThreshold) {
        // Blobs bypass the event's own scrubbing, so they are scrubbed here like every journaled event.
        const scrubbed = this.#context.redact(output);
        const blob = await this.#context.store.putBlob(Buffer.from(JSON.stringify(scrubbed), 'utf8'));
        this.#append({ type: 'step-completed', key, occurrence, attempt, outputBlob: blob }, scope);
        this.#markCompletion(options, attempt, scope, log);
        await this.flush();
        return this.#decode(scrubbed, options);
      }
      const completed = this.#append(
        { type: 'step-completed', key, occurrence, attempt, ...(output === undefined ? {} : { output }) },
        scope,
      );
      this.#markCompletion(options, attempt, scope, log);
      // Group commit: the completion rides with the session's next append (see the option).
      if (options.completionWithNextAppend !== true) await this.flush();
      // What the journal holds (scrubbed of secrets) is what every replay returns: so does this run.
      return this.#decode((completed as Extract<JournalEvent, { type: 'step-completed' }>).output, options);
    }
  }

  /** The step's completion checkpoint, pending with its completion so both go in one append. */
  #markCompletion<T>(
    options: AnyStepOptions<T>,
    attempt: number,
    scope: StepScope | null,
    log: ReplayLog | null,
  ): void {
    const label = options.checkpointOnCompletion?.(attempt);
    if (label === undefined || this.#hasCheckpointLabel(label)) return;
    const marker = this.#append({ type: 'checkpoint-marked', label }, scope);
    if (log) log.append(marker);
  }

  /** Whether a checkpoint with this label was marked: the labels are indexed as checkpoints are added (never removed). */
  #hasCheckpointLabel(label: string): boolean {
    const checkpoints = this.state.checkpoints;
    if (this.#labelIndex.of !== checkpoints) this.#labelIndex = { of: checkpoints, indexed: 0, labels: new Set() };
    const index = this.#labelIndex;
    for (; index.indexed < checkpoints.length; index.indexed += 1)
      index.labels.add(checkpoints[index.indexed]?.label ?? null);
    return index.labels.has(label);
  }

  /** The output as the journal keeps it; a StepOutputError when JSON would change its shape. */
  #encode<T>(key: string, value: T, options: AnyStepOptions<T>): JsonValue | undefined {
    const encoded = options.codec ? options.codec.encode(value) : value;
    const result = toJournalJson(encoded);
    if ('problem' in result) {
      throw new StepOutputError({ sessionId: this.id, key, ...result.problem });
    }
    return result.json;
  }

  #decode<T>(value: JsonValue | undefined, options: AnyStepOptions<T>): unknown {
    const codec = options.codec as StepCodec<T> | undefined;
    return codec ? codec.decode(value === undefined ? null : value) : value;
  }

  async #decodeRecorded<T>(step: StepRecord, options: AnyStepOptions<T>): Promise<unknown> {
    if (step.output !== undefined) return this.#decode(structuredClone(step.output), options);
    if (step.outputBlob !== undefined) {
      const content = await this.#context.store.getBlob(step.outputBlob);
      if (!content)
        throw new UsageError(
          `The recorded output of step "${step.key}" (blob ${step.outputBlob}) is missing from the store.`,
        );
      return this.#decode(JSON.parse(Buffer.from(content).toString('utf8')) as JsonValue, options);
    }
    return this.#decode(undefined, options);
  }

  // ---- waiting for a person --------------------------------------------------

  async waitFor<T>(key: string, options: WaitForOptions<T>): Promise<T> {
    this.#assertWritable();
    if (key.length === 0) throw new UsageError('A waitFor key must not be empty.');
    if (this.#scope() !== null) {
      throw new UsageError(
        `waitFor("${key}") inside the function of step "${this.#scope()?.key}": ask outside of steps (a step's function runs again when it is uncertain).`,
      );
    }
    const occurrence = (this.#inputOccurrences.get(key) ?? 0) + 1;
    this.#inputOccurrences.set(key, occurrence);
    const log = this.#orderedLog();
    if (log?.replaying) {
      const next = log.peek();
      if (!(next?.type === 'input-requested' && next.key === key && next.occurrence === occurrence)) {
        throw this.#mismatch(log, `waitFor "${key}" #${occurrence}`, key);
      }
      log.advance();
    } else if (!this.#folder.input(key, occurrence)) {
      this.#assertUnfinished(`waitFor "${key}"`);
      const requested = this.#append(
        { type: 'input-requested', key, occurrence, prompt: options.prompt, schema: answerSchemaJson(options.schema) },
        null,
      );
      if (log) log.append(requested);
    }
    let input = this.#folder.input(key, occurrence);
    if (input?.answer) return this.#parseAnswer(key, input.answer.value, options);

    if (this.state.status === 'running') {
      this.#append({ type: 'status-changed', status: 'waiting', reason: `waiting for "${key}"`, error: null }, null);
    }
    await this.flush();
    if (options.wait) {
      const waitOptions = options.wait === true ? {} : options.wait;
      await this.#awaitAnswer(key, occurrence, waitOptions);
      input = this.#folder.input(key, occurrence);
      if (input?.answer) return this.#parseAnswer(key, input.answer.value, options);
    }
    throw new WaitingForInputError({ sessionId: this.id, key, prompt: options.prompt });
  }

  #parseAnswer<T>(key: string, value: JsonValue, options: WaitForOptions<T>): T {
    const parsed = options.schema.safeParse(structuredClone(value));
    if (!parsed.success) {
      throw new InputRejectedError({
        sessionId: this.id,
        key,
        problem: `the recorded answer ${JSON.stringify(value)} does not fit the schema the code asks with now (${parsed.error.message})`,
      });
    }
    return parsed.data;
  }

  /**
   * Waits in this process for the answer: the lease is released meanwhile (the answer is
   * appended by whoever gives it), then taken again and the journal's new events folded in.
   */
  async #awaitAnswer(key: string, occurrence: number, options: { timeoutMs?: number; pollMs?: number }): Promise<void> {
    const store = this.#context.store;
    await this.#lease.release();
    try {
      await waitForAnswer(store, this.id, this.#committedSeq, key, occurrence, { ...options, signal: this.signal });
    } finally {
      // Whoever answered holds the lease while journaling the answer, and on PostgreSQL its
      // notification arrives before it lets go.
      this.#lease = await acquireLeaseInHandover(store, this.id, { holder: this.#context.holder });
      for await (const event of store.read(this.id, { fromSeq: this.#committedSeq + 1 })) {
        this.#folder.apply(event);
        this.#committedSeq = event.seq;
      }
    }
    const answered = this.#folder.input(key, occurrence);
    if (answered?.answer && this.state.status !== 'running') {
      const reason = `${quotedQuestion(answered.prompt)} answered`;
      this.#append({ type: 'status-changed', status: 'running', reason, error: null }, null);
      await this.flush();
    }
  }

  // ---- durable timers ----------------------------------------------------------

  async sleep(ms: number, options: SleepOptions = {}): Promise<void> {
    if (!Number.isFinite(ms) || ms < 0) {
      throw new UsageError(`sleep(${ms}): give a number of milliseconds, 0 or more.`);
    }
    return this.#sleepUntil(() => new Date(this.#context.now().getTime() + ms), options);
  }

  async sleepUntil(time: Date | string, options: SleepOptions = {}): Promise<void> {
    const wakeAt = typeof time === 'string' ? new Date(time) : time;
    if (Number.isNaN(wakeAt.getTime())) {
      throw new UsageError(
        `sleepUntil(${JSON.stringify(time)}): give a Date or an ISO time such as 2026-12-01T09:00:00Z.`,
      );
    }
    return this.#sleepUntil(() => wakeAt, options);
  }

  /**
   * The wake time is a step's output, so it is decided once; the wait itself is journaled as the
   * `sleeping` status, which listings show and `engine.recover` wakes once the time has come.
   */
  async #sleepUntil(wakeTime: () => Date, options: SleepOptions): Promise<void> {
    const key = options.key ?? 'sleep';
    if (this.#scope() !== null) {
      throw new UsageError(
        `sleep("${key}") inside the function of step "${this.#scope()?.key}": sleep outside of steps (a step's function runs again when it is uncertain).`,
      );
    }
    const { wakeAt } = await this.step(key, () => ({ wakeAt: wakeTime().toISOString() }));
    // More was recorded after it: this sleep ended in an earlier run.
    if (this.replaying) return;
    let left = Date.parse(wakeAt) - this.#context.now().getTime();
    if (left <= 0) return;
    if (this.state.status === 'running') {
      this.#append(
        { type: 'status-changed', status: 'sleeping', reason: `sleeping until ${wakeAt}`, error: null, wakeAt },
        null,
      );
    }
    await this.flush();
    try {
      // setTimeout holds at most 2^31 - 1 ms (about 24 days): longer sleeps wait in parts.
      while (left > 0) {
        await defaultSleep(Math.min(left, MAX_TIMER_MS), this.signal);
        left = Date.parse(wakeAt) - this.#context.now().getTime();
      }
    } catch (error) {
      throw new InterruptedError(this.id, `Interrupted while sleeping until ${wakeAt}.`, { cause: error });
    }
    if (this.state.status === 'sleeping') {
      this.#append({ type: 'status-changed', status: 'running', reason: 'woke up', error: null }, null);
      await this.flush();
    }
  }

  // ---- lifecycle -------------------------------------------------------------

  async fork(options: ForkOptions): Promise<Session> {
    await this.flush();
    return this.#context.fork(this, options);
  }

  async complete(): Promise<void> {
    this.#assertWritable();
    const log = this.#orderedLog();
    // Finishing while recorded operations are still ahead: the code no longer does what it did.
    if (log?.replaying) throw this.#mismatch(log, 'nothing more (the code completed the session)');
    if (this.state.status === 'completed') return;
    this.#append({ type: 'status-changed', status: 'completed', reason: null, error: null }, null);
    await this.flush();
  }

  async fail(error: unknown): Promise<void> {
    this.#assertWritable();
    this.#append(
      { type: 'status-changed', status: 'failed', reason: 'the run failed', error: toErrorInfo(error) },
      null,
    );
    await this.flush();
  }

  async interrupt(reason = 'interrupted'): Promise<void> {
    this.#abort.abort(new InterruptedError(this.id));
    if (this.#closed || this.#broken) return;
    if (this.state.status === 'running') {
      this.#append({ type: 'status-changed', status: 'interrupted', reason, error: null }, null);
    }
    await this.flush();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    try {
      if (!this.#broken) await this.flush();
    } finally {
      this.#closed = true;
      // A deleted session's lease went with it: there is nothing left to release.
      if (SessionDeletedError.isInstance(this.#broken)) await this.#lease.release().catch(() => undefined);
      else await this.#lease.release();
    }
  }
}

function failuresOf(step: StepRecord): ErrorInfo[] {
  return step.attempts.flatMap((entry) => (entry.error ? [entry.error] : []));
}

function failedAttempts(step: StepRecord): FailedAttempt[] {
  return step.attempts.flatMap((entry) => (entry.error ? [{ attempt: entry.attempt, error: entry.error }] : []));
}
