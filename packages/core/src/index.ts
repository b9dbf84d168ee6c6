// `@resume/core`: the checkpoint/resume engine. The journal and its fold, the engine with
// durable steps, leases and forks, redaction, and the spec (interfaces, events, errors)
// that stores and model providers implement. What Conclave builds on top (runner, modes,
// workflows, config, pricing) is `@resume/runner`. Explicit named exports only.

// ---- engine and sessions (docs/engine.md)
export { answerFromText, type ExpectedAnswer, expectedAnswer } from './engine/answer-text.js';
export { createEngine } from './engine/engine.js';
export { isRetryableByDefault, toErrorInfo } from './engine/error-info.js';
export type { Jsonify } from './engine/json-output.js';
export { checkSessionName, checkTags, type MetadataChange } from './engine/metadata.js';
export { SNAPSHOT_FORMAT_VERSION } from './engine/session.js';
export type {
  AttemptStart,
  CodecStepOptions,
  CreateSessionInput,
  Engine,
  EngineOptions,
  ForkOptions,
  LeftReason,
  OpenSessionOptions,
  RecoverOptions,
  RecoveryReport,
  RegisteredJob,
  RegisterOptions,
  ReplayPolicy,
  RespondOptions,
  RetryContext,
  RetryPolicy,
  RunOptions,
  RunTarget,
  Session,
  SleepOptions,
  StartOptions,
  StepCodec,
  StepContext,
  StepFunction,
  StepOptions,
  UncertainDecision,
  WaitForOptions,
} from './engine/types.js';
export { answerProblem } from './engine/wait.js';
// ---- journal and fold
export { Folder, fold, pendingInput, stateAt, stepId, summarize } from './journal/fold.js';
export type {
  CheckpointRecord,
  FileSnapshotRecord,
  MessageRecord,
  SessionMetadata,
  SessionState,
  SpecRecord,
  StepAttempt,
  StepRecord,
  ToolCallRecord,
  UsageRecord,
  UsageTotals,
} from './journal/state.js';
// ---- encryption at rest (security/, docs/encryption.md)
export {
  createKeyring,
  type DataKey,
  generateDataKey,
  type Keyring,
  type KeyringOptions,
  keyIdFor,
  parseDataKey,
} from './security/keyring.js';
// ---- secrets (security/)
export {
  createKnownSecretScrubber,
  createRedactor,
  isSecretEnvName,
  type Redactor,
  type RedactorOptions,
} from './security/redactor.js';
// ---- what a library user catches, stores and passes; everything a store or provider
// implements against (schemas, versions, lease and repair types, secret shapes, the provider
// error factory) is at `@resume/core/spec`.
export { AppendConflictError } from './spec/errors/append-conflict-error.js';
export { ConclaveError, type ConclaveErrorOptions } from './spec/errors/conclave-error.js';
export { ConfigError } from './spec/errors/config-error.js';
export { EncryptionKeyUnavailableError } from './spec/errors/encryption-key-unavailable-error.js';
export { FileNotFoundError } from './spec/errors/file-not-found-error.js';
export { IncompatibleSessionError } from './spec/errors/incompatible-session-error.js';
export { InputRejectedError } from './spec/errors/input-rejected-error.js';
export { InterruptedError } from './spec/errors/interrupted-error.js';
export { JournalCorruptedError } from './spec/errors/journal-corrupted-error.js';
export { LeaseLostError } from './spec/errors/lease-lost-error.js';
export { PermissionDeniedError } from './spec/errors/permission-denied-error.js';
export { ProviderError, type ProviderErrorReason } from './spec/errors/provider-error.js';
export { RecoveryLimitError } from './spec/errors/recovery-limit-error.js';
export { ReplayMismatchError } from './spec/errors/replay-mismatch-error.js';
export { type DeletedSessionRecord, SessionDeletedError } from './spec/errors/session-deleted-error.js';
export { SessionExistsError } from './spec/errors/session-exists-error.js';
export { SessionFinishedError } from './spec/errors/session-finished-error.js';
export { type LeaseHolderInfo, SessionLockedError } from './spec/errors/session-locked-error.js';
export { SessionNameTakenError } from './spec/errors/session-name-taken-error.js';
export { SessionNotFoundError, type SessionNotFoundErrorOptions } from './spec/errors/session-not-found-error.js';
export { StepAbortedError } from './spec/errors/step-aborted-error.js';
export { type FailedAttempt, StepFailedError } from './spec/errors/step-failed-error.js';
export { StepOutputError } from './spec/errors/step-output-error.js';
export { StoreFullError } from './spec/errors/store-full-error.js';
export { StoreIoError } from './spec/errors/store-io-error.js';
export { StoreQuotaError } from './spec/errors/store-quota-error.js';
export { UncertainStepError, type UncertainStepInfo } from './spec/errors/uncertain-step-error.js';
export { UnsupportedFormatError } from './spec/errors/unsupported-format-error.js';
export { UsageError } from './spec/errors/usage-error.js';
export { WaitingForInputError } from './spec/errors/waiting-for-input-error.js';
export type {
  ErrorInfo,
  EventInput,
  JournalEvent,
  JournalEventOf,
  JournalEventType,
  JsonValue,
  Message,
  MessageInput,
  MessageRole,
  SessionHeader,
  SessionMode,
  SessionStatus,
  StepSafety,
  StepScope,
  ToolCall,
} from './spec/events.js';
export { createSessionId, isSessionId, type SessionId } from './spec/ids.js';
export type {
  ChatMessage,
  ChatModel,
  ChatProvider,
  FinishReason,
  GenerateMetadata,
  GenerateRequest,
  GenerateResult,
  ToolDefinition,
  Usage,
} from './spec/model.js';
export type { SessionStore } from './spec/store.js';
export type { SessionQuery, SessionSummary } from './spec/summary.js';
