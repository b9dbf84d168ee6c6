// Loads the effective config: defaults, then `$CONCLAVE_HOME/config.yaml`, then the
// workspace's `.conclave.yaml`, then the environment and command-line overrides (later
// wins). Every file is validated; errors name the file and the key. The result says
// where each value came from, so `conclave config` can show it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseDocument } from 'yaml';
import type { z } from 'zod';
import { ConfigError } from '../spec/index.js';
import { type ConclaveConfig, type ConfigFile, configFileSchema, SECRET_KEY_PATTERN } from './config-schema.js';

export const WORKSPACE_CONFIG_FILE = '.conclave.yaml';
export const HOME_CONFIG_FILE = 'config.yaml';
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
  agents: null,
  judge: {},
  providers: { default: null, openai: {}, anthropic: {}, scripted: {} },
  checkpoint: { snapshotEvery: 1000, maxRecoveries: 10 },
  resume: { resetDiscussion: false, forceConsensus: false, onConflict: null, onUncertain: null },
  retention: {
    maxAgeDays: null,
    maxSessions: null,
    maxBytes: null,
    minKeep: 10,
    includeInterrupted: false,
    automatic: false,
  },
  archive: { afterDays: null },
  discussion: { maxRounds: 4 },
  tools: { allowCommands: [] },
};

type Layer = { source: string; values: Map<string, unknown> };

export function loadConfig(options: LoadConfigOptions): LoadedConfig {
  const readFile = options.readFile ?? readOptionalFile;
  const files: string[] = [];

  const workspaceFile = path.resolve(options.cwd, WORKSPACE_CONFIG_FILE);
  const workspace = readConfigFile(workspaceFile, readFile);
  if (workspace) files.push(workspaceFile);

  const homeLayers: Layer[] = [];
  let home: { value: string; source: string };
  if (options.home) home = { value: expandHome(options.home, options.userHome, options.cwd), source: '--home' };
  else if (options.env.CONCLAVE_HOME)
    home = { value: expandHome(options.env.CONCLAVE_HOME, options.userHome, options.cwd), source: '$CONCLAVE_HOME' };
  else if (workspace?.home)
    home = { value: expandHome(workspace.home, options.userHome, path.dirname(workspaceFile)), source: workspaceFile };
  else home = { value: path.join(options.userHome, '.conclave'), source: DEFAULT_SOURCE };

  const homeFile = path.join(home.value, HOME_CONFIG_FILE);
  const homeConfig = readConfigFile(homeFile, readFile);
  if (homeConfig) {
    if (homeConfig.home !== undefined)
      throw new ConfigError({
        file: homeFile,
        key: 'home',
        problem: 'the data home cannot be set inside the data home',
        fix: `Set it with --home, $CONCLAVE_HOME or in a workspace ${WORKSPACE_CONFIG_FILE}.`,
      });
    files.unshift(homeFile);
    homeLayers.push({ source: homeFile, values: flatten(homeConfig) });
  }
  if (workspace) {
    const { home: _home, ...rest } = workspace;
    homeLayers.push({ source: workspaceFile, values: flatten(rest) });
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
  sources.home = home.source;
  const config = { home: home.value, ...merged } as unknown as ConclaveConfig;
  return { config, sources, files };
}

/** Reads and validates one config file; null when it does not exist. */
export function readConfigFile(file: string, readFile: (file: string) => string | null = readOptionalFile) {
  const text = readFile(file);
  if (text === null) return null;
  return parseConfigText(text, file);
}

/** Parses config YAML; errors name the file, the key and the line where YAML knows it. */
export function parseConfigText(text: string, file: string): ConfigFile {
  const document = parseDocument(text, { prettyErrors: true });
  const yamlError = document.errors[0];
  if (yamlError) {
    const line = yamlError.linePos?.[0]?.line;
    throw new ConfigError({
      file: line ? `${file}:${line}` : file,
      key: null,
      problem: `not valid YAML (${yamlError.message.split(/ at line|\n/)[0]})`,
      fix: 'Fix the YAML syntax, or move the file away to use the defaults.',
    });
  }
  let raw: unknown;
  try {
    raw = document.toJS() ?? {};
  } catch (error) {
    // Aliases are resolved only here: an unknown anchor or an alias bomb is a YAML error too.
    throw new ConfigError({
      file,
      key: null,
      problem: `not valid YAML (${(error as Error).message})`,
      fix: 'Fix the YAML anchors and aliases (&name, *name), or move the file away to use the defaults.',
    });
  }
  const secretKey = findSecretKey(raw, []);
  if (secretKey)
    throw new ConfigError({
      file,
      key: secretKey,
      problem: 'secrets do not belong in config files (they could be committed or journaled)',
      fix: 'Remove the key and set OPENAI_API_KEY or ANTHROPIC_API_KEY in the environment instead.',
    });
  const result = configFileSchema.safeParse(raw);
  if (!result.success) throw configErrorFromIssues(file, result.error.issues);
  return result.data;
}

function configErrorFromIssues(file: string, issues: z.core.$ZodIssue[]): ConfigError {
  const issue = issues[0];
  if (!issue) return new ConfigError({ file, key: null, problem: 'invalid config' });
  let key = issue.path.map(String).join('.');
  let problem = issue.message;
  if (issue.code === 'unrecognized_keys') {
    key = [...issue.path.map(String), issue.keys[0] ?? ''].filter(Boolean).join('.');
    problem = `unknown key "${issue.keys.join('", "')}"`;
  }
  return new ConfigError({
    file,
    key: key || null,
    problem,
    fix: 'See docs/config.md for every key and its type.',
  });
}

// `seen`: YAML aliases can make the document cyclic (`&a [*a]`); each node is visited once.
function findSecretKey(value: unknown, trail: string[], seen = new WeakSet<object>()): string | null {
  if (typeof value !== 'object' || value === null || seen.has(value)) return null;
  seen.add(value);
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = findSecretKey(item, [...trail, String(index)], seen);
      if (found) return found;
    }
    return null;
  }
  for (const [key, item] of Object.entries(value)) {
    if (SECRET_KEY_PATTERN.test(key)) return [...trail, key].join('.');
    const found = findSecretKey(item, [...trail, key], seen);
    if (found) return found;
  }
  return null;
}

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

function expandHome(value: string, userHome: string, base: string): string {
  if (value === '~') return userHome;
  if (value.startsWith('~/')) return path.join(userHome, value.slice(2));
  return path.resolve(base, value);
}

function readOptionalFile(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new ConfigError(
      { file, key: null, problem: `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})` },
      { cause: error },
    );
  }
}
