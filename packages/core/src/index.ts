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
  CodecStepOptions,
  CreateSessionInput,
  Engine,
  EngineOptions,
  ForkOptions,
  OpenSessionOptions,
  ReplayPolicy,
  RespondOptions,
  RetryContext,
  RetryPolicy,
  RunOptions,
  RunTarget,
  Session,
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
// ---- secrets (security/)
export {
  createKnownSecretScrubber,
  createRedactor,
  isSecretEnvName,
  type Redactor,
  type RedactorOptions,
} from './security/redactor.js';
// ---- the spec, by name (also at `@resume/core/spec`)
export { AppendConflictError } from './spec/errors/append-conflict-error.js';
export { ConclaveError, type ConclaveErrorOptions, ExitCode } from './spec/errors/conclave-error.js';
export { ConfigError } from './spec/errors/config-error.js';
export { fileAccessError } from './spec/errors/file-access-error.js';
export { FileNotFoundError } from './spec/errors/file-not-found-error.js';
export { IncompatibleSessionError } from './spec/errors/incompatible-session-error.js';
export { InputRejectedError } from './spec/errors/input-rejected-error.js';
export { InterruptedError } from './spec/errors/interrupted-error.js';
export { JournalCorruptedError } from './spec/errors/journal-corrupted-error.js';
export { LeaseLostError } from './spec/errors/lease-lost-error.js';
export { PermissionDeniedError, permissionDeniedHint } from './spec/errors/permission-denied-error.js';
export { ProviderError, type ProviderErrorReason } from './spec/errors/provider-error.js';
export {
  createProviderErrorFactory,
  type ProviderCallContext,
  type ProviderErrorDetails,
  type ProviderErrorFactory,
  type ProviderErrorFactoryOptions,
  parseToolCallArguments,
  providerErrorReasonForStatus,
} from './spec/errors/provider-error-factory.js';
export { RecoveryLimitError } from './spec/errors/recovery-limit-error.js';
export { ReplayMismatchError } from './spec/errors/replay-mismatch-error.js';
export { type DeletedSessionRecord, SessionDeletedError } from './spec/errors/session-deleted-error.js';
export { SessionExistsError } from './spec/errors/session-exists-error.js';
export { SessionFinishedError } from './spec/errors/session-finished-error.js';
export { type LeaseHolderInfo, SessionLockedError } from './spec/errors/session-locked-error.js';
export { SessionNotFoundError, type SessionNotFoundErrorOptions } from './spec/errors/session-not-found-error.js';
export { StepAbortedError } from './spec/errors/step-aborted-error.js';
export { type FailedAttempt, StepFailedError } from './spec/errors/step-failed-error.js';
export { StepOutputError } from './spec/errors/step-output-error.js';
export { StoreFullError } from './spec/errors/store-full-error.js';
export { StoreIoError } from './spec/errors/store-io-error.js';
export { UncertainStepError, type UncertainStepInfo } from './spec/errors/uncertain-step-error.js';
export { UnsupportedFormatError } from './spec/errors/unsupported-format-error.js';
export { UsageError } from './spec/errors/usage-error.js';
export { WaitingForInputError } from './spec/errors/waiting-for-input-error.js';
export {
  type ErrorInfo,
  type EventInput,
  type GitState,
  JOURNAL_FORMAT_VERSION,
  type JournalEvent,
  type JournalEventOf,
  type JournalEventType,
  type JsonValue,
  journalEventSchema,
  jsonValueSchema,
  type Message,
  type MessageInput,
  type MessageRole,
  messageSchema,
  PARENT_HISTORY_TAG,
  SESSION_MODE_PATTERN,
  type SessionHeader,
  type SessionMode,
  type SessionStatus,
  type StepSafety,
  type StepScope,
  sessionHeaderSchema,
  sessionModeSchema,
  sessionStatusSchema,
  type ToolCall,
  toolCallSchema,
} from './spec/events.js';
export {
  createSessionId,
  isSessionId,
  type SessionId,
  SHORT_ID_LENGTH,
  sessionIdPattern,
  sessionIdSchema,
  sessionIdTime,
  uniqueIdPrefixes,
} from './spec/ids.js';
export { lazySchema, once } from './spec/lazy-schema.js';
export {
  type ChatMessage,
  type ChatModel,
  type ChatProvider,
  type FinishReason,
  type GenerateMetadata,
  type GenerateRequest,
  type GenerateResult,
  JUDGE_VERDICT_PATTERN,
  MODEL_SPECIFICATION_VERSION,
  type ToolDefinition,
  type Usage,
} from './spec/model.js';
export { type PrintableLayout, printableText } from './spec/printable-text.js';
export { matchesQuery } from './spec/query.js';
export { retryAfterMs } from './spec/retry-after.js';
export {
  MINIMUM_SECRET_LENGTH,
  REDACTED,
  SECRET_SHAPES,
  type SecretShape,
  scrubSecrets,
} from './spec/secret-shapes.js';
export {
  type AcquireLeaseOptions,
  type AppendBatch,
  type FoldSnapshot,
  type IntegrityProblem,
  type LeaseHolder,
  type LostStep,
  type ReadRange,
  type RepairReport,
  type SessionLease,
  type SessionStore,
  STORE_SPECIFICATION_VERSION,
  type StoreChange,
  type VerifyReport,
} from './spec/store.js';
export { type SessionQuery, type SessionSummary, sessionQuerySchema, sessionSummarySchema } from './spec/summary.js';
export { maskUrlCredentials } from './spec/url-credentials.js';
