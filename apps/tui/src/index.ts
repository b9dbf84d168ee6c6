// `@resume/tui`: the Ink screens of Conclave. The CLI imports this lazily, only when
// it needs an interactive screen.

export {
  askAnswer,
  askFollowUp,
  askModelUnavailable,
  askUncertainStep,
  askUnfinishedContinue,
  confirmDelete,
  confirmResume,
  type PickSessionOptions,
  pickSession,
  resolveConflictsInteractively,
} from './api/interactive-screens.js';
export { findContentMatch, searchContentWith } from './backend/content-search.js';
export {
  buildLineage,
  createEngineBackend,
  type EngineBackendOptions,
  type EngineForTui,
  lineageCost,
} from './backend/engine-backend.js';
export type {
  AnswerOutcome,
  CheckpointEntry,
  ContentMatch,
  ContentMessage,
  LineageEntry,
  PendingQuestion,
  ResumePlanView,
  SessionDetails,
  TuiBackend,
} from './backend/tui-backend.js';
export { commandFor, openSessionBrowser } from './browser/open-session-browser.js';
export type { ConflictChoice, ConflictFile, FileStatus } from './conflicts/conflict-reducer.js';
export type { DiffSource } from './conflicts/use-conflict-screen.js';
export { createLiveRunView, type LiveRunHandle } from './live/create-live-run-view.js';
export type { LiveRunEvent, LiveRunResult } from './live/live-run-reducer.js';
export { defaultAction, type PickedAction, type PickedSession } from './picker/index.js';
export { type ResumePromptPlan, resumePlanView } from './plan/resume-prompt-plan.js';
export type { AnswerPromptInfo, SubmitAnswer } from './prompts/answer-prompt.js';
export type { DeleteInfo } from './prompts/delete-prompt.js';
export type { FollowUpInfo } from './prompts/follow-up-prompt.js';
export type { ModelUnavailableAnswer, ModelUnavailableInfo } from './prompts/model-unavailable-prompt.js';
export type { UncertainStepAnswer } from './prompts/uncertain-step-prompt.js';
export type {
  UnfinishedContinueAnswer,
  UnfinishedContinueInfo,
} from './prompts/unfinished-continue-prompt.js';
export type { ScreenIo } from './render/screen-io.js';
