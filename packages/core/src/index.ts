// `@resume/core`: durable, resumable AI sessions.
export * as spec from './spec/index.js';

// Config loading and retention (used by the CLI and embedders that want the same files).
export {
  type AgentConfig,
  type ConclaveConfig,
  type ConfigFile,
  configFileSchema,
  type ProviderName,
  providerNameSchema,
} from './config/config-schema.js';
export {
  HOME_CONFIG_FILE,
  type LoadConfigOptions,
  type LoadedConfig,
  loadConfig,
  parseConfigText,
  readConfigFile,
  WORKSPACE_CONFIG_FILE,
} from './config/load-config.js';
export {
  formatBytes,
  parseDurationDays,
  type RetentionPolicy,
  type RetentionReason,
  type RetentionSelection,
  selectForRetention,
} from './retention/select-for-retention.js';

// Secrets, usage and cost (security/, usage/).
export { createRedactor, isSecretEnvName, REDACTED, type Redactor, type RedactorOptions } from './security/redactor.js';
export {
  type CostOptions,
  costOf,
  type ModelPrice,
  modelPriceSchema,
  type PriceTable,
  priceOf,
  priceTable,
  priceTableSchema,
} from './usage/cost.js';
