// Which provider a run uses and how each agent gets its model. Order: --provider, then
// what the session recorded (a resume uses the same provider), then the config's default,
// then the first registered provider the environment selects (an OpenAI key, then an
// Anthropic key), else the offline scripted provider, which the CLI announces in one line.
// Providers are looked up by name in a ProviderRegistry (@resume/runner/providers). Secrets are read
// from the environment by the factories and never recorded.
import path from 'node:path';
import { type ChatModel, type ChatProvider, type JsonValue, ProviderError } from '@resume/core/spec';
import type { ConclaveConfig } from '@resume/runner';
import { builtinProviders, configuredModel, type ProviderRegistry } from '@resume/runner/providers';

export const SCRIPTED_NOTICE =
  'Using the offline scripted provider (no API key configured). For a real model set OPENAI_API_KEY or ANTHROPIC_API_KEY, or pass --provider openai|anthropic.';

export interface ProviderSelection {
  provider: string;
  /** `--model`: every agent's model. */
  model: string | null;
  /** Scripted provider: the YAML script (absolute path). */
  script: string | null;
}

export function chooseProvider(input: {
  flag: string | undefined;
  recorded: Record<string, JsonValue> | null;
  config: ConclaveConfig;
  env: Readonly<Record<string, string | undefined>>;
  providers?: ProviderRegistry;
}): string {
  const providers = input.providers ?? builtinProviders;
  if (input.flag) return providers.get(input.flag).name;
  const recorded = input.recorded?.provider;
  if (typeof recorded === 'string' && providers.has(recorded)) return recorded;
  if (input.config.provider) return providers.get(input.config.provider).name;
  return providers.list().find((factory) => factory.detect?.(input.env))?.name ?? 'scripted';
}

/** What a session records so a resume rebuilds the same models (never a secret). */
export function recordOf(selection: ProviderSelection): Record<string, JsonValue> {
  return {
    provider: selection.provider,
    ...(selection.model ? { model: selection.model } : {}),
    ...(selection.script ? { script: selection.script } : {}),
  };
}

export function selectionFrom(input: {
  flagProvider: string | undefined;
  flagModel: string | undefined;
  flagScript: string | undefined;
  recorded: Record<string, JsonValue> | null;
  config: ConclaveConfig;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  providers?: ProviderRegistry;
}): ProviderSelection {
  const provider = chooseProvider({
    flag: input.flagProvider,
    recorded: input.recorded,
    config: input.config,
    env: input.env,
    ...(input.providers ? { providers: input.providers } : {}),
  });
  const recordedModel = typeof input.recorded?.model === 'string' ? input.recorded.model : null;
  const recordedScript = typeof input.recorded?.script === 'string' ? input.recorded.script : null;
  const configured = input.config.providers.scripted?.script;
  const configScript = typeof configured === 'string' ? path.resolve(input.cwd, configured) : null;
  return {
    provider,
    model: input.flagModel ?? (input.flagProvider ? null : recordedModel),
    script: input.flagScript ? path.resolve(input.cwd, input.flagScript) : (recordedScript ?? configScript),
  };
}

export type ModelResolverFunction = (agent: { name: string; provider?: string; model?: string }) => ChatModel;

export interface ModelResolution {
  resolve: ModelResolverFunction;
  /**
   * The model ids the run's providers offer now (their `/models`), asked once and kept;
   * null when unknown: a provider could not list them, or it is the scripted provider
   * without `CONCLAVE_SCRIPTED_MODELS` (it answers to any model id).
   */
  availableModels: () => Promise<readonly string[] | null>;
  /** Calls to `from` (or to a dated snapshot of it) go to `to` from now on: the model-unavailable choice. */
  replace(from: string, to: string): void;
}

/**
 * Loads the providers a run needs and returns the resolver the runner calls per agent.
 * Only the chosen provider's SDK is imported; agents that name another provider load it too.
 */
export async function createModelResolver(
  selection: ProviderSelection,
  options: {
    config: ConclaveConfig;
    env: Readonly<Record<string, string | undefined>>;
    /** Providers agents name explicitly (from config or the recorded run). */
    agentProviders?: readonly string[];
    /** --provider given: it wins over what agents recorded. */
    providerForced: boolean;
    /** The providers to look names up in (default: the built-in ones). */
    providers?: ProviderRegistry;
  },
): Promise<ModelResolution> {
  const registry = options.providers ?? builtinProviders;
  const wanted = new Set<string>([registry.get(selection.provider).name]);
  if (!options.providerForced)
    for (const name of options.agentProviders ?? []) if (registry.has(name)) wanted.add(name);
  const providers = new Map<string, ChatProvider>();
  for (const name of wanted)
    providers.set(
      name,
      await registry
        .get(name)
        .load({ settings: settingsOf(options.config, name), env: options.env, script: selection.script }),
    );
  let listed: Promise<readonly string[] | null> | null = null;
  const availableModels = () => {
    listed ??= listAvailableModels(registry, providers, options.env);
    return listed;
  };
  const resolve: ModelResolverFunction = (agent) => {
    const name = options.providerForced ? selection.provider : (agent.provider ?? selection.provider);
    const provider = providers.get(name);
    if (!provider)
      throw new ProviderError({
        reason: 'unavailable',
        provider: name,
        message: `Agent ${agent.name} asks for provider "${name}", which Conclave does not know (providers: ${registry.names().join(', ')}).`,
      });
    const factory = registry.get(name);
    const model =
      selection.model ??
      (options.providerForced ? undefined : agent.model) ??
      configuredModel(settingsOf(options.config, name)) ??
      factory.defaultModel;
    return provider.chatModel(replacementFor(model) ?? model);
  };
  const replacements = new Map<string, string>();
  const replacementFor = (model: string) =>
    replacements.get(model) ??
    [...replacements].find(([from]) => from.startsWith(`${model}-`) || model.startsWith(`${from}-`))?.[1];
  return { resolve, availableModels, replace: (from, to) => replacements.set(from, to) };
}

/** A provider's section of the config (validated by its schema when the file was read). */
function settingsOf(config: ConclaveConfig, name: string): Record<string, unknown> {
  return config.providers[name] ?? {};
}

async function listAvailableModels(
  registry: ProviderRegistry,
  providers: ReadonlyMap<string, ChatProvider>,
  env: Readonly<Record<string, string | undefined>>,
): Promise<readonly string[] | null> {
  const all = new Set<string>();
  for (const [name, provider] of providers) {
    const lists = registry.get(name).listsModels;
    if (lists && !lists(env)) return null;
    try {
      for (const id of await provider.listModels()) all.add(id);
    } catch {
      // Unknown is not "unavailable": a provider that cannot list its models is not second-guessed.
      return null;
    }
  }
  return [...all];
}

/** The listed models most like `missing` first (longest common prefix), for the model-unavailable screen. */
export function rankAlternatives(missing: string, available: readonly string[]): string[] {
  const shared = (model: string) => {
    let length = 0;
    while (length < Math.min(model.length, missing.length) && model[length] === missing[length]) length++;
    return length;
  };
  return [...available]
    .filter((model) => model !== missing)
    .sort((left, right) => shared(right) - shared(left) || left.localeCompare(right));
}
