// The runner's public types: what the CLI and the TUI pass in and get back.
import type { Engine, Session, UncertainDecision, UsageTotals } from '@resume/core';
import type { ConclaveError, JsonValue, UncertainStepInfo } from '@resume/core/spec';
import type { FileConflictChoice } from '../files/file-conflicts.js';
import type { FileChange } from '../files/file-snapshots.js';
import type { McpSettings } from '../mcp/mcp-server-config.js';
import type { MapStepStatus } from '../modes/map-journal.js';
import type { AgentInput } from '../modes/mode.js';
import type { ModelResolver, ModeTool } from '../modes/mode-context.js';
import type { ModeRegistry } from '../modes/mode-registry.js';
import type { ProviderRegistry } from '../providers/provider-registry.js';
import type { CompatibilityFinding } from '../resume/compatibility.js';
import type { ResumePlan } from '../resume/resume-plan.js';
import type { RunEvent } from './run-event.js';

/** Which items `retryItems` runs again: every failed one, or these ids. */
export type ItemSelection = 'failed' | readonly string[];

export interface RunDecisions {
  /**
   * Called once with the whole plan before any other decision and before anything is
   * written: a front end that cannot ask (no terminal) checks here that every decision the
   * resume needs was given, and throws one error naming all that are missing.
   */
  review?: (plan: ResumePlan) => void | Promise<void>;
  /** An unsafe step started and never finished: run it again, skip it, or stop. */
  uncertainStep?: (step: UncertainStepInfo) => UncertainDecision | Promise<UncertainDecision>;
  /**
   * The answer `uncertainStep` gives every step, when it was given up front (a flag, a setting).
   * A shell step's command still running from the interrupted run is then stopped first
   * (`rerun`: SIGTERM to its process group, then SIGKILL) or left alone (`abort`); without it,
   * the resume waits for that command to end before asking.
   */
  uncertainChoice?: UncertainDecision;
  /** Files changed since the session touched them: per path keep or restore; null cancels the resume. */
  fileConflicts?: (
    changes: FileChange[],
  ) => Record<string, FileConflictChoice> | null | Promise<Record<string, FileConflictChoice> | null>;
  /** Shown the resume plan; false cancels. */
  confirmResume?: (plan: ResumePlan) => boolean | Promise<boolean>;
  /** A model the session used is not offered by the provider now (see `availableModels`). */
  modelUnavailable?: (finding: ModelUnavailableFinding) => ModelDecision | Promise<ModelDecision>;
}

export type ModelUnavailableFinding = Extract<CompatibilityFinding, { kind: 'model-unavailable' }>;

export type ModelDecision =
  | { choice: 'use-same-model' }
  | { choice: 'use-other-model'; model: string }
  | { choice: 'cancel' };

export interface ToolFactoryInput {
  workspaceDir: string;
  session: Session;
  /** The tool names the run asked for (empty: every workspace tool). */
  names: string[];
}

export interface RunnerOptions {
  engine: Engine;
  models: ModelResolver;
  /** The providers the models come from, which say whose calls are free (default: the built-in ones). */
  providers?: ProviderRegistry;
  workspaceDir: string;
  /** The environment shell steps inherit (default: none beyond the CONCLAVE_* variables). */
  env?: Record<string, string | undefined>;
  onEvent?: (event: RunEvent) => void;
  decisions?: RunDecisions;
  /** Workspace tools for orchestrated and prompt runs (default: the workspace tools of tools/). */
  createTools?: (input: ToolFactoryInput) => ModeTool[];
  /**
   * The tool names `createTools` offers, so the tools a prompt file asks for are checked before
   * a session is created (default: the workspace tools; with `createTools` and without this,
   * the check happens when the tools are built).
   */
  availableToolNames?: readonly string[];
  /** First words `run_command` accepts (from config); without any, `run_command` is not offered. */
  allowCommands?: string[];
  /**
   * The MCP servers runs may use (`mcp.servers` in the config) and how much of a tool result
   * a model sees; a run uses the ones its prompt file or start options name (`mcp: [name]`).
   */
  mcp?: McpSettings;
  /**
   * Crashes in a row without progress after which a resume is refused unless forced
   * (`resume.maxRecoveries` in the config; default: the engine's, 10).
   */
  maxRecoveries?: number;
  /** Waits between retry attempts (tests inject an instant one). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** The model ids the provider offers now, for the availability check before a resume (null: unknown). */
  availableModels?: () => Promise<readonly string[] | null>;
  /** Reads spec, prompt and project files (default: from disk, regular files within their size limit). */
  readTextFile?: (filePath: string) => Promise<string>;
  /** The modes runs can use, by name (default: the built-in modes; add yours with `builtinModes.with(mode)`). */
  modes?: ModeRegistry;
  /**
   * Cost limits (USD): a new model call whose estimate would pass one is not made and the run
   * stops at a checkpoint (interrupted, `stopReason: 'cost-limit'`). `warnAboveUsd`: a resume
   * of a session whose lineage cost is above it says so in the plan and in a notice.
   */
  /** How often a running session looks for checkpoint requests from other processes (default 500 ms). */
  requestPollMs?: number;
  /** Discussions and iterative runs label a checkpoint every N rounds / chunks (default 1). */
  checkpointInterval?: number;
  limits?: { maxCostUsd?: number | null; maxLineageCostUsd?: number | null; warnAboveUsd?: number | null };
  /**
   * Budgets over every session (USD, `limits.dailyCost` / `monthlyCost`): a new model call whose
   * estimate would take what all sessions spent today (this calendar month, local time) past one
   * is not made, and the run stops at a checkpoint as at a cost limit. `spentSince` tells what
   * every session's calls since a time cost (the CLI reads it from the usage ledger); it is asked
   * once per run, and this run's own calls are added as they come.
   */
  budgets?: {
    dailyUsd?: number | null;
    monthlyUsd?: number | null;
    spentSince: (since: Date) => Promise<number>;
    /** The clock that says which day and month it is (default: the system's). */
    now?: () => Date;
  };
  /** The most items a workflow map step runs at once (`limits.maxParallel`; default 16): a spec asking more is refused. */
  maxParallel?: number;
  /**
   * Runs every map step's items and every parallel group's steps this many at once, whatever
   * the spec says (`--max-parallel`); still at most `maxParallel`.
   */
  parallel?: number;
  /** How long one attempt of a workflow step may take when the step sets no `timeout:` (before the spec's `defaults.timeout`). */
  stepTimeoutMs?: number;
  /**
   * Keeps a copy of what each model call is given (its system prompt and messages, scrubbed of
   * the secrets of `env`) in the store's blobs, named in the call's `usage-recorded` event, so
   * traces can show the prompts (`gen_ai.input.messages`, see `@resume/runner/tracing`). Default
   * off; the CLI turns it on with `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`.
   */
  capturePrompts?: boolean;
}

export type { AgentInput };

/** Start options: each mode reads the ones its options schema declares (these are the built-in modes'). */
export interface StartOptions {
  [option: string]: unknown;
  maxRounds?: number;
  forceConsensus?: boolean;
  /** Iterative: the project file (workspace-relative or absolute). */
  project?: string;
  chunkSize?: number;
  startChunk?: number;
  maxIterations?: number;
  tools?: string[];
}

export interface StartInput {
  /** A registered mode that starts from a task (built in: discussion, iterative, orchestrated). */
  mode: string;
  task: string;
  title?: string;
  agents?: AgentInput[];
  judge?: AgentInput;
  options?: StartOptions;
  /** Recorded in the session for later resumes: provider, models, script... (never secrets). */
  record?: Record<string, JsonValue>;
}

export interface PlanOptions {
  /** Plan a resume from an earlier checkpoint (a seq, `round N` or a label). */
  fromCheckpoint?: number | string;
  /** Run in this directory instead of the session's recorded workspace (`--workspace`). */
  workspaceDir?: string;
  /** Run the spec file as it is now instead of the recorded snapshot (`--use-edited-spec`). */
  useEditedSpec?: boolean;
  /** Iterative sessions: go on at this chunk (`--start-chunk`); checked like the resume checks it. */
  startChunk?: number;
}

export interface ResumeOptions {
  /** Resume from an earlier checkpoint (a seq, `round N` or a label): runs as a branch, the journal is append-only. */
  fromCheckpoint?: number | string;
  /** Go on although the compatibility check blocks or the recovery limit is reached. */
  force?: boolean;
  /**
   * Shell steps, tools and file checks run in the session's recorded workspace; this runs them
   * in another directory (relative paths from the runner's workspaceDir).
   */
  workspaceDir?: string;
  /** Run the workflow or prompt file as edited since the session started (default: the recorded spec). */
  useEditedSpec?: boolean;
  forceConsensus?: boolean;
  maxRounds?: number;
  startChunk?: number;
  /** Other models for the same agents (by position). */
  models?: string[];
}

export interface ContinueOptions {
  /** Start fresh rounds with only the previous conclusion as context. */
  resetDiscussion?: boolean;
  forceConsensus?: boolean;
  maxRounds?: number;
  models?: string[];
  /** Budget for the parent history handed to the child, in estimated tokens (default 8000). */
  budgetTokens?: number;
  title?: string;
  /**
   * Where the child works (relative paths from the runner's workspaceDir). Default: the parent's
   * recorded workspace, so a follow-up's tools act where the parent's did, wherever it is asked from.
   */
  workspaceDir?: string;
}

export interface BranchInput {
  /** A checkpoint seq, `round N` or a checkpoint label. */
  at: number | string;
  followUp?: string;
  title?: string;
}

export interface WorkflowInput {
  variables?: Record<string, string>;
  title?: string;
  record?: Record<string, JsonValue>;
  /** Runs in a new git worktree on the branch `conclave/<session>` (as a spec's `worktree: true`). */
  worktree?: boolean;
}

export interface RunResult {
  sessionId: string;
  /** `waiting`: the agent asked the user (`ask_user`); answer it, then resume. */
  status: 'completed' | 'interrupted' | 'waiting' | 'failed';
  conclusion: string | null;
  /** A waiting run: the question and the name it waits under. */
  waitingFor?: { key: string; prompt: string };
  /** The exact command that resumes an unfinished run. */
  resumeCommand: string | null;
  usage: UsageTotals;
  /** Why a failed run failed (or, with `stopReason`, why it stopped). */
  error: ConclaveError | Error | null;
  /** Why an interrupted run stopped on its own: a model call would have passed the cost limit. */
  stopReason?: 'cost-limit';
  /**
   * The resume was declined before anything ran (the resume prompt answered no, a file
   * conflict or model choice cancelled): the session is unchanged and still resumable.
   */
  cancelled?: boolean;
}

export interface Runner {
  start(input: StartInput): Promise<RunResult>;
  resume(sessionId: string, options?: ResumeOptions): Promise<RunResult>;
  continue(sessionId: string, followUp: string, options?: ContinueOptions): Promise<RunResult>;
  branch(sessionId: string, input: BranchInput): Promise<RunResult>;
  runWorkflow(filePath: string, input?: WorkflowInput): Promise<RunResult>;
  plan(sessionId: string, options?: PlanOptions): Promise<ResumePlan>;
  /** Aborts the in-flight call and journals `interrupted`; the running method returns status `interrupted`. */
  interrupt(reason?: string): Promise<void>;
  /** A workflow session's map steps with each item's state (completed, failed: the dead-letter list, started, pending). */
  mapItems(sessionId: string): Promise<MapStepStatus[]>;
  /**
   * Runs failed map items again (`'failed'`: all of them, or these item ids): the retry is
   * journaled, then the session resumes; items that completed never run again.
   */
  retryItems(sessionId: string, selection: ItemSelection, options?: ResumeOptions): Promise<RunResult>;
}
