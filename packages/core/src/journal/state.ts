// The state a journal folds to. Plain JSON data (no Maps, no classes) so it can be
// snapshotted and compared; produced only by `fold` (journal/fold.ts).
import type {
  ErrorInfo,
  JsonValue,
  Message,
  SessionHeader,
  SessionStatus,
  StepProcess,
  StepSafety,
} from '../spec/index.js';

export interface StepAttempt {
  attempt: number;
  startedSeq: number;
  startedAt: string;
  /** Set when this attempt failed. */
  error: ErrorInfo | null;
  /** When it failed (ISO time), so a resume waits only what is left of the backoff. */
  failedAt?: string;
  /** Whether the retry policy allowed another attempt after this failure. */
  willRetry: boolean;
  /** The process the attempt ran its command in (a shell step's), when its start recorded one. */
  process?: StepProcess;
}

export interface StepRecord {
  key: string;
  occurrence: number;
  safety: StepSafety;
  idempotencyKey: string;
  /** `started`: an attempt began and nothing was recorded after it (uncertain if the writer died). */
  status: 'started' | 'completed' | 'failed' | 'skipped';
  attempts: StepAttempt[];
  /** Whether the last failure allowed another attempt. */
  willRetry: boolean;
  output?: JsonValue;
  outputBlob?: string;
  completedSeq: number | null;
  /** The concurrent branch the step ran in (null: the main line); replay orders steps per branch. */
  branch: string | null;
}

export interface CheckpointRecord {
  seq: number;
  label: string | null;
  at: string;
}

export interface UsageTotals {
  inputTokens: number;
  outputTokens: number;
  /** Null as soon as one call's cost is unknown (never a guess). */
  costUsd: number | null;
  calls: number;
}

export interface UsageRecord extends UsageTotals {
  /** Copied from the parent at a branch point: the parent's call, not counted in this session's usage. */
  inherited: boolean;
  provider: string;
  model: string;
  agent: string | null;
  round: number | null;
  stepKey: string | null;
  seq: number;
}

export interface FileSnapshotRecord {
  path: string;
  hash: string | null;
  size: number;
  blob: string | null;
  access: 'read' | 'write';
  seq: number;
}

export interface ToolCallRecord {
  callId: string;
  name: string;
  args: JsonValue;
  stepKey: string | null;
  startedSeq: number;
  result?: JsonValue;
  isError?: boolean;
  completedSeq: number | null;
}

export interface SpecRecord {
  kind: 'task' | 'workflow' | 'prompt' | 'project';
  path: string | null;
  hash: string;
  blob: string | null;
  content?: string;
  /**
   * The YAML data of the recorded text as plain JSON, with the hash of that JSON (workflow specs),
   * and the spec validating it gave (its JSON text) under the rules named by `validated.rules`.
   */
  document?: { data: JsonValue; hash: string; validated?: { spec: string; rules: string; hash: string } };
  seq: number;
}

/** A question `session.waitFor` asked, and its answer once given. */
export interface InputRecord {
  key: string;
  occurrence: number;
  prompt: string;
  /** JSON Schema of the expected answer (null: none could be derived from the code's schema). */
  schema: JsonValue | null;
  requestedSeq: number;
  requestedAt: string;
  /** Null while nobody answered. */
  answer: { value: JsonValue; answeredBy: string | null; answeredAt: string; seq: number } | null;
}

export interface MessageRecord extends Message {
  seq: number;
  at: string;
}

export interface SessionMetadata {
  name: string | null;
  tags: string[];
  pinned: boolean;
  /** When it was archived (the event's time), null when it is not. */
  archivedAt: string | null;
  /** When it was moved to the trash, null when it is not there (absent in older snapshots). */
  trashedAt?: string | null;
}

export interface SessionState {
  header: SessionHeader;
  title: string;
  status: SessionStatus;
  statusReason: string | null;
  error: ErrorInfo | null;
  /** A `sleeping` session: when it wakes (absent otherwise, and in older snapshots). */
  wakeAt?: string;
  lastSeq: number;
  createdAt: string;
  updatedAt: string;
  messages: MessageRecord[];
  /** The session's task: its first user message that is not copied parent history (null before one). */
  task: string | null;
  /** In the order each (key, occurrence) first started. */
  steps: StepRecord[];
  checkpoints: CheckpointRecord[];
  /** This session's own usage (a branch's copies of its parent's calls excluded). */
  usage: UsageTotals;
  usageRecords: UsageRecord[];
  /** A branch: the last seq that is a copy of the parent's journal (0: none). */
  inheritedThrough: number;
  variables: Record<string, JsonValue>;
  /** Latest snapshot per workspace-relative path. */
  files: Record<string, FileSnapshotRecord>;
  toolCalls: ToolCallRecord[];
  /** The questions asked with `session.waitFor`, in order, with their answers. */
  inputs: InputRecord[];
  /** Mode-specific state written with `data-set` (last write wins). */
  data: Record<string, JsonValue>;
  specs: SpecRecord[];
  /** How many times the session was resumed after an interruption or a crash. */
  recoveries: number;
  /** Crashes in a row without progress (a completed, failed or skipped step, a checkpoint) in between. */
  stalledRecoveries: number;
  /** Seq of the last progress event (0: none yet). */
  progressSeq: number;
  /** Seq of the last `session-resumed` (0: never resumed). */
  lastResumeSeq: number;
  /** How a person organized the session (`metadata-changed`); absent until the first change. */
  metadata?: SessionMetadata;
  /** Graph checkpoints saved (`graph-checkpoint-saved`); absent until the first one. */
  graphCheckpoints?: number;
}
