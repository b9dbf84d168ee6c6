// The synchronous config loader: `loadConfig` resolves the effective config with the YAML
// parser at hand (see resolve-config.ts for the rules and for the loader that loads the
// parser only when a config file exists).
import { parseConfigText } from './parse-config-text.js';
import { type LoadConfigOptions, type LoadedConfig, readOptionalFile, resolveConfig } from './resolve-config.js';

export { parseConfigText } from './parse-config-text.js';
export {
  DEFAULT_SOURCE,
  HOME_CONFIG_FILE,
  type LoadConfigOptions,
  type LoadedConfig,
  loadConfigOnDemand,
  WORKSPACE_CONFIG_FILE,
} from './resolve-config.js';

export function loadConfig(options: LoadConfigOptions): LoadedConfig {
  return resolveConfig(options, parseConfigText);
}

/** Reads and validates one config file; null when it does not exist. */
export function readConfigFile(file: string, readFile: (file: string) => string | null = readOptionalFile) {
  const text = readFile(file);
  if (text === null) return null;
  return parseConfigText(text, file);
}
