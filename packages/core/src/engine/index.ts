// `@resume/core/engine`: the engine, sessions and the fold, without the runner, modes,
// workflows or file tools. For programs that only open, list and read sessions (the
// CLI's admin commands): importing it loads a small part of core. The same names are
// exported by `@resume/core`.
export { Folder, fold, pendingInput, stateAt, stepId, summarize } from '../journal/fold.js';
export type {
  CheckpointRecord,
  FileSnapshotRecord,
  InputRecord,
  MessageRecord,
  SessionMetadata,
  SessionState,
  SpecRecord,
  StepAttempt,
  StepRecord,
  ToolCallRecord,
  UsageRecord,
  UsageTotals,
} from '../journal/state.js';
export {
  createKnownSecretScrubber,
  createRedactor,
  isSecretEnvName,
  REDACTED,
  type Redactor,
  type RedactorOptions,
} from '../security/redactor.js';
export { answerFromText, type ExpectedAnswer, expectedAnswer } from './answer-text.js';
export { createEngine } from './engine.js';
export { isRetryableByDefault, toErrorInfo } from './error-info.js';
export type { Jsonify } from './json-output.js';
export { checkSessionName, checkTags, type MetadataChange } from './metadata.js';
export { SNAPSHOT_FORMAT_VERSION } from './session.js';
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
} from './types.js';
export { answerProblem } from './wait.js';
