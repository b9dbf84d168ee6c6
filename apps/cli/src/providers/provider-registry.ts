// Model providers by name: the config, --provider and a session's record name one, and the
// CLI finds its factory here. A factory knows its default model, whether the environment
// selects it, and how to load its SDK (on first use, so start-up never pays for it). A new
// provider is one factory and one registration in builtinProviders.
import { type ChatProvider, ProviderError } from '@resume/core/spec';
import type { ConclaveConfig } from '@resume/runner/config';

export type ProviderEnvironment = Readonly<Record<string, string | undefined>>;

export interface ProviderLoadInput {
  config: ConclaveConfig;
  env: ProviderEnvironment;
  /** Scripted provider: the YAML script of turns (absolute path), when one was chosen. */
  script: string | null;
}

export interface ProviderFactory {
  /** Lower-case name used by --provider, the config and the session record. */
  readonly name: string;
  /** One line for --help and the docs. */
  readonly description: string;
  /** The model agents get when neither they, --model nor the config name one. */
  readonly defaultModel: string;
  /** Chosen when no flag, record or config decides and this returns true (checked in registration order). */
  detect?(env: ProviderEnvironment): boolean;
  /** The model the config file sets for this provider (`providers.<name>.model`). */
  configuredModel?(config: ConclaveConfig): string | undefined;
  /** Whether `listModels()` says what is really offered (false: no model-availability check). */
  listsModels?(env: ProviderEnvironment): boolean;
  /** Loads the SDK and builds the provider; a missing key is a typed ProviderError (`authentication`). */
  load(input: ProviderLoadInput): Promise<ChatProvider>;
}

export interface ProviderRegistry {
  /** The factory registered under `name`; an unknown name is a ProviderError naming the registered ones (69). */
  get(name: string): ProviderFactory;
  has(name: string): boolean;
  names(): string[];
  list(): readonly ProviderFactory[];
  /** A registry with these factories added (a taken name is an error). */
  with(...factories: ProviderFactory[]): ProviderRegistry;
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
          { hint: `Use one of: --provider ${[...byName.keys()].join('|')}` },
        );
      return factory;
    },
    has: (name) => byName.has(name),
    names: () => [...byName.keys()],
    list: () => list,
    with: (...added) => createProviderRegistry([...list, ...added]),
  };
}
