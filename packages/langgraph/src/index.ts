// `@resume/langgraph`: a LangGraph.js checkpointer on Conclave's stores.
export { CheckpointDataError } from './errors/checkpoint-data-error.js';
export { ThreadBusyError } from './errors/thread-busy-error.js';
export { ThreadConfigError } from './errors/thread-config-error.js';
export type { PruneOptions, ThreadPruneReport } from './saver/prune.js';
export { ResumeCheckpointSaver, type ResumeCheckpointSaverOptions } from './saver/resume-checkpoint-saver.js';
export { threadSessionId } from './saver/thread-session-id.js';
