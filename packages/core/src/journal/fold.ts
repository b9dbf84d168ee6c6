// fold(events) -> SessionState: the only interpretation of a journal. Pure and total:
// an event out of order, a step outcome without a start, or a type it does not know
// is an error, never a silent skip. `Folder` keeps lookup indexes beside the plain
// state so that folding is linear and a live session can apply events one by one.
import {
  JournalCorruptedError,
  type JournalEvent,
  type JsonValue,
  PARENT_HISTORY_TAG,
  type SessionHeader,
  type SessionSummary,
} from '../spec/index.js';
import type { InputRecord, SessionState, StepAttempt, StepRecord, UsageTotals } from './state.js';

function fail(sessionId: string | null, problem: string): never {
  throw new JournalCorruptedError({
    sessionId,
    file: sessionId ? `journal of session ${sessionId}` : 'journal',
    offset: null,
    problem,
  });
}

export function stepId(key: string, occurrence: number): string {
  return `${key}#${occurrence}`;
}

function emptyUsage(): UsageTotals {
  return { inputTokens: 0, outputTokens: 0, costUsd: 0, calls: 0 };
}

function initialState(header: SessionHeader, seq: number, at: string, copied: number): SessionState {
  return {
    header,
    title: header.title,
    status: 'running',
    statusReason: null,
    error: null,
    lastSeq: seq,
    createdAt: header.createdAt,
    updatedAt: at,
    messages: [],
    task: null,
    steps: [],
    checkpoints: [],
    usage: emptyUsage(),
    usageRecords: [],
    inheritedThrough: copied === 0 ? 0 : seq + copied,
    variables: {},
    files: {},
    toolCalls: [],
    inputs: [],
    data: {},
    specs: [],
    recoveries: 0,
    stalledRecoveries: 0,
    progressSeq: 0,
    lastResumeSeq: 0,
  };
}

export class Folder {
  #state: SessionState | null;
  readonly #steps = new Map<string, StepRecord>();
  readonly #toolCalls = new Map<string, number>();

  constructor(state: SessionState | null = null) {
    this.#state = state;
    if (state) {
      for (const step of state.steps) this.#steps.set(stepId(step.key, step.occurrence), step);
      for (const [index, call] of state.toolCalls.entries()) this.#toolCalls.set(call.callId, index);
    }
  }

  get state(): SessionState {
    if (!this.#state) throw new Error('nothing folded yet: the journal is empty');
    return this.#state;
  }

  get hasState(): boolean {
    return this.#state !== null;
  }

  step(key: string, occurrence: number): StepRecord | undefined {
    return this.#steps.get(stepId(key, occurrence));
  }

  /** The question `waitFor(key)` asked the `occurrence`-th time (few per session: a scan is enough). */
  input(key: string, occurrence: number): InputRecord | undefined {
    return this.#state?.inputs.find((input) => input.key === key && input.occurrence === occurrence);
  }

  apply(event: JournalEvent): void {
    if (event.type === 'session-created') {
      if (this.#state !== null || event.seq !== 1) fail(event.header.id, `session-created at seq ${event.seq}`);
      this.#state = initialState(event.header, event.seq, event.at, event.copied ?? 0);
      return;
    }
    const state =
      this.#state ?? fail(null, `journal starts with ${event.type} at seq ${event.seq}, not session-created`);
    const sessionId = state.header.id;
    if (event.seq !== state.lastSeq + 1) {
      fail(sessionId, `event seq ${event.seq} follows seq ${state.lastSeq}`);
    }
    state.lastSeq = event.seq;
    const updatedBefore = state.updatedAt;
    state.updatedAt = event.at;

    switch (event.type) {
      case 'message-added':
        state.messages.push({ ...event.message, seq: event.seq, at: event.at });
        // A continued session's task is its follow-up, not the parent's task copied in with the history.
        if (state.task === null && event.message.role === 'user' && !event.message.tags?.includes(PARENT_HISTORY_TAG)) {
          state.task = event.message.content;
        }
        return;
      case 'step-started': {
        const step = this.#namedStep(state, event.key, event.occurrence, {
          safety: event.safety,
          idempotencyKey: event.idempotencyKey,
          status: 'started',
          completedSeq: null,
        });
        if (event.branch !== undefined) step.branch = event.branch;
        if (step.status === 'completed' || step.status === 'skipped') {
          fail(
            sessionId,
            `step "${event.key}" #${event.occurrence} started again at seq ${event.seq} after it ${step.status}`,
          );
        }
        const last = step.attempts.at(-1);
        const attempt: StepAttempt = {
          attempt: event.attempt,
          startedSeq: event.seq,
          startedAt: event.at,
          error: null,
          willRetry: false,
          ...(event.process ? { process: event.process } : {}),
        };
        // An attempt that never recorded an outcome (the process died) is run again under the same number.
        if (last && last.attempt === event.attempt && last.error === null)
          step.attempts[step.attempts.length - 1] = attempt;
        else step.attempts.push(attempt);
        step.status = 'started';
        step.safety = event.safety;
        return;
      }
      case 'step-completed': {
        const step = this.#startedStep(sessionId, event.key, event.occurrence, event.attempt, event.seq);
        state.progressSeq = event.seq;
        step.status = 'completed';
        step.willRetry = false;
        step.completedSeq = event.seq;
        if (event.output !== undefined) step.output = event.output;
        if (event.outputBlob !== undefined) step.outputBlob = event.outputBlob;
        return;
      }
      case 'step-failed': {
        const step = this.#startedStep(sessionId, event.key, event.occurrence, event.attempt, event.seq);
        state.progressSeq = event.seq;
        step.status = 'failed';
        step.willRetry = event.willRetry;
        const attempt = step.attempts.at(-1);
        if (attempt) {
          attempt.error = event.error;
          attempt.willRetry = event.willRetry;
          attempt.failedAt = event.at;
        }
        return;
      }
      case 'step-skipped': {
        // A step skipped without ever starting has no safety or idempotency key of its own.
        const step = this.#namedStep(state, event.key, event.occurrence, {
          safety: 'unsafe',
          idempotencyKey: '',
          status: 'skipped',
          completedSeq: event.seq,
        });
        if (step.status === 'completed')
          fail(sessionId, `step "${event.key}" skipped at seq ${event.seq} after it completed`);
        state.progressSeq = event.seq;
        step.status = 'skipped';
        step.completedSeq = event.seq;
        if (event.output !== undefined) step.output = event.output;
        return;
      }
      case 'tool-call-started':
        this.#toolCalls.set(event.callId, state.toolCalls.length);
        state.toolCalls.push({
          callId: event.callId,
          name: event.name,
          args: event.args,
          stepKey: event.stepKey,
          startedSeq: event.seq,
          completedSeq: null,
        });
        return;
      case 'tool-call-completed': {
        const index = this.#toolCalls.get(event.callId);
        const call = index === undefined ? undefined : state.toolCalls[index];
        if (!call) fail(sessionId, `tool call ${event.callId} completed at seq ${event.seq} without a start`);
        call.result = event.result;
        call.isError = event.isError;
        call.completedSeq = event.seq;
        return;
      }
      case 'variables-set':
        Object.assign(state.variables, event.variables);
        return;
      case 'file-snapshot-taken':
        state.files[event.path] = {
          path: event.path,
          hash: event.hash,
          size: event.size,
          blob: event.blob,
          access: event.access,
          seq: event.seq,
        };
        return;
      case 'file-version-saved':
        // Kept for the user to take back (`conclave files`); the workspace state is the snapshot's.
        return;
      case 'usage-recorded': {
        const inherited = event.seq <= state.inheritedThrough;
        const record = {
          inherited,
          provider: event.provider,
          model: event.model,
          agent: event.agent,
          round: event.round,
          stepKey: event.stepKey,
          inputTokens: event.inputTokens,
          outputTokens: event.outputTokens,
          costUsd: event.costUsd,
          calls: 1,
          seq: event.seq,
        };
        state.usageRecords.push(record);
        if (inherited) return;
        state.usage.inputTokens += event.inputTokens;
        state.usage.outputTokens += event.outputTokens;
        state.usage.calls += 1;
        state.usage.costUsd =
          state.usage.costUsd === null || event.costUsd === null ? null : state.usage.costUsd + event.costUsd;
        return;
      }
      case 'checkpoint-marked':
        state.checkpoints.push({ seq: event.seq, label: event.label, at: event.at });
        state.progressSeq = event.seq;
        return;
      case 'status-changed':
        state.status = event.status;
        state.statusReason = event.reason;
        state.error = event.error;
        if (event.status === 'sleeping' && event.wakeAt !== undefined) state.wakeAt = event.wakeAt;
        else delete state.wakeAt;
        return;
      case 'session-resumed': {
        state.recoveries = event.recovery;
        // Journals from before `crashed` was recorded counted every resume: take them as crashes.
        const crashed = event.crashed ?? true;
        const madeProgress = state.progressSeq > state.lastResumeSeq;
        state.stalledRecoveries = !crashed ? 0 : madeProgress ? 1 : state.stalledRecoveries + 1;
        state.lastResumeSeq = event.seq;
        return;
      }
      case 'data-set':
        state.data[event.key] = event.value;
        return;
      case 'spec-recorded':
        state.specs.push({
          kind: event.kind,
          path: event.path,
          hash: event.hash,
          blob: event.blob,
          ...(event.content === undefined ? {} : { content: event.content }),
          ...(event.document === undefined ? {} : { document: event.document }),
          seq: event.seq,
        });
        return;
      case 'title-changed':
        state.title = event.title;
        return;
      case 'metadata-changed': {
        // Organizing a session is not working on it: its place in listings and its age stay.
        state.updatedAt = updatedBefore;
        const metadata = state.metadata ?? { name: null, tags: [], pinned: false, archivedAt: null };
        state.metadata = {
          name: event.name === undefined ? metadata.name : event.name,
          tags: event.tags ?? metadata.tags,
          pinned: event.pinned ?? metadata.pinned,
          archivedAt: event.archived === undefined ? metadata.archivedAt : event.archived ? event.at : null,
          trashedAt: event.trashed === undefined ? (metadata.trashedAt ?? null) : event.trashed ? event.at : null,
        };
        return;
      }
      case 'input-requested': {
        if (this.input(event.key, event.occurrence)) {
          fail(sessionId, `input "${event.key}" #${event.occurrence} requested again at seq ${event.seq}`);
        }
        const input: InputRecord = {
          key: event.key,
          occurrence: event.occurrence,
          prompt: event.prompt,
          schema: event.schema,
          requestedSeq: event.seq,
          requestedAt: event.at,
          answer: null,
        };
        state.inputs.push(input);
        return;
      }
      case 'input-received': {
        const input = this.input(event.key, event.occurrence);
        if (!input || input.answer !== null) {
          fail(
            sessionId,
            `answer to input "${event.key}" #${event.occurrence} at seq ${event.seq} without an open question`,
          );
        }
        input.answer = { value: event.value, answeredBy: event.answeredBy, answeredAt: event.at, seq: event.seq };
        state.progressSeq = event.seq;
        return;
      }
      case 'graph-checkpoint-saved':
        state.graphCheckpoints = (state.graphCheckpoints ?? 0) + 1;
        state.progressSeq = event.seq;
        return;
      case 'graph-writes-saved':
        state.progressSeq = event.seq;
        return;
      default: {
        const unknown: never = event;
        fail(sessionId, `unknown event type ${(unknown as { type: string }).type}`);
      }
    }
  }

  /** The step an event names; the first event that names it adds it to the state as `fields` say. */
  #namedStep(
    state: SessionState,
    key: string,
    occurrence: number,
    fields: Pick<StepRecord, 'safety' | 'idempotencyKey' | 'status' | 'completedSeq'>,
  ): StepRecord {
    const id = stepId(key, occurrence);
    const known = this.#steps.get(id);
    if (known) return known;
    const step: StepRecord = {
      key,
      occurrence,
      safety: fields.safety,
      idempotencyKey: fields.idempotencyKey,
      status: fields.status,
      attempts: [],
      willRetry: false,
      completedSeq: fields.completedSeq,
      branch: null,
    };
    this.#steps.set(id, step);
    state.steps.push(step);
    return step;
  }

  #startedStep(sessionId: string, key: string, occurrence: number, attempt: number, seq: number): StepRecord {
    const step = this.#steps.get(stepId(key, occurrence));
    const last = step?.attempts.at(-1);
    if (step?.status !== 'started' || !last || last.attempt !== attempt) {
      fail(
        sessionId,
        `outcome of step "${key}" #${occurrence} attempt ${attempt} at seq ${seq} without a matching start`,
      );
    }
    return step;
  }
}

/** Folds a whole journal (seq 1 onwards) into state. */
export function fold(events: Iterable<JournalEvent>): SessionState {
  const folder = new Folder();
  for (const event of events) folder.apply(event);
  return folder.state;
}

/** The state as it was right after event `seq` (time travel). */
export function stateAt(events: Iterable<JournalEvent>, seq: number): SessionState {
  const folder = new Folder();
  for (const event of events) {
    if (event.seq > seq) break;
    folder.apply(event);
  }
  if (!folder.hasState || folder.state.lastSeq !== seq) {
    throw new JournalCorruptedError({
      sessionId: null,
      file: 'journal',
      offset: null,
      problem: `no event with seq ${seq}`,
    });
  }
  return folder.state;
}

const TASK_PREVIEW_LENGTH = 200;

function isProgress(value: unknown): value is NonNullable<SessionSummary['progress']> {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return typeof candidate.label === 'string' && typeof candidate.done === 'number';
}

/** A graph thread's progress: the checkpoints it saved. */
function graphProgress(state: SessionState): JsonValue | undefined {
  const done = state.graphCheckpoints ?? 0;
  return done > 0 ? { label: 'checkpoints', done, total: null } : undefined;
}

/** What listing shows of a session, derived from its state. */
export function summarize(state: SessionState): SessionSummary {
  // Kept by the fold, so a checkpoint does not scan the messages.
  const task = state.task;
  const progress = state.data.progress ?? graphProgress(state);
  return {
    id: state.header.id,
    title: state.title,
    mode: state.header.mode,
    status: state.status,
    workspaceDir: state.header.workspaceDir,
    createdAt: state.createdAt,
    updatedAt: state.updatedAt,
    parentId: state.header.parentId,
    branchPoint: state.header.branchPoint,
    lastSeq: state.lastSeq,
    messageCount: state.messages.length,
    progress: isProgress(progress)
      ? {
          label: progress.label,
          done: Math.trunc(progress.done),
          total: typeof progress.total === 'number' ? Math.trunc(progress.total) : null,
        }
      : null,
    inputTokens: state.usage.inputTokens,
    outputTokens: state.usage.outputTokens,
    costUsd: state.usage.costUsd,
    task:
      task === null ? null : task.length > TASK_PREVIEW_LENGTH ? `${task.slice(0, TASK_PREVIEW_LENGTH - 1)}…` : task,
    waitingFor: state.status === 'waiting' ? pendingQuestion(state) : null,
    ...(state.status === 'sleeping' && state.wakeAt !== undefined ? { wakeAt: state.wakeAt } : {}),
    ...registeredJob(state.header.options.job),
    archived: false,
    ...metadataSummary(state.metadata),
    bytes: null,
  };
}

/** A registered job's name and version (`engine.start` records them in the header), for listings. */
function registeredJob(job: JsonValue | undefined): Partial<SessionSummary> {
  if (typeof job !== 'object' || job === null || Array.isArray(job)) return {};
  return typeof job.name === 'string' && typeof job.version === 'string'
    ? { job: { name: job.name, version: job.version } }
    : {};
}

/** Only what was set, so the listing index of sessions nobody organized stays as small as it was. */
function metadataSummary(metadata: SessionState['metadata']): Partial<SessionSummary> {
  if (!metadata) return {};
  return {
    ...(metadata.name === null ? {} : { name: metadata.name }),
    ...(metadata.tags.length === 0 ? {} : { tags: metadata.tags }),
    ...(metadata.pinned ? { pinned: true } : {}),
    ...(metadata.archivedAt === null ? {} : { archivedAt: metadata.archivedAt }),
    ...(metadata.trashedAt ? { trashedAt: metadata.trashedAt } : {}),
  };
}

/** The latest question nobody answered yet. */
export function pendingInput(state: SessionState): InputRecord | null {
  for (let index = state.inputs.length - 1; index >= 0; index -= 1) {
    const input = state.inputs[index];
    if (input && input.answer === null) return input;
  }
  return null;
}

function pendingQuestion(state: SessionState): { key: string; prompt: string } | null {
  const input = pendingInput(state);
  return input ? { key: input.key, prompt: input.prompt } : null;
}
