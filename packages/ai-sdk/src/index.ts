// `@resume/ai-sdk`: durable Vercel AI SDK code. `durable(session)` is a language model
// middleware that journals every model call as a durable step; `durableTool` does the same
// for a tool's execute.
export { type DurableModelOptions, durable, type ModelCallCost } from './durable-model.js';
export { type DurableToolOptions, durableTool, durableTools } from './durable-tool.js';
export { fromJson, hashOf, toJson } from './journal-json.js';
export { PromptChangedError } from './prompt-changed-error.js';
