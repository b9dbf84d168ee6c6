// What every command gets: the process's environment (injected, so tests never touch
// the user's home or clock), the global options, the terminal, and lazily the config
// and the engine. Nothing heavy is imported until a command asks for it.
import { type LoadedConfig, loadConfig } from '@resume/core/config';
import type { Engine } from '@resume/core/engine';
import type { SessionStore } from '@resume/core/spec';
import { createTerminal, type OutputStreams, type Terminal } from '../output/terminal.js';
import type { GlobalOptions } from './global-options.js';

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

export function createCliContext(environment: CliEnvironment, options: GlobalOptions): CliContext {
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
      if (!loaded) loaded = loadConfigNow(environment, options);
      return loaded;
    },
    store() {
      if (!storePromise) {
        const { config } = context.config();
        storePromise = import('./open-store.js').then(({ openStore }) =>
          openStore({ url: config.store.url, home: config.home }),
        );
      }
      return storePromise;
    },
    engine() {
      if (!enginePromise) {
        enginePromise = Promise.all([context.store(), import('./open-engine.js')]).then(([store, { openEngine }]) =>
          openEngine({
            store,
            env: environment.env,
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

function loadConfigNow(environment: CliEnvironment, options: GlobalOptions): LoadedConfig {
  return loadConfig({
    cwd: environment.cwd,
    userHome: environment.userHome,
    env: environment.env,
    home: options.home,
    storeUrl: options.store,
  });
}
