// `@resume/core/spec`: the interfaces, schemas and error types adapters implement and use.
// Adapters import only this subpath.

export { AppendConflictError } from './errors/append-conflict-error.js';
export { ConclaveError, type ConclaveErrorOptions } from './errors/conclave-error.js';
export { ConfigError } from './errors/config-error.js';
export { EncryptionKeyUnavailableError } from './errors/encryption-key-unavailable-error.js';
export { fileAccessError } from './errors/file-access-error.js';
export { FileNotFoundError } from './errors/file-not-found-error.js';
export { IncompatibleSessionError } from './errors/incompatible-session-error.js';
export { InputRejectedError } from './errors/input-rejected-error.js';
export { InterruptedError } from './errors/interrupted-error.js';
export { JournalCorruptedError } from './errors/journal-corrupted-error.js';
export { LeaseLostError } from './errors/lease-lost-error.js';
export { PermissionDeniedError, permissionDeniedHint } from './errors/permission-denied-error.js';
export { ProviderError, type ProviderErrorReason } from './errors/provider-error.js';
export {
  createProviderErrorFactory,
  type ProviderCallContext,
  type ProviderErrorDetails,
  type ProviderErrorFactory,
  type ProviderErrorFactoryOptions,
  parseToolCallArguments,
  providerErrorReasonForStatus,
} from './errors/provider-error-factory.js';
export { RecoveryLimitError } from './errors/recovery-limit-error.js';
export { ReplayMismatchError } from './errors/replay-mismatch-error.js';
export { type DeletedSessionRecord, SessionDeletedError } from './errors/session-deleted-error.js';
export { SessionExistsError } from './errors/session-exists-error.js';
export { SessionFinishedError } from './errors/session-finished-error.js';
export { type LeaseHolderInfo, SessionLockedError } from './errors/session-locked-error.js';
export { SessionNameTakenError } from './errors/session-name-taken-error.js';
export { SessionNotFoundError, type SessionNotFoundErrorOptions } from './errors/session-not-found-error.js';
export { StepAbortedError } from './errors/step-aborted-error.js';
export { type FailedAttempt, StepFailedError } from './errors/step-failed-error.js';
export { StepOutputError } from './errors/step-output-error.js';
export { StoreFullError } from './errors/store-full-error.js';
export { StoreIoError } from './errors/store-io-error.js';
export { type StoreQuotaDetails, StoreQuotaError, type StoreQuotaLimit } from './errors/store-quota-error.js';
export { UncertainStepError, type UncertainStepInfo } from './errors/uncertain-step-error.js';
export { UnsupportedFormatError } from './errors/unsupported-format-error.js';
export { UsageError } from './errors/usage-error.js';
export { WaitingForInputError } from './errors/waiting-for-input-error.js';
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
  parseJournalEvent,
  SESSION_MODE_PATTERN,
  type SessionHeader,
  type SessionMode,
  type SessionStatus,
  type StepProcess,
  type StepSafety,
  type StepScope,
  type StoppedStepProcess,
  safeParseJournalEvent,
  sessionHeaderSchema,
  sessionModeSchema,
  sessionStatusSchema,
  type ToolCall,
  toolCallSchema,
} from './events.js';
export { formatBytes } from './format-bytes.js';
export {
  createSessionId,
  isSessionId,
  type SessionId,
  SHORT_ID_LENGTH,
  sessionIdPattern,
  sessionIdSchema,
  sessionIdTime,
  uniqueIdPrefixes,
} from './ids.js';
export {
  type ChatMessage,
  type ChatModel,
  type ChatProvider,
  type FinishReason,
  type GenerateMetadata,
  type GenerateRequest,
  type GenerateResult,
  MODEL_SPECIFICATION_VERSION,
  type ToolDefinition,
  type Usage,
} from './model.js';
export { type PrintableLayout, printableText } from './printable-text.js';
export {
  createProcessProbe,
  type HolderIdentity,
  isHolderAlive,
  isProcessGroupAlive,
  type ProcessProbe,
} from './process-probe.js';
export {
  createToolCallDrafts,
  providerErrorFromSdk,
  type SdkApiError,
  type SdkErrorClasses,
  type ToolCallDrafts,
  type ToolCallPiece,
} from './provider-sdk.js';
export { matchesQuery } from './query.js';
export { retryAfterMs } from './retry-after.js';
export { MINIMUM_SECRET_LENGTH, REDACTED, SECRET_SHAPES, type SecretShape, scrubSecrets } from './secret-shapes.js';
export {
  type AcquireLeaseOptions,
  type AppendBatch,
  checkDerivedName,
  type FoldSnapshot,
  type IntegrityProblem,
  type JournalRewrite,
  type LeaseHolder,
  type LostStep,
  newSessionRequest,
  type ReadRange,
  type RepairReport,
  type RewriteReport,
  type RewrittenBatch,
  type SessionLease,
  type SessionRequest,
  type SessionRequestInput,
  type SessionStore,
  STORE_SPECIFICATION_VERSION,
  type StoreChange,
  sessionRequestSchema,
  type VerifyReport,
} from './store.js';
export {
  type SessionQuery,
  type SessionSummary,
  sessionQuerySchema,
  sessionSummarySchema,
  summaryFromHeader,
} from './summary.js';
export { maskUrlCredentials } from './url-credentials.js';
