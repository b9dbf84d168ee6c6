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
  parseConfigText,
  readConfigFile,
  WORKSPACE_CONFIG_FILE,
} from './config/load-config.js';
// ---- engine and sessions (DESIGN 4)
export { createEngine } from './engine/engine.js';
export { isRetryableByDefault, toErrorInfo } from './engine/error-info.js';
export { SNAPSHOT_FORMAT_VERSION } from './engine/session.js';
export type {
  CreateSessionInput,
  Engine,
  EngineOptions,
  ForkOptions,
  OpenSessionOptions,
  RetryPolicy,
  Session,
  StepContext,
  StepOptions,
  UncertainDecision,
} from './engine/types.js';
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
  formatBytes,
  parseDurationDays,
  type RetentionPolicy,
  type RetentionReason,
  type RetentionSelection,
  selectForRetention,
} from './retention/select-for-retention.js';
// Secrets, usage and cost (security/, usage/).
export { createRedactor, isSecretEnvName, REDACTED, type Redactor, type RedactorOptions } from './security/redactor.js';
// ---- the spec (also at `@resume/core/spec`)
export * from './spec/index.js';
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
