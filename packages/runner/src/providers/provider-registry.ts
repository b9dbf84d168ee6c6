// Model providers by name: the config, --provider and a session's record name one, and a
// front end finds its factory here. A factory declares its default model, whether its calls
// are free, the schema of its section of the config file (`providers.<name>`), whether the
// environment selects it, and how to load its SDK (on first use, so start-up never pays for
// it). A new provider is one factory, registered with `builtinProviders.with(factory)`.
import { type ChatProvider, ProviderError } from '@resume/core/spec';
import type { z } from 'zod';

export type ProviderEnvironment = Readonly<Record<string, string | undefined>>;

/** A provider's section of the config file (`providers.<name>`), as its schema validated it. */
export type ProviderSettings = Record<string, unknown>;

export interface ProviderLoadInput<Settings = ProviderSettings> {
  /** The provider's section of the config file, validated by its `configSchema` (`{}` when absent). */
  settings: Settings;
  env: ProviderEnvironment;
  /** Scripted provider: the YAML script of turns (absolute path), when one was chosen. */
  script: string | null;
}

export interface ProviderFactory<Settings = ProviderSettings> {
  /** Lower-case name used by --provider, the config and the session record. */
  readonly name: string;
  /** One line for --help and the docs. */
  readonly description: string;
  /** The model agents get when neither they, --model nor `providers.<name>.model` name one. */
  readonly defaultModel: string;
  /** Calls cost nothing whatever model id they name (offline providers). */
  readonly free?: boolean;
  /** The shape of `providers.<name>` in the config file (default: no settings at all). */
  readonly configSchema?: z.ZodType<Settings>;
  /** Chosen when no flag, record or config decides and this returns true (checked in registration order). */
  detect?(env: ProviderEnvironment): boolean;
  /** Whether `listModels()` says what is really offered (false: no model-availability check). */
  listsModels?(env: ProviderEnvironment): boolean;
  /** Loads the SDK and builds the provider; a missing key is a typed ProviderError (`authentication`). */
  load(input: ProviderLoadInput<Settings>): Promise<ChatProvider>;
}

export interface ProviderRegistry {
  /** The factory registered under `name`; an unknown name is a ProviderError naming the registered ones (69). */
  get(name: string): ProviderFactory;
  has(name: string): boolean;
  names(): string[];
  list(): readonly ProviderFactory[];
  /** Whether calls of the provider registered under `name` are free (false for an unknown name). */
  isFree(name: string): boolean;
  /** A registry with these factories added (a taken name is an error). */
  with(...factories: ProviderFactory[]): ProviderRegistry;
}

/** A factory whose settings' type is read from its `configSchema`. */
export function defineProvider<Settings>(factory: ProviderFactory<Settings>): ProviderFactory {
  return factory as unknown as ProviderFactory;
}

export function createProviderRegistry(factories: readonly ProviderFactory[]): ProviderRegistry {
  const byName = new Map<string, ProviderFactory>();
  for (const factory of factories) {
    if (byName.has(factory.name)) throw new Error(`Two providers are registered as "${factory.name}".`);
    byName.set(factory.name, factory);
  }
  const list = [...byName.values()];
  return {
    get(name) {
      const factory = byName.get(name);
      if (!factory)
        throw new ProviderError(
          {
            reason: 'unavailable',
            provider: name,
            message: `Provider "${name}" is not one Conclave knows (providers: ${[...byName.keys()].join(', ')}).`,
          },
          { hint: `Use one of: ${[...byName.keys()].join(', ')}.` },
        );
      return factory;
    },
    has: (name) => byName.has(name),
    names: () => [...byName.keys()],
    list: () => list,
    isFree: (name) => byName.get(name)?.free === true,
    with: (...added) => createProviderRegistry([...list, ...added]),
  };
}

/** The model `providers.<name>.model` sets in the config, if the provider's settings have one. */
export function configuredModel(settings: ProviderSettings): string | undefined {
  return typeof settings.model === 'string' ? settings.model : undefined;
}
