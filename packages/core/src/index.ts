// `@resume/core`: durable, resumable AI sessions. Explicit named exports only.

// Config loading and retention (used by the CLI and embedders that want the same files).
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
// ---- engine and sessions (DESIGN 4)
export { createEngine } from './engine/engine.js';
export { isRetryableByDefault, toErrorInfo } from './engine/error-info.js';
export type { Jsonify } from './engine/json-output.js';
export { SNAPSHOT_FORMAT_VERSION } from './engine/session.js';
export type {
  CodecStepOptions,
  CreateSessionInput,
  Engine,
  EngineOptions,
  ForkOptions,
  OpenSessionOptions,
  ReplayPolicy,
  RetryPolicy,
  RunOptions,
  RunTarget,
  Session,
  StepCodec,
  StepContext,
  StepFunction,
  StepOptions,
  UncertainDecision,
} from './engine/types.js';
// ---- files: snapshots, conflicts, git and workspace state (files/)
export {
  diffFileChange,
  type FileConflictChoice,
  type FileResolution,
  type ResolveFileConflictsInput,
  resolveFileConflicts,
  unifiedDiff,
  writeFileAtomically,
} from './files/file-conflicts.js';
export {
  type CompareWorkspaceFilesInput,
  compareWorkspaceFiles,
  type FileChange,
  type FileChangeStatus,
  type FileSnapshot,
  fileConflicts,
  hashContent,
  readWorkspaceFile,
  type SnapshotFileInput,
  type SnapshotRecorder,
  snapshotFile,
} from './files/file-snapshots.js';
export {
  compareGitState,
  compareWorkspaceDirectory,
  type GitComparison,
  readGitState,
  type WorkspaceComparison,
} from './files/git-state.js';
export { WorkspaceAccessError, type WorkspaceAccessReason } from './files/workspace-access-error.js';
export { type ResolvedWorkspacePath, resolveWorkspacePath } from './files/workspace-path.js';
// ---- journal and fold
export { Folder, fold, stateAt, stepId, summarize } from './journal/fold.js';
export type {
  CheckpointRecord,
  FileSnapshotRecord,
  MessageRecord,
  SessionState,
  SpecRecord,
  StepAttempt,
  StepRecord,
  ToolCallRecord,
  UsageRecord,
  UsageTotals,
} from './journal/state.js';
export {
  type AgentSpec,
  agentsForModels,
  defaultDiscussionAgents,
  defaultJudge,
  defaultLead,
} from './modes/agent-spec.js';
export { splitIntoChunks } from './modes/chunking.js';
export { parseVerdict, type Verdict } from './modes/discussion.js';
export type { ModelResolver, ModeTool, ToolOutcome } from './modes/mode-context.js';
export { ShellCommandFailedError, type ShellResult } from './modes/shell-command.js';
export { adaptWorkspaceTools } from './modes/workspace-tool-adapter.js';
// ---- resume planning, compatibility, continuation and lineage (resume/)
export {
  CONCLUSION_TAGS,
  type CompactionOptions,
  type CompactionResult,
  type CompactionStrategy,
  createExtractiveCompaction,
  type ExtractiveCompactionOptions,
  estimateMessagesTokens,
  estimateMessageTokens,
  estimateTokens,
  findConclusionIndex,
  findTaskIndex,
  firstSentence,
  SUMMARY_TAG,
} from './resume/compaction.js';
export {
  agentsThatRan,
  type CheckCompatibilityInput,
  type CompatibilityFinding,
  type CompatibilityFindingKind,
  type CompatibilityLevel,
  type CompatibilityReport,
  type CompatibilitySuggestion,
  checkCompatibility,
  type ModelChoice,
  modelsUsedBy,
  REWRITE_SIMILARITY,
  readRecordedSpecText,
  type SuggestionKind,
} from './resume/compatibility.js';
export {
  buildContinuationMessages,
  buildResumeMessage,
  CONTINUATION_TAG,
  type ContinuationMessages,
  type ContinuationOptions,
  continuationPrompt,
  FOLLOW_UP_TAG,
  PARENT_HISTORY_TAG,
  RESUME_MESSAGE_TAG,
  type ResumeMessageOptions,
  type ResumeReason,
} from './resume/continuation.js';
export { type FormatResumePlanOptions, formatResumePlan } from './resume/format-resume-plan.js';
export {
  type LineageEntry,
  type LineageUsage,
  lineageOf,
  lineageUsage,
  type SessionUsage,
} from './resume/lineage.js';
export {
  type BuildResumePlanOptions,
  buildResumePlan,
  describeAttempt,
  type PlannedStep,
  type ResumePlan,
  type ResumePlanChanges,
  type RetryingPlannedStep,
  type UncertainPlannedStep,
} from './resume/resume-plan.js';
export { hashSpec, normalizeSpecText, type SpecStructure, specSimilarity, specStructure } from './resume/spec-text.js';
export {
  formatBytes,
  parseDurationDays,
  type RetentionPolicy,
  type RetentionReason,
  type RetentionSelection,
  selectForRetention,
} from './retention/select-for-retention.js';
export { describeNext, findCheckpointSeq } from './runner/describe-next.js';
export { type RunConfig, type RunMode, readRunConfig, runConfigSchema } from './runner/run-config.js';
export type { RunEvent, RunEventListener } from './runner/run-event.js';
// ---- runner (runner/), as the CLI and the TUI call it
export {
  type AgentInput,
  type BranchInput,
  type ContinueOptions,
  createRunner,
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
// Secrets, usage and cost (security/, usage/).
export { createRedactor, isSecretEnvName, REDACTED, type Redactor, type RedactorOptions } from './security/redactor.js';
// ---- the spec (also at `@resume/core/spec`)
export * from './spec/index.js';
// ---- workspace tools of the orchestrated mode (tools/)
export { splitCommandLine } from './tools/command-line.js';
export type { CommandResult } from './tools/run-command.js';
export { WorkspaceToolError, type WorkspaceToolErrorReason } from './tools/workspace-tool-error.js';
export {
  createWorkspaceTools,
  type TouchedFile,
  type WorkspaceToolExecution,
  type WorkspaceToolName,
  type WorkspaceTools,
  type WorkspaceToolsOptions,
  workspaceToolSafety,
} from './tools/workspace-tools.js';
export {
  type CostOptions,
  costOf,
  type ModelPrice,
  modelPriceSchema,
  type PriceTable,
  priceOf,
  priceTable,
  priceTableSchema,
} from './usage/cost.js';
// ---- workflow specs and prompt files (workflow/)
export { parseDuration } from './workflow/duration.js';
export {
  type PromptFile,
  type PromptFrontMatter,
  parsePromptFile,
  promptFrontMatterSchema,
} from './workflow/prompt-file.js';
export { renderTemplate, type TemplateScope, templateReferences } from './workflow/template.js';
export {
  checkWorkflow,
  hashText,
  isShellStep,
  parseWorkflowSpec,
  resolveVariables,
  type WorkflowSpec,
  type WorkflowStep,
  workflowSpecSchema,
} from './workflow/workflow-spec.js';
