// Resolves the effective config: defaults, then `$CONCLAVE_HOME/config.yaml`, then the
// workspace's `.conclave.yaml`, then the environment and command-line overrides (later
// wins). Every file is validated; errors name the file and the key. The result says
// where each value came from, so `conclave config` can show it.
//
// This module does not load the YAML parser or build the config schema: most runs find no
// config file, and `loadConfigOnDemand` loads them only when one exists. `loadConfig`
// (load-config.ts) is the synchronous loader that has them at hand.

import path from 'node:path';
import { ConfigError, FileNotFoundError } from '@resume/core/spec';
import { readUserFile, USER_FILE_LIMITS } from '../files/user-file.js';
import { DEFAULT_MCP_MAX_OUTPUT_BYTES } from '../mcp/mcp-server-config.js';
import type { ProviderRegistry } from '../providers/provider-registry.js';
import { withNextStep } from '../runner/next-step.js';
import { DEFAULT_MAX_PARALLEL } from '../workflow/map-limits.js';
import type { ConclaveConfig, ConfigFile } from './config-schema.js';
import { defaultHome, expandHome, HOME_CONFIG_FILE, WORKSPACE_CONFIG_FILE } from './data-home.js';

export { HOME_CONFIG_FILE, WORKSPACE_CONFIG_FILE } from './data-home.js';

export const DEFAULT_SOURCE = 'default';

export interface LoadConfigOptions {
  /** The workspace directory (where `.conclave.yaml` is looked for). */
  cwd: string;
  /** The user's home directory, for the default data home `~/.conclave`. */
  userHome: string;
  /** The environment (`CONCLAVE_HOME`, `CONCLAVE_STORE_URL`). */
  env: Readonly<Record<string, string | undefined>>;
  /** `--home`: wins over everything. */
  home?: string | undefined;
  /** `--store`: wins over everything. */
  storeUrl?: string | undefined;
  /** The providers whose sections `providers.<name>` may hold (default: the built-in ones). */
  providers?: ProviderRegistry | undefined;
  /** Injected for tests; returns null when the file does not exist. */
  readFile?: (file: string) => string | null;
}

export interface LoadedConfig {
  config: ConclaveConfig;
  /** Dotted key → where its value came from: `default`, a file path, `$NAME` or `--flag`. */
  sources: Record<string, string>;
  /** The config files that were found and read, lowest precedence first. */
  files: string[];
}

const defaults: Omit<ConclaveConfig, 'home'> = {
  store: { url: null },
  encryption: 'off',
  encryptionKey: { file: null, command: null },
  agents: null,
  judge: {},
  provider: null,
  providers: {},
  checkpoint: { snapshotEvery: 1000, interval: 1 },
  resume: { maxRecoveries: 10, resetDiscussion: false, forceConsensus: false, onConflict: null, onUncertain: null },
  retention: {
    maxAgeDays: null,
    maxSessions: null,
    maxBytes: null,
    minKeep: 10,
    includeInterrupted: false,
    automatic: false,
  },
  archive: { afterDays: null },
  trash: { keepDays: 7 },
  discussion: { maxRounds: 4 },
  tools: { allowCommands: [] },
  mcp: { servers: {}, maxOutputBytes: DEFAULT_MCP_MAX_OUTPUT_BYTES },
  limits: {
    maxCostUsd: null,
    maxLineageCostUsd: null,
    warnAboveUsd: null,
    dailyCost: null,
    monthlyCost: null,
    maxParallel: DEFAULT_MAX_PARALLEL,
    maxHomeBytes: null,
    maxSessionBytes: null,
  },
  imports: { requireSigned: false },
  queues: {},
};

type Layer = { source: string; values: Map<string, unknown> };

/** Turns a config file's text into its validated content (parse-config-text.ts). */
export type ConfigTextParser = (text: string, file: string, providers?: ProviderRegistry) => ConfigFile;

/** The effective config, with `parse` for the files that exist (shared by both loaders). */
export function resolveConfig(options: LoadConfigOptions, parse: ConfigTextParser): LoadedConfig {
  const readFile = options.readFile ?? readOptionalFile;
  const readConfigFile = (file: string): ConfigFile | null => {
    const text = readFile(file);
    return text === null ? null : parse(text, file, options.providers);
  };
  const files: string[] = [];

  const workspaceFile = path.resolve(options.cwd, WORKSPACE_CONFIG_FILE);
  const workspace = readConfigFile(workspaceFile);
  if (workspace) files.push(workspaceFile);

  const homeLayers: Layer[] = [];
  let home: { value: string; source: string };
  if (options.home) home = { value: expandHome(options.home, options.userHome, options.cwd), source: '--home' };
  else if (options.env.CONCLAVE_HOME)
    home = { value: expandHome(options.env.CONCLAVE_HOME, options.userHome, options.cwd), source: '$CONCLAVE_HOME' };
  else if (workspace?.home)
    home = { value: expandHome(workspace.home, options.userHome, path.dirname(workspaceFile)), source: workspaceFile };
  else home = { value: defaultHome(options.userHome), source: DEFAULT_SOURCE };

  const homeFile = path.join(home.value, HOME_CONFIG_FILE);
  const homeConfig = readConfigFile(homeFile);
  if (homeConfig) {
    if (homeConfig.home !== undefined)
      throw withNextStep(
        new ConfigError({
          file: homeFile,
          key: 'home',
          problem: 'the data home cannot be set inside the data home',
        }),
        { kind: 'set-home-elsewhere' },
      );
    files.unshift(homeFile);
    homeLayers.push({ source: homeFile, values: flatten(withEncryptionKey(homeConfig, homeFile, options.userHome)) });
  }
  if (workspace) {
    const { home: _home, ...rest } = workspace;
    homeLayers.push({
      source: workspaceFile,
      values: flatten(withEncryptionKey(rest, workspaceFile, options.userHome)),
    });
  }

  const overrides = new Map<string, unknown>();
  const overrideSources = new Map<string, string>();
  if (options.env.CONCLAVE_STORE_URL) {
    overrides.set('store.url', options.env.CONCLAVE_STORE_URL);
    overrideSources.set('store.url', '$CONCLAVE_STORE_URL');
  }
  if (options.storeUrl) {
    overrides.set('store.url', options.storeUrl);
    overrideSources.set('store.url', '--store');
  }

  const sources: Record<string, string> = {};
  const merged = structuredClone(defaults) as unknown as Record<string, unknown>;
  for (const key of flatten(defaults as unknown as Record<string, unknown>).keys()) sources[key] = DEFAULT_SOURCE;
  for (const layer of homeLayers) {
    for (const [key, value] of layer.values) {
      setPath(merged, key, value);
      sources[key] = layer.source;
    }
  }
  for (const [key, value] of overrides) {
    setPath(merged, key, value);
    sources[key] = overrideSources.get(key) ?? DEFAULT_SOURCE;
  }
  // A store path with a leading ~ (quoted, so no shell expanded it) is in the user's home, as a data home is.
  const store = merged.store as { url: string | null };
  if (store.url === '~' || store.url?.startsWith('~/'))
    store.url = expandHome(store.url, options.userHome, options.cwd);
  sources.home = home.source;
  const config = { home: home.value, ...merged } as unknown as ConclaveConfig;
  return { config, sources, files };
}

/**
 * The same result as `loadConfig`, but the YAML parser and the config schema are loaded only
 * when a config file exists (the command line starts faster without them).
 */
export async function loadConfigOnDemand(options: LoadConfigOptions): Promise<LoadedConfig> {
  const readFile = options.readFile ?? readOptionalFile;
  // Each file is read once, whether or not the parser turns out to be needed.
  const texts = new Map<string, string | null>();
  const readOnce = (file: string): string | null => {
    if (!texts.has(file)) texts.set(file, readFile(file));
    return texts.get(file) ?? null;
  };
  const reading: LoadConfigOptions = { ...options, readFile: readOnce };
  try {
    return resolveConfig(reading, () => {
      throw new ParserNeeded();
    });
  } catch (error) {
    if (!(error instanceof ParserNeeded)) throw error;
  }
  const { parseConfigText } = await import('./parse-config-text.js');
  return resolveConfig(reading, parseConfigText);
}

/**
 * A file's `encryption` in the shape of the effective config: its object form
 * (`{ enabled, keyFile, keyCommand }`) becomes `encryption` (when `enabled` is given) and
 * `encryptionKey`, so a file that sets only the key keeps another file's `encryption: on`. A key
 * file's path is made absolute: `~` is the user's home, a relative path the config file's directory.
 */
function withEncryptionKey(file: Partial<ConfigFile>, source: string, userHome: string): Record<string, unknown> {
  const { encryption, ...rest } = file;
  if (typeof encryption !== 'object' || encryption === null) return { ...rest, encryption };
  const { enabled, keyFile, keyCommand } = encryption;
  const absolute = keyFile === undefined ? undefined : expandHome(keyFile, userHome, path.dirname(source));
  return { ...rest, encryption: enabled, encryptionKey: { file: absolute, command: keyCommand } };
}

/** Stops a resolution without a parser at the first config file that exists. */
class ParserNeeded extends Error {}

/** Leaf values by dotted key; arrays are leaves (a list replaces, never merges). */
function flatten(value: Record<string, unknown>, prefix = '', into = new Map<string, unknown>()) {
  for (const [key, item] of Object.entries(value)) {
    if (item === undefined) continue;
    const dotted = prefix ? `${prefix}.${key}` : key;
    if (typeof item === 'object' && item !== null && !Array.isArray(item) && Object.keys(item).length > 0)
      flatten(item as Record<string, unknown>, dotted, into);
    else if (typeof item === 'object' && item !== null && !Array.isArray(item)) continue;
    else into.set(dotted, item);
  }
  return into;
}

function setPath(target: Record<string, unknown>, dotted: string, value: unknown) {
  const parts = dotted.split('.');
  let node = target;
  for (const part of parts.slice(0, -1)) {
    const next = node[part];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) node[part] = {};
    node = node[part] as Record<string, unknown>;
  }
  node[parts[parts.length - 1] as string] = value;
}

/** A config file's text, or null when there is none; one that cannot be read is a typed error naming it. */
export function readOptionalFile(file: string): string | null {
  try {
    return readUserFile(file, { what: 'config file', maxBytes: USER_FILE_LIMITS.text });
  } catch (error) {
    if (FileNotFoundError.isInstance(error)) return null;
    throw error;
  }
}
