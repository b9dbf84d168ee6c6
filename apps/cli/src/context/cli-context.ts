// What every command gets: the process's environment (injected, so tests never touch
// the user's home or clock), the global options, the terminal, and lazily the config
// and the engine. Nothing heavy is imported until a command asks for it: the config files
// are read before the command runs, but the YAML parser and the config schema load only
// when one exists.

import type { Engine } from '@resume/core/engine';
import type { SessionStore } from '@resume/core/spec';
import { headerVariables, type LoadedConfig, loadConfigOnDemand } from '@resume/runner/config';
import { createTerminal, type OutputStreams, type Terminal } from '../output/terminal.js';
import { tracingSettings } from '../tracing/tracing-settings.js';
import type { GlobalOptions } from './global-options.js';
import type { AppendListener } from './observed-store.js';

export interface CliEnvironment {
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  userHome: string;
  streams: OutputStreams;
  /** Whether a person can answer prompts (stdin and stderr are terminals). */
  interactive: boolean;
  now: () => Date;
  version: string;
  /** Registers what to do on SIGINT/SIGTERM; returns the function that unregisters it. */
  onSignal: (handler: (signal: 'SIGINT' | 'SIGTERM') => void) => () => void;
  /** Leaves at once (the second Ctrl+C); only the entry point implements it. */
  exitNow: (code: number) => never;
  /** Told what the command's store appended, once durable (`conclave mcp` reports a run's progress from it). */
  onAppended?: AppendListener;
}

export interface CliContext {
  readonly environment: CliEnvironment;
  readonly options: GlobalOptions;
  readonly terminal: Terminal;
  config(): LoadedConfig;
  store(): Promise<SessionStore>;
  engine(): Promise<Engine>;
  close(): Promise<void>;
}

/**
 * The context for one command. The config is loaded first (asynchronously, so that the YAML
 * parser is imported only when a config file exists) and `config()` stays synchronous; an
 * invalid config file is reported when a command asks for the config, as it always was.
 */
export async function openCliContext(environment: CliEnvironment, options: GlobalOptions): Promise<CliContext> {
  let outcome: { loaded: LoadedConfig } | { error: unknown };
  try {
    outcome = { loaded: await loadConfigNow(environment, options) };
  } catch (error) {
    outcome = { error };
  }
  return createCliContext(environment, options, () => {
    if ('error' in outcome) throw outcome.error;
    return outcome.loaded;
  });
}

export function createCliContext(
  environment: CliEnvironment,
  options: GlobalOptions,
  loadConfig: () => LoadedConfig,
): CliContext {
  const terminal = createTerminal(environment.streams, {
    color: options.color,
    quiet: options.quiet,
    env: environment.env,
  });
  let loaded: LoadedConfig | undefined;
  let storePromise: Promise<SessionStore> | undefined;
  let enginePromise: Promise<Engine> | undefined;

  const context: CliContext = {
    environment,
    options,
    terminal,
    config() {
      loaded ??= loadConfig();
      return loaded;
    },
    store() {
      if (!storePromise) {
        const { config } = context.config();
        storePromise = Promise.all([import('./open-store.js'), import('../keys/data-keys.js')])
          .then(([{ openStore }, { configuredKeySource, loadKeyring }]) =>
            openStore({
              url: config.store.url,
              home: config.home,
              say: (line) => terminal.warn(line),
              quota: { maxHomeBytes: config.limits.maxHomeBytes, maxSessionBytes: config.limits.maxSessionBytes },
              keyring: loadKeyring({
                home: config.home,
                env: environment.env,
                cwd: environment.cwd,
                encrypt: config.encryption === 'on',
                configured: configuredKeySource(context.config()),
              }),
            }),
          )
          .then((store) => withTracing(store, environment, terminal))
          .then(async (store) => {
            const listener = environment.onAppended;
            if (!listener) return store;
            const { observedStore } = await import('./observed-store.js');
            return observedStore(store, listener);
          });
      }
      return storePromise;
    },
    engine() {
      if (!enginePromise) {
        enginePromise = Promise.all([context.store(), import('./open-engine.js')]).then(([store, { openEngine }]) =>
          openEngine({
            store,
            env: environment.env,
            // A variable an MCP server's header names (`Bearer $\{LEDGER_CREDENTIAL}`) holds a secret, whatever its name.
            secrets: Object.values(context.config().config.mcp.servers)
              .flatMap(headerVariables)
              .flatMap((name) => environment.env[name] ?? []),
            snapshotEvery: context.config().config.checkpoint.snapshotEvery,
            now: environment.now,
          }),
        );
      }
      return enginePromise;
    },
    async close() {
      if (enginePromise) await (await enginePromise).close();
      else if (storePromise) await (await storePromise).close();
    },
  };
  return context;
}

function loadConfigNow(environment: CliEnvironment, options: GlobalOptions): Promise<LoadedConfig> {
  return loadConfigOnDemand({
    cwd: environment.cwd,
    userHome: environment.userHome,
    env: environment.env,
    home: options.home,
    storeUrl: options.store,
  });
}

/** The store as is, or, when an OTLP endpoint is set, one that sends the spans of what it records. */
async function withTracing(
  store: SessionStore,
  environment: CliEnvironment,
  terminal: Terminal,
): Promise<SessionStore> {
  const settings = tracingSettings(environment.env);
  if (settings === null) return store;
  if ('problem' in settings) {
    terminal.warn(settings.problem);
    return store;
  }
  const { tracedStore } = await import('../tracing/traced-store.js');
  return tracedStore(store, {
    settings,
    version: environment.version,
    env: environment.env,
    warn: (line) => terminal.warn(line),
  });
}
