// A live session: one writer holding the lease, folding its own events as it appends
// them. Owns the durable step protocol (DESIGN 3): start record durable before the
// function runs, completed steps replayed without calling it, uncertain steps decided
// by their declared safety, attempts journaled, replay order checked.
import { type Folder, summarize } from '../journal/fold.js';
import type { CheckpointRecord, SessionState, StepRecord } from '../journal/state.js';
import {
  type EventInput,
  InterruptedError,
  type JournalEvent,
  type JsonValue,
  journalEventSchema,
  type Message,
  type MessageInput,
  type SessionLease,
  type SessionStore,
  StepAbortedError,
  StepMismatchError,
  UncertainStepError,
  type UncertainStepInfo,
  UsageError,
} from '../spec/index.js';
import { isRetryableByDefault, toErrorInfo } from './error-info.js';
import { backoffDelay, sleep as defaultSleep } from './retry.js';
import type { ForkOptions, Session, StepContext, StepOptions } from './types.js';

export interface SessionContext {
  store: SessionStore;
  redact: <T>(value: T) => T;
  now: () => Date;
  snapshotEvery: number;
  blobThreshold: number;
  fork(parent: LiveSession, options: ForkOptions): Promise<Session>;
}

// 2: the state keeps `task` (older snapshots are ignored and the journal replayed).
export const SNAPSHOT_FORMAT_VERSION = 2;

const isAbort = (error: unknown, signal: AbortSignal): boolean =>
  signal.aborted ||
  (error instanceof Error && (error.name === 'AbortError' || (error as { reason?: unknown }).reason === 'aborted'));

export class LiveSession implements Session {
  readonly id: string;
  readonly #context: SessionContext;
  readonly #folder: Folder;
  readonly #lease: SessionLease;
  readonly #abort = new AbortController();
  #pending: JournalEvent[] = [];
  #committedSeq: number;
  #snapshotSeq: number;
  #commitChain: Promise<unknown> = Promise.resolve();
  #broken: unknown = null;
  #closed = false;
  readonly #occurrences = new Map<string, number>();
  /** Index in state.steps of the next recorded step replay expects. */
  #replayCursor = 0;
  readonly #consumed = new Set<StepRecord>();
  /** Position of each step in state.steps (steps are only ever appended), so replay stays linear. */
  readonly #positions = new Map<StepRecord, number>();

  /** `pending`: events already folded into `folder` but not yet appended (a new session's first batch). */
  constructor(
    context: SessionContext,
    folder: Folder,
    lease: SessionLease,
    snapshotSeq: number,
    pending: JournalEvent[] = [],
  ) {
    this.#context = context;
    this.#folder = folder;
    this.#lease = lease;
    this.id = folder.state.header.id;
    this.#pending = [...pending];
    this.#committedSeq = folder.state.lastSeq - pending.length;
    this.#snapshotSeq = snapshotSeq;
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

  record(input: EventInput): JournalEvent {
    this.#assertWritable();
    const event = journalEventSchema.parse(
      this.#context.redact({ ...input, seq: this.state.lastSeq + 1, at: this.#context.now().toISOString() }),
    );
    this.#folder.apply(event);
    this.#pending.push(event);
    return event;
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
    if (this.#pending.length === 0 && label === undefined) {
      await this.flush();
      return this.#committedSeq;
    }
    const marker = this.record({ type: 'checkpoint-marked', label: label ?? null });
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
      // The in-memory state is now ahead of the journal: this writer must stop.
      this.#broken = error;
      throw error;
    }
    this.#committedSeq = events.at(-1)?.seq ?? this.#committedSeq;
    if (this.#committedSeq - this.#snapshotSeq >= this.#context.snapshotEvery && this.#pending.length === 0) {
      this.#snapshotSeq = this.#committedSeq;
      await this.#context.store.putSnapshot(this.id, {
        seq: this.#committedSeq,
        formatVersion: SNAPSHOT_FORMAT_VERSION,
        state: this.state,
      });
    }
    return this.#committedSeq;
  }

  // ---- durable steps -------------------------------------------------------

  async step<T>(key: string, fn: (context: StepContext) => Promise<T>, options: StepOptions<T> = {}): Promise<T> {
    this.#assertWritable();
    if (key.length === 0) throw new UsageError('A step key must not be empty.');
    const occurrence = (this.#occurrences.get(key) ?? 0) + 1;
    this.#occurrences.set(key, occurrence);
    const recorded = this.#folder.step(key, occurrence);
    this.#checkReplayOrder(key, recorded);

    if (recorded?.status === 'completed') return this.#decode(recorded, options);
    if (recorded?.status === 'skipped') {
      return recorded.output === undefined ? ((options.skipValue ?? null) as T) : this.#decode(recorded, options);
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
          if (decision === 'skip') {
            const output = this.#encode((options.skipValue ?? null) as T, options);
            this.record({ type: 'step-skipped', key, occurrence, reason: 'uncertain step skipped by choice', output });
            await this.flush();
            return this.#decodeValue(output, options);
          }
        }
        roundStart = this.#roundStart(recorded);
      } else if (recorded.status === 'failed' && last) {
        attempt = last.attempt + 1;
        // A final failure being resumed gets a fresh retry budget; a pending retry continues its count.
        roundStart = recorded.willRetry ? this.#roundStart(recorded) : attempt;
        if (recorded.willRetry && options.retry) {
          await (options.sleep ?? defaultSleep)(backoffDelay(options.retry, last.attempt), this.signal).catch(() => {
            throw new InterruptedError(this.id);
          });
        }
      }
    }
    return this.#runAttempts(key, occurrence, safety, attempt, roundStart, fn, options);
  }

  /** The attempt number that opened the current retry round (after the last final failure). */
  #roundStart(step: StepRecord): number {
    let start = step.attempts[0]?.attempt ?? 1;
    for (const attempt of step.attempts) {
      if (attempt.error !== null && !attempt.willRetry) start = attempt.attempt + 1;
    }
    return start;
  }

  #checkReplayOrder(key: string, recorded: StepRecord | undefined): void {
    const steps = this.state.steps;
    if (recorded) {
      this.#consumed.add(recorded);
      const index = this.#positionOf(recorded);
      if (index >= this.#replayCursor) this.#replayCursor = index + 1;
      return;
    }
    // A new step while the journal still holds steps this run has not reached: the code diverged.
    for (let index = this.#replayCursor; index < steps.length; index += 1) {
      const pending = steps[index];
      if (pending && !this.#consumed.has(pending)) {
        throw new StepMismatchError({
          sessionId: this.id,
          expectedKey: pending.key,
          requestedKey: key,
          position: index + 1,
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
      previousFailures: step.attempts.flatMap((entry) => (entry.error ? [entry.error] : [])),
    };
  }

  async #runAttempts<T>(
    key: string,
    occurrence: number,
    safety: 'idempotent' | 'unsafe',
    firstAttempt: number,
    roundStart: number,
    fn: (context: StepContext) => Promise<T>,
    options: StepOptions<T>,
  ): Promise<T> {
    const idempotencyKey = `${this.id}:${key}:${occurrence}`;
    const maxAttempts = Math.max(1, options.retry?.attempts ?? 1);
    const retryOn = options.retry?.retryOn ?? isRetryableByDefault;
    const wait = options.sleep ?? defaultSleep;
    for (let attempt = firstAttempt; ; attempt += 1) {
      if (this.signal.aborted) throw new InterruptedError(this.id);
      this.record({ type: 'step-started', key, occurrence, attempt, safety, idempotencyKey });
      const started = this.#folder.step(key, occurrence);
      if (started && !this.#consumed.has(started)) {
        this.#consumed.add(started);
        this.#replayCursor = Math.max(this.#replayCursor, this.#positionOf(started) + 1);
      }
      await this.flush();
      const previousFailures = (this.#folder.step(key, occurrence)?.attempts ?? []).flatMap((entry) =>
        entry.error ? [entry.error] : [],
      );
      let value: T;
      try {
        value = await fn({ attempt, idempotencyKey, signal: this.signal, previousFailures });
      } catch (error) {
        if (isAbort(error, this.signal))
          throw new InterruptedError(this.id, 'Interrupted during a step.', { cause: error });
        const attemptsUsed = attempt - roundStart + 1;
        const willRetry = attemptsUsed < maxAttempts && retryOn(error);
        this.record({ type: 'step-failed', key, occurrence, attempt, error: toErrorInfo(error), willRetry });
        await this.flush();
        if (!willRetry) throw error;
        try {
          await wait(backoffDelay(options.retry ?? { attempts: 1 }, attempt), this.signal);
        } catch {
          throw new InterruptedError(this.id);
        }
        continue;
      }
      const output = this.#encode(value, options);
      const size = JSON.stringify(output).length;
      if (size > this.#context.blobThreshold) {
        // Blobs bypass record(), so they are scrubbed here like every journaled event.
        const blob = await this.#context.store.putBlob(
          Buffer.from(JSON.stringify(this.#context.redact(output)), 'utf8'),
        );
        this.record({ type: 'step-completed', key, occurrence, attempt, outputBlob: blob });
      } else {
        this.record({ type: 'step-completed', key, occurrence, attempt, output });
      }
      await this.flush();
      return this.#decodeValue(output, options);
    }
  }

  #encode<T>(value: T, options: StepOptions<T>): JsonValue {
    const encoded = options.codec ? options.codec.encode(value) : (value as unknown);
    // Round-trip through JSON so a replay returns exactly what a first run returns.
    const text = JSON.stringify(encoded === undefined ? null : encoded);
    return JSON.parse(text) as JsonValue;
  }

  #decodeValue<T>(value: JsonValue, options: StepOptions<T>): T {
    return options.codec ? options.codec.decode(value) : (value as T);
  }

  async #decode<T>(step: StepRecord, options: StepOptions<T>): Promise<T> {
    if (step.output !== undefined) return this.#decodeValue(structuredClone(step.output), options);
    if (step.outputBlob !== undefined) {
      const content = await this.#context.store.getBlob(step.outputBlob);
      if (!content)
        throw new UsageError(
          `The recorded output of step "${step.key}" (blob ${step.outputBlob}) is missing from the store.`,
        );
      return this.#decodeValue(JSON.parse(Buffer.from(content).toString('utf8')) as JsonValue, options);
    }
    return this.#decodeValue(null, options);
  }

  // ---- lifecycle -------------------------------------------------------------

  async fork(options: ForkOptions): Promise<Session> {
    await this.flush();
    return this.#context.fork(this, options);
  }

  async complete(): Promise<void> {
    this.record({ type: 'status-changed', status: 'completed', reason: null, error: null });
    await this.flush();
  }

  async fail(error: unknown): Promise<void> {
    this.record({ type: 'status-changed', status: 'failed', reason: 'the run failed', error: toErrorInfo(error) });
    await this.flush();
  }

  async interrupt(reason = 'interrupted'): Promise<void> {
    this.#abort.abort(new InterruptedError(this.id));
    if (this.#closed || this.#broken) return;
    if (this.state.status === 'running') {
      this.record({ type: 'status-changed', status: 'interrupted', reason, error: null });
    }
    await this.flush();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    try {
      if (!this.#broken) await this.flush();
    } finally {
      this.#closed = true;
      await this.#lease.release();
    }
  }
}
