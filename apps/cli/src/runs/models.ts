// Which provider a run uses and how each agent gets its model. Order: --provider, then
// what the session recorded (a resume uses the same provider), then the config's default,
// then an API key in the environment (OpenAI, then Anthropic), else the offline scripted
// provider, which the CLI announces in one line. Secrets are read from the environment
// here and never recorded.
import path from 'node:path';
import { type ChatModel, type ChatProvider, type JsonValue, ProviderError } from '@resume/core/spec';
import type { ConclaveConfig, ProviderName } from '@resume/runner';

export const SCRIPTED_NOTICE =
  'Using the offline scripted provider (no API key configured). For a real model set OPENAI_API_KEY or ANTHROPIC_API_KEY, or pass --provider openai|anthropic.';

const DEFAULT_MODELS: Record<ProviderName, string> = {
  scripted: 'scripted',
  openai: 'gpt-4o-mini',
  anthropic: 'claude-sonnet-4-5',
};

export interface ProviderSelection {
  provider: ProviderName;
  /** `--model`: every agent's model. */
  model: string | null;
  /** Scripted provider: the YAML script (absolute path). */
  script: string | null;
}

export function chooseProvider(input: {
  flag: ProviderName | undefined;
  recorded: Record<string, JsonValue> | null;
  config: ConclaveConfig;
  env: Readonly<Record<string, string | undefined>>;
}): ProviderName {
  if (input.flag) return input.flag;
  const recorded = input.recorded?.provider;
  if (recorded === 'scripted' || recorded === 'openai' || recorded === 'anthropic') return recorded;
  if (input.config.providers.default) return input.config.providers.default;
  if (input.env.OPENAI_API_KEY) return 'openai';
  if (input.env.ANTHROPIC_API_KEY) return 'anthropic';
  return 'scripted';
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
  flagProvider: ProviderName | undefined;
  flagModel: string | undefined;
  flagScript: string | undefined;
  recorded: Record<string, JsonValue> | null;
  config: ConclaveConfig;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
}): ProviderSelection {
  const provider = chooseProvider({
    flag: input.flagProvider,
    recorded: input.recorded,
    config: input.config,
    env: input.env,
  });
  const recordedModel = typeof input.recorded?.model === 'string' ? input.recorded.model : null;
  const recordedScript = typeof input.recorded?.script === 'string' ? input.recorded.script : null;
  const configScript = input.config.providers.scripted.script
    ? path.resolve(input.cwd, input.config.providers.scripted.script)
    : null;
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
  },
): Promise<ModelResolution> {
  const wanted = new Set<ProviderName>([selection.provider]);
  if (!options.providerForced)
    for (const name of options.agentProviders ?? [])
      if (name === 'scripted' || name === 'openai' || name === 'anthropic') wanted.add(name);
  const providers = new Map<string, ChatProvider>();
  for (const name of wanted) providers.set(name, await loadProvider(name, selection, options.config, options.env));
  let listed: Promise<readonly string[] | null> | null = null;
  const availableModels = () => {
    listed ??= listAvailableModels(providers, options.env);
    return listed;
  };
  const resolve: ModelResolverFunction = (agent) => {
    const name = options.providerForced ? selection.provider : (agent.provider ?? selection.provider);
    const provider = providers.get(name);
    if (!provider)
      throw new ProviderError({
        reason: 'unavailable',
        provider: name,
        message: `Agent ${agent.name} asks for provider "${name}", which Conclave does not know.`,
      });
    const configured =
      name === 'openai'
        ? options.config.providers.openai.model
        : name === 'anthropic'
          ? options.config.providers.anthropic.model
          : undefined;
    const model =
      selection.model ??
      (options.providerForced ? undefined : agent.model) ??
      configured ??
      DEFAULT_MODELS[name as ProviderName];
    return provider.chatModel(replacementFor(model) ?? model);
  };
  const replacements = new Map<string, string>();
  const replacementFor = (model: string) =>
    replacements.get(model) ??
    [...replacements].find(([from]) => from.startsWith(`${model}-`) || model.startsWith(`${from}-`))?.[1];
  return { resolve, availableModels, replace: (from, to) => replacements.set(from, to) };
}

async function listAvailableModels(
  providers: ReadonlyMap<string, ChatProvider>,
  env: Readonly<Record<string, string | undefined>>,
): Promise<readonly string[] | null> {
  const all = new Set<string>();
  for (const [name, provider] of providers) {
    if (name === 'scripted' && !env.CONCLAVE_SCRIPTED_MODELS) return null;
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

async function loadProvider(
  name: ProviderName,
  selection: ProviderSelection,
  config: ConclaveConfig,
  env: Readonly<Record<string, string | undefined>>,
): Promise<ChatProvider> {
  switch (name) {
    case 'scripted': {
      const { createScriptedProvider } = await import('@resume/providers-scripted');
      return createScriptedProvider({ env: { ...env }, ...(selection.script ? { script: selection.script } : {}) });
    }
    case 'openai': {
      const baseURL = config.providers.openai.baseUrl ?? env.OPENAI_BASE_URL;
      if (!env.OPENAI_API_KEY && !baseURL)
        throw new ProviderError(
          {
            reason: 'authentication',
            provider: 'openai',
            message: 'The OpenAI provider needs OPENAI_API_KEY in the environment (or a base URL for a local server).',
          },
          { hint: 'export OPENAI_API_KEY=sk-...  (or set providers.openai.baseUrl for Ollama, vLLM, LM Studio)' },
        );
      const { createOpenAIProvider } = await import('@resume/providers-openai');
      return createOpenAIProvider({
        ...(env.OPENAI_API_KEY ? { apiKey: env.OPENAI_API_KEY } : {}),
        ...(baseURL ? { baseURL } : {}),
      });
    }
    case 'anthropic': {
      if (!env.ANTHROPIC_API_KEY)
        throw new ProviderError(
          {
            reason: 'authentication',
            provider: 'anthropic',
            message: 'The Anthropic provider needs ANTHROPIC_API_KEY in the environment.',
          },
          { hint: 'export ANTHROPIC_API_KEY=sk-ant-...' },
        );
      const { createAnthropicProvider } = await import('@resume/providers-anthropic');
      const baseURL = config.providers.anthropic.baseUrl ?? env.ANTHROPIC_BASE_URL;
      return createAnthropicProvider({ apiKey: env.ANTHROPIC_API_KEY, ...(baseURL ? { baseURL } : {}) });
    }
  }
}
