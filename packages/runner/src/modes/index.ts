// `@resume/runner/modes`: the mode interface, the registry and the built-in modes, without
// the runner (a mode's run code loads when it runs), so a CLI can list modes at start-up.
export { type AgentSpec, agentSpecSchema } from './agent-spec.js';
export { builtinModes } from './builtin-modes.js';
export { type ChainConfig, chainConfigSchema, chainMode } from './chain-mode.js';
export { type DiscussionConfig, discussionConfigSchema, discussionMode } from './discussion-mode.js';
export { type IterativeConfig, iterativeConfigSchema, iterativeMode } from './iterative-mode.js';
export {
  type AgentInput,
  defineMode,
  type FileStartInput,
  type Mode,
  type ModeConfig,
  type ModeFlag,
  type ModeRunContext,
  type ModeSetup,
  type ModeSpecFile,
  type ModeStart,
  type ModeStartInput,
  type RunOverrides,
  type TaskStartInput,
} from './mode.js';
export type { ModeContext, ModelResolver, ModeResult, ModeTool, ToolOutcome } from './mode-context.js';
export { parseModeOptions, positiveIntegerOption } from './mode-options.js';
export { createModeRegistry, type ModeRegistry } from './mode-registry.js';
export { type OrchestratedConfig, orchestratedConfigSchema, orchestratedMode } from './orchestrated-mode.js';
export { type PromptConfig, promptConfigSchema, promptMode } from './prompt-mode.js';
export { UnknownModeError } from './unknown-mode-error.js';
