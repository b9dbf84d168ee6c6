// `@resume/runner/config`: loading the config files and the retention policy they
// describe, without the runner or the modes, and without the YAML parser: it loads
// only when a config file exists (`loadConfigOnDemand`). The synchronous loaders
// (`loadConfig`, `readConfigFile`, `parseConfigText`) need the parser at hand and are
// exported by `@resume/runner` only, with every name below.

export { headerVariables, type McpServerConfig } from '../mcp/mcp-server-config.js';
export {
  formatBytes,
  parseDurationDays,
  type RetentionPolicy,
  type RetentionReason,
  type RetentionSelection,
  selectForRetention,
} from '../retention/select-for-retention.js';
export {
  type AgentConfig,
  type ConclaveConfig,
  type ConfigFile,
  configFileSchema,
  type ProviderName,
  providerNameSchema,
} from './config-schema.js';
export { describeDuration, parseDuration } from './duration.js';
export {
  HOME_CONFIG_FILE,
  type LoadConfigOptions,
  type LoadedConfig,
  loadConfigOnDemand,
  WORKSPACE_CONFIG_FILE,
} from './resolve-config.js';
