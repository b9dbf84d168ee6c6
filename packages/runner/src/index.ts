// `@resume/runner`: what Conclave builds on the engine of `@resume/core`. The runner and its
// modes, workflow specs and prompt files, workspace tools, file snapshots and conflicts,
// resume planning and lineage, config, retention and pricing. The CLI and the TUI call it;
// it reaches the engine only through `@resume/core`'s exports. Explicit named exports only.

// ---- config files (also at `@resume/runner/config`, without the YAML parser)
export {
  type AgentConfig,
  type ConclaveConfig,
  type ConfigFile,
  configFileSchema,
  type ProviderName,
  providerNameSchema,
} from './config/config-schema.js';
export {
  HOME_CONFIG_FILE,
  type LoadConfigOptions,
  type LoadedConfig,
  loadConfig,
  loadConfigOnDemand,
  parseConfigText,
  readConfigFile,
  WORKSPACE_CONFIG_FILE,
} from './config/load-config.js';
// ---- files: snapshots, conflicts, git and workspace state (files/)
export {
  diffFileChange,
  type FileConflictChoice,
  type FileResolution,
  type ResolveFileConflictsInput,
  resolveFileConflicts,
  unifiedDiff,
} from './files/file-conflicts.js';
export {
  describeFileChange,
  type FileChange,
  type FileChangeStatus,
  type FileSnapshot,
  hashContent,
} from './files/file-snapshots.js';
export type { GitComparison, WorkspaceComparison } from './files/git-state.js';
export {
  describeFileKind,
  readUserFile,
  readUserFileBytes,
  USER_FILE_LIMITS,
  type UserFileOptions,
} from './files/user-file.js';
export { WorkspaceAccessError, type WorkspaceAccessReason } from './files/workspace-access-error.js';
export { WorktreeRefusedError } from './files/worktree-refused-error.js';
export type { McpServerConfig, McpSettings } from './mcp/mcp-server-config.js';
export { McpServerError, type McpServerFailure } from './mcp/mcp-server-error.js';
// ---- modes: the agents they run and the errors they raise (modes/)
export {
  type AgentSpec,
  agentsForModels,
  defaultDiscussionAgents,
  defaultJudge,
  defaultLead,
} from './modes/agent-spec.js';
export { JUDGE_VERDICT_PATTERN, parseVerdict, type Verdict } from './modes/discussion.js';
export {
  builtinModes,
  type ChainConfig,
  chainMode,
  createModeRegistry,
  type DiscussionConfig,
  defineMode,
  discussionMode,
  type FileStartInput,
  type IterativeConfig,
  iterativeMode,
  type Mode,
  type ModeConfig,
  type ModeContext,
  type ModeFlag,
  type ModeRegistry,
  type ModeResult,
  type ModeRunContext,
  type ModeSetup,
  type ModeSpecFile,
  type ModeStart,
  type ModeStartInput,
  type ModeTool,
  type OrchestratedConfig,
  orchestratedMode,
  type PromptConfig,
  parseModeOptions,
  positiveIntegerOption,
  promptMode,
  type RunOverrides,
  type TaskStartInput,
  type ToolOutcome,
  UnknownModeError,
} from './modes/index.js';
export { MapItemsFailedError } from './modes/map-items-failed-error.js';
export {
  type DeadLetter,
  type ItemState,
  type MapItemStatus,
  type MapStepStatus,
  mapStatuses,
} from './modes/map-journal.js';
export { MapNoItemsError } from './modes/map-no-items-error.js';
export type { ModelResolver } from './modes/mode-context.js';
export { type FailedBranch, ParallelGroupFailedError } from './modes/parallel-group-failed-error.js';
export { ScoredStepFailedError } from './modes/scored-step-failed-error.js';
export { ShellCommandFailedError, type ShellResult } from './modes/shell-command.js';
export { StepTimedOutError } from './modes/step-timed-out-error.js';
// ---- model providers by name (also at `@resume/runner/providers`)
export {
  builtinProviders,
  configuredModel,
  createProviderRegistry,
  defineProvider,
  type ProviderEnvironment,
  type ProviderFactory,
  type ProviderLoadInput,
  type ProviderRegistry,
  type ProviderSettings,
} from './providers/index.js';
// ---- resume planning, compatibility and lineage (resume/)
export type {
  CompatibilityFinding,
  CompatibilityFindingKind,
  CompatibilityLevel,
  CompatibilityReport,
  CompatibilitySuggestion,
  SuggestionKind,
} from './resume/compatibility.js';
export { type FormatResumePlanOptions, formatResumePlan } from './resume/format-resume-plan.js';
export {
  type LineageEntry,
  type LineageUsage,
  lineageOf,
  lineageUsage,
  type SessionUsage,
} from './resume/lineage.js';
export {
  type EventsLostInRepair,
  eventsLostInRepairOf,
  lostInRepairOf,
  noteStepsLostInRepair,
} from './resume/lost-in-repair.js';
export {
  type BuildResumePlanOptions,
  buildResumePlan,
  type PlannedStep,
  type ResumePlan,
  type ResumePlanChanges,
  type RetryingPlannedStep,
  type SettingChange,
  type UncertainPlannedStep,
} from './resume/resume-plan.js';
// ---- retention (retention/)
export {
  ambiguousDuration,
  formatBytes,
  formatDays,
  parseDurationDays,
  type RetentionPolicy,
  type RetentionReason,
  type RetentionSelection,
  selectForRetention,
} from './retention/select-for-retention.js';
export {
  HANDLED_REQUESTS_KEY,
  type PostedCheckpointRequest,
  requestCheckpoint,
} from './runner/checkpoint-requests.js';
// ---- the runner, as the CLI and the TUI call it (runner/)
export { followUpWorkspace } from './runner/continue.js';
export { describeNext } from './runner/describe-next.js';
export type { RemainingEstimate } from './runner/estimate-remaining.js';
export { chooseItems, readMapItems } from './runner/map-items-command.js';
export { type NextStep, nextStepOf, type StartsFrom } from './runner/next-step.js';
export { libraryRefusal, type RunConfig, readRunConfig } from './runner/run-config.js';
export type { BranchState, ParallelBranchState, RunEvent, RunEventListener } from './runner/run-event.js';
export {
  type AgentInput,
  type BranchInput,
  type ContinueOptions,
  createPlanner,
  createRunner,
  type ItemSelection,
  type ModelDecision,
  type ModelUnavailableFinding,
  type ResumeOptions,
  type RunDecisions,
  type Runner,
  type RunnerOptions,
  type RunResult,
  resumeCommandFor,
  type StartInput,
  type StartOptions,
  type ToolFactoryInput,
  type WorkflowInput,
} from './runner/runner.js';
export type { MapItemQueue, QueuedMapItem } from './runner/runner-types.js';
export { mergeWorktreeRun, type WorktreeMerge } from './runner/worktree-run.js';
// ---- workspace tools of the orchestrated mode (tools/)
export { WorkspaceToolError, type WorkspaceToolErrorReason } from './tools/workspace-tool-error.js';
export {
  createWorkspaceTools,
  type WorkspaceToolName,
  type WorkspaceTools,
  type WorkspaceToolsOptions,
} from './tools/workspace-tools.js';
// ---- usage and cost (usage/)
export {
  type CostOptions,
  costOf,
  formatUsd,
  type ModelPrice,
  type PriceTable,
  priceOf,
  priceTable,
} from './usage/cost.js';
export {
  type CallEstimateInput,
  type CostGuard,
  type CostLimits,
  createCostGuard,
  estimateCallCost,
} from './usage/cost-guard.js';
export { type CostLimitDetails, CostLimitError } from './usage/cost-limit-error.js';
// ---- queued workflow runs and their map items, for workers (workers/)
export {
  MAP_ITEM_JOB,
  queuedItemsEnded,
  queuedMapItem,
  runMapItem,
  runUntilItemsPending,
} from './workers/map-item-job.js';
export {
  type QueuedItemState,
  type QueuedItemStatus,
  type QueuedMapStatus,
  queuedItemsOf,
} from './workers/queued-items.js';
export {
  type QueuedWorkflow,
  queuedWorkflow,
  registerWorkflowJob,
  WORKFLOW_JOB,
  type WorkflowJobQueue,
  type WorkflowJobRunner,
} from './workers/workflow-job.js';
export { DEFAULT_MAX_PARALLEL, MAX_MAP_PARALLEL } from './workflow/map-limits.js';
// ---- workflow specs and prompt files (workflow/)
export {
  type PromptFile,
  type PromptFrontMatter,
  parsePromptFile,
} from './workflow/prompt-file.js';
export { renderTemplate, type TemplateScope } from './workflow/template.js';
export {
  checkParallelLimit,
  checkWorkflow,
  parseWorkflowSpec,
  resolveVariables,
  type WorkflowMapStep,
  type WorkflowParallelStep,
  type WorkflowSpec,
  type WorkflowStep,
  workflowSpecSchema,
} from './workflow/workflow-spec.js';
