// The resume plan (docs/architecture.md#resume-and-continue): before anything runs, what is done and will be skipped, what
// is uncertain, what runs next, which attempts continue, what changed, and the cost so far.
// Pure: the I/O results (compatibility, file and git comparisons) are passed in.

import type { CheckpointRecord, SessionState, StepRecord, UsageTotals } from '@resume/core';
import type { ErrorInfo, SessionMode, SessionStatus, StepProcess, StepSafety } from '@resume/core/spec';
import type { FileChange } from '../files/file-snapshots.js';
import type { GitComparison, WorkspaceComparison } from '../files/git-state.js';
import type { RemainingEstimate } from '../runner/estimate-remaining.js';
import { formatUsd } from '../usage/cost.js';
import type { CompatibilityReport } from './compatibility.js';
import { lostInRepairOf } from './lost-in-repair.js';
import type { SpecChange } from './spec-change.js';

export interface PlannedStep {
  key: string;
  occurrence: number;
  /** `key`, or `key (#2)` for a repeated key. */
  label: string;
  safety: StepSafety;
  /** Attempts journaled so far. */
  attempts: number;
}

export interface UncertainPlannedStep extends PlannedStep {
  /** The attempt that started and never finished. */
  attempt: number;
  startedAt: string;
  /** Idempotent steps run again; unsafe ones wait for a decision (rerun / skip / abort). */
  action: 'rerun' | 'decide';
  failures: ErrorInfo[];
  /** The process the attempt ran its command in, when its start recorded one. */
  process?: StepProcess;
  /**
   * Set when that command is still running (the process that started it died, it did not): a
   * resume waits for it to end, or stops it first when re-running was chosen up front.
   */
  running?: { pid: number; forMs: number };
}

export interface RetryingPlannedStep extends PlannedStep {
  /** The attempt a resume runs next (1-based, continuing the count). */
  nextAttempt: number;
  /**
   * Its place in the current retry budget: a pending retry continues its budget (3 of 5);
   * a step that had given up gets a fresh budget on resume (1 of 5).
   */
  attemptInBudget: number;
  /** Total attempts allowed, when the caller knows the step's retry policy. */
  maxAttempts: number | null;
  /** Failures so far, oldest first. */
  failures: ErrorInfo[];
  /** Whether the retry policy still allowed another attempt when the session stopped. */
  willRetry: boolean;
}

export interface ResumePlanChanges {
  compatibility: CompatibilityReport | null;
  /** Every snapshotted file with its status (unchanged ones included). */
  files: FileChange[] | null;
  git: GitComparison | null;
  workspace: WorkspaceComparison | null;
  /**
   * Settings the config now gives otherwise than the session recorded (agents, the judge's
   * prompt, `maxRounds`), each saying which value the resume uses and how to get the other.
   * Filled in by the front end that knows the config.
   */
  settings?: SettingChange[];
}

export interface AnsweredQuestion {
  prompt: string;
  /** The answer as text (a JSON answer as JSON). */
  answer: string;
  answeredBy: string | null;
}

export interface SettingChange {
  /** The config key (`discussion.maxRounds`, `agents`, `judge.system`). */
  setting: string;
  /** "discussion.maxRounds is 5 in ./.conclave.yaml, 3 in the session: the resume uses 3 (--max-rounds 5 uses 5)". */
  message: string;
}

export interface ResumePlan {
  sessionId: string;
  title: string;
  mode: SessionMode;
  status: SessionStatus;
  /** A completed session is continued (a child with a follow-up), not resumed in place. */
  action: 'resume' | 'continue';
  /** The checkpoint the resume starts from (the last one unless `fromCheckpoint`). */
  checkpoint: CheckpointRecord | null;
  /** Completed steps: their recorded outputs are reused, their functions are not called. */
  done: PlannedStep[];
  /** Steps that were skipped by a decision; they stay skipped. */
  skipped: PlannedStep[];
  /** Unfinished steps of a part the resume passes over (a chunk before `--start-chunk`): never run again. */
  passedOver: PlannedStep[];
  /** Completed after the chosen checkpoint: they run again. */
  rerun: PlannedStep[];
  uncertain: UncertainPlannedStep[];
  retrying: RetryingPlannedStep[];
  /**
   * Side-effecting steps whose earlier run was lost when `sessions repair` removed the
   * damaged part of the journal: nothing says they ran, so they run again.
   */
  lostInRepair: PlannedStep[];
  /** Questions the session asked that were answered since it last went on: the resume goes on with these answers. */
  answered: AnsweredQuestion[];
  messageCount: number;
  toolCallCount: number;
  /** Mode-specific: "round 3 of 4, agent critic", "chunk 8 of 15". */
  next: string | null;
  /** The question a front end asks: "Resume from chunk 8 of 15?". */
  question: string;
  changes: ResumePlanChanges;
  cost: UsageTotals;
  /** Usage over the whole lineage when the caller summed it (see lineageUsage). */
  lineageCost: UsageTotals | null;
  /** The model calls a resume may still make and their estimated cost (null: not estimated). */
  remaining: RemainingEstimate | null;
  /** Said before resuming an expensive lineage (above the configured `limits.warnAboveUsd`). */
  costWarning: string | null;
  /** Resumes after an interruption so far. */
  recoveries: number;
  /** The workflow or prompt file: which version runs and how the file differs now (null: none). */
  spec: SpecChange | null;
  /** A workflow's map steps that ran, with their items by state (empty: none). */
  maps: PlannedMap[];
}

/** A map step's items by state, as a resume treats them (item ids, in list order). */
export interface PlannedMap {
  stepId: string;
  total: number;
  /** Completed: replayed from the journal, never run again. */
  done: string[];
  /** In the dead-letter list: left alone (`conclave run retry --items failed` runs them again). */
  failed: string[];
  /** Some of their steps ran: the rest runs (an uncertain shell step needs a decision). */
  unfinished: string[];
  /** Not started yet: they run. */
  pending: string[];
}

export interface BuildResumePlanOptions {
  /** The runner's describer of what runs next for this mode. */
  describeNext?: (state: SessionState) => string;
  /** Resume from this checkpoint seq instead of the last one. */
  fromCheckpoint?: number;
  /** The state at `fromCheckpoint` (engine.readSession(id, { at })) so `describeNext` describes that point. */
  checkpointState?: SessionState;
  /** Total attempts allowed for a step, from the runner's retry policy ("attempt 3 of 5"). */
  maxAttemptsOf?: (step: StepRecord) => number | null;
  compatibility?: CompatibilityReport | null;
  files?: FileChange[] | null;
  git?: GitComparison | null;
  workspace?: WorkspaceComparison | null;
  lineageCost?: UsageTotals | null;
  remaining?: RemainingEstimate | null;
  /** Warn when the lineage cost is above this (USD). */
  warnAboveUsd?: number | null;
  spec?: SpecChange | null;
  maps?: PlannedMap[];
  /** An unfinished step the resume will not run (its part is skipped, see `Mode.skipsStep`). */
  skipsStep?: (stepKey: string) => boolean;
}

function planned(step: StepRecord): PlannedStep {
  return {
    key: step.key,
    occurrence: step.occurrence,
    label: step.occurrence > 1 ? `${step.key} (#${step.occurrence})` : step.key,
    safety: step.safety,
    attempts: step.attempts.length,
  };
}

function failuresOf(step: StepRecord): ErrorInfo[] {
  return step.attempts.flatMap((attempt) => (attempt.error === null ? [] : [attempt.error]));
}

/** The attempt that opened the current retry budget (after the last final failure), as the engine counts. */
function budgetStart(step: StepRecord): number {
  let start = step.attempts[0]?.attempt ?? 1;
  for (const attempt of step.attempts) {
    if (attempt.error !== null && !attempt.willRetry) start = attempt.attempt + 1;
  }
  return start;
}

function resumeCheckpoint(state: SessionState, fromCheckpoint: number | undefined): CheckpointRecord | null {
  if (fromCheckpoint === undefined) return state.checkpoints[state.checkpoints.length - 1] ?? null;
  const found = state.checkpoints.find((checkpoint) => checkpoint.seq === fromCheckpoint);
  if (found) return found;
  // A seq without a checkpoint mark is still a committed position in the journal.
  return { seq: fromCheckpoint, label: null, at: state.updatedAt };
}

/** Builds the plan; pure given its inputs. */
export function buildResumePlan(state: SessionState, options: BuildResumePlanOptions = {}): ResumePlan {
  const checkpoint = resumeCheckpoint(state, options.fromCheckpoint);
  const limit = options.fromCheckpoint;
  const done: PlannedStep[] = [];
  const skipped: PlannedStep[] = [];
  const rerun: PlannedStep[] = [];
  const uncertain: UncertainPlannedStep[] = [];
  const retrying: RetryingPlannedStep[] = [];
  const passedOver: PlannedStep[] = [];

  for (const step of state.steps) {
    const startedSeq = step.attempts[0]?.startedSeq ?? 0;
    if (limit !== undefined && startedSeq > limit) {
      rerun.push(planned(step));
      continue;
    }
    if (step.status === 'completed' || step.status === 'skipped') {
      if (limit !== undefined && step.completedSeq !== null && step.completedSeq > limit) {
        rerun.push(planned(step));
      } else {
        (step.status === 'completed' ? done : skipped).push(planned(step));
      }
      continue;
    }
    if (options.skipsStep?.(step.key)) {
      passedOver.push(planned(step));
      continue;
    }
    const failures = failuresOf(step);
    if (step.status === 'started') {
      const current = step.attempts[step.attempts.length - 1];
      uncertain.push({
        ...planned(step),
        attempt: current?.attempt ?? step.attempts.length,
        startedAt: current?.startedAt ?? state.updatedAt,
        action: step.safety === 'idempotent' ? 'rerun' : 'decide',
        failures,
        ...(current?.process ? { process: current.process } : {}),
      });
      continue;
    }
    const lastAttempt = step.attempts[step.attempts.length - 1]?.attempt ?? step.attempts.length;
    const nextAttempt = lastAttempt + 1;
    retrying.push({
      ...planned(step),
      nextAttempt,
      attemptInBudget: nextAttempt - budgetStart(step) + 1,
      maxAttempts: options.maxAttemptsOf?.(step) ?? null,
      failures,
      willRetry: step.willRetry,
    });
  }

  const lostInRepair = lostInRepairOf(state).map((step) => ({
    key: step.key,
    occurrence: step.occurrence,
    label: step.occurrence > 1 ? `${step.key} (#${step.occurrence})` : step.key,
    safety: step.safety,
    attempts: 0,
  }));
  const action = state.status === 'completed' ? 'continue' : 'resume';
  const describedState = options.checkpointState ?? state;
  const next = options.describeNext ? options.describeNext(describedState) : null;
  const lostWarning =
    lostInRepair.length === 0
      ? ''
      : `${lostInRepair.length === 1 ? '1 side-effecting step runs' : `${lostInRepair.length} side-effecting steps run`} again (the earlier run was lost with the damaged part). `;
  const question =
    lostWarning +
    (action === 'continue'
      ? `Session ${state.header.id} is completed; continue it with a follow-up?`
      : next !== null
        ? `Resume from ${next}?`
        : `Resume session ${state.header.id} after ${done.length} completed step${done.length === 1 ? '' : 's'}?`);

  return {
    sessionId: state.header.id,
    title: state.title,
    mode: state.header.mode,
    status: state.status,
    action,
    checkpoint,
    done,
    skipped,
    passedOver,
    rerun,
    uncertain,
    retrying,
    lostInRepair,
    // Answered after the last checkpoint: the run has not gone on with the answer yet.
    answered: state.inputs.flatMap((input) =>
      input.answer !== null && input.answer.seq > (state.checkpoints.at(-1)?.seq ?? 0)
        ? [
            {
              prompt: input.prompt,
              answer: typeof input.answer.value === 'string' ? input.answer.value : JSON.stringify(input.answer.value),
              answeredBy: input.answer.answeredBy,
            },
          ]
        : [],
    ),
    // From an earlier checkpoint only the messages up to it are kept (the rest are written again).
    messageCount:
      limit === undefined ? state.messages.length : state.messages.filter((message) => message.seq <= limit).length,
    toolCallCount: state.toolCalls.length,
    next,
    question,
    changes: {
      compatibility: options.compatibility ?? null,
      files: options.files ?? null,
      git: options.git ?? null,
      workspace: options.workspace ?? null,
    },
    cost: state.usage,
    lineageCost: options.lineageCost ?? null,
    remaining: options.remaining ?? null,
    costWarning: costWarningOf(options.lineageCost ?? state.usage, options.warnAboveUsd ?? null),
    recoveries: state.recoveries,
    spec: options.spec ?? null,
    maps: options.maps ?? [],
  };
}

function costWarningOf(usage: UsageTotals, warnAboveUsd: number | null): string | null {
  if (warnAboveUsd === null || usage.costUsd === null || usage.costUsd <= warnAboveUsd) return null;
  return `This session's lineage has cost ${formatUsd(usage.costUsd)} so far, above the ${formatUsd(warnAboveUsd)} warning threshold (limits.warnAboveUsd).`;
}

/** "attempt 3 of 5, 2 failures" (or "attempt 3, 2 failures" without a known limit). */
export function describeAttempt(
  step: Pick<RetryingPlannedStep, 'nextAttempt' | 'attemptInBudget' | 'maxAttempts' | 'failures'>,
): string {
  const failures = `${step.failures.length} failure${step.failures.length === 1 ? '' : 's'}`;
  if (step.maxAttempts === null) return `attempt ${step.nextAttempt}, ${failures}`;
  const overall = step.attemptInBudget === step.nextAttempt ? '' : ` (attempt ${step.nextAttempt} overall)`;
  return `attempt ${step.attemptInBudget} of ${step.maxAttempts}${overall}, ${failures}`;
}
