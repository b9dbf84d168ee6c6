// `@resume/core/config`: loading the config files and the retention policy they
// describe, without the engine or the runner (the same names are exported by
// `@resume/core`).

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
export {
  HOME_CONFIG_FILE,
  type LoadConfigOptions,
  type LoadedConfig,
  loadConfig,
  parseConfigText,
  readConfigFile,
  WORKSPACE_CONFIG_FILE,
} from './load-config.js';
