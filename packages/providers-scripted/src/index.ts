// `@resume/providers-scripted`: deterministic offline chat models for demos, tests and benchmarks.

export {
  loadScript,
  type ParsedScriptTurn,
  parseScript,
  parseScriptText,
  type ScriptTurn,
  scriptSchema,
  scriptToolCallSchema,
  scriptTurnSchema,
} from './script.js';
export {
  type CallLogEntry,
  CHARACTERS_PER_TOKEN,
  createScriptedProvider,
  SCRIPTED_PROVIDER_NAME,
  type ScriptedProviderOptions,
} from './scripted-provider.js';
