// Providers by name: a provider registered beside the built-in ones is chosen from the
// config, the flag or a session's record, and every agent's model comes from its factory.
import { type ChatProvider, MODEL_SPECIFICATION_VERSION, ProviderError } from '@resume/core/spec';
import { loadConfigOnDemand } from '@resume/runner/config';
import { exitCodeFor } from '@resume/runner/exit-codes';
import { builtinProviders, type ProviderFactory } from '@resume/runner/providers';
import { describe, expect, it } from 'vitest';
import { chooseProvider, createModelResolver, selectionFrom } from './models.js';

/** A toy provider: its models answer with their own id, and it counts how often it was loaded. */
function toyFactory(): ProviderFactory & { loads: number } {
  const factory = {
    loads: 0,
    name: 'toy',
    description: 'answers with its model id',
    defaultModel: 'toy-small',
    async load(): Promise<ChatProvider> {
      factory.loads += 1;
      return {
        specificationVersion: MODEL_SPECIFICATION_VERSION,
        name: 'toy',
        chatModel: (modelId: string) => ({
          specificationVersion: MODEL_SPECIFICATION_VERSION,
          provider: 'toy',
          modelId,
          async generate() {
            return {
              message: { role: 'assistant' as const, content: `toy ${modelId}` },
              toolCalls: [],
              usage: { inputTokens: 1, outputTokens: 1 },
              model: modelId,
              finishReason: 'stop' as const,
            };
          },
        }),
        listModels: async () => ['toy-small'],
      };
    },
  };
  return factory;
}

async function configNaming(provider: string) {
  const { config } = await loadConfigOnDemand({
    cwd: '/work',
    userHome: '/home/user',
    env: {},
    readFile: (file) => (file === '/work/.conclave.yaml' ? `provider: ${provider}\n` : null),
  });
  return config;
}

describe('providers looked up by name', () => {
  it('a provider registered from outside is chosen from the config and gives every agent its model', async () => {
    const toy = toyFactory();
    const providers = builtinProviders.with(toy);
    const config = await configNaming('toy');
    const env = { OPENAI_API_KEY: 'sk-test' };
    const selection = selectionFrom({
      flagProvider: undefined,
      flagModel: undefined,
      flagScript: undefined,
      recorded: null,
      config,
      env,
      cwd: '/work',
      providers,
    });
    expect(selection.provider).toBe('toy');
    const models = await createModelResolver(selection, { config, env, providerForced: false, providers });
    const reply = await models
      .resolve({ name: 'critic' })
      .generate({ messages: [], signal: new AbortController().signal });
    expect(reply.message.content).toBe('toy toy-small');
    expect(models.resolve({ name: 'architect', model: 'toy-large' }).modelId).toBe('toy-large');
    expect(toy.loads).toBe(1);
  });

  it('a session that recorded the provider resumes with it; --provider names it too', () => {
    const providers = builtinProviders.with(toyFactory());
    const base = { config: { provider: null, providers: {} } as never, env: { ANTHROPIC_API_KEY: 'k' }, providers };
    expect(chooseProvider({ ...base, flag: undefined, recorded: { provider: 'toy' } })).toBe('toy');
    expect(chooseProvider({ ...base, flag: 'toy', recorded: null })).toBe('toy');
    // Without a flag, record or config default, the environment decides in registration order.
    expect(chooseProvider({ ...base, flag: undefined, recorded: null })).toBe('anthropic');
  });

  it('an unknown provider in the config is a provider error naming the registered ones', async () => {
    const config = await configNaming('toy');
    const error = (() => {
      try {
        chooseProvider({ flag: undefined, recorded: null, config, env: {} });
      } catch (caught) {
        return caught;
      }
      return null;
    })();
    expect(ProviderError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ reason: 'unavailable', provider: 'toy' });
    expect(exitCodeFor(error)).toBe(69);
    expect((error as Error).message).toBe(
      'Provider "toy" is not one Conclave knows (providers: openai, anthropic, scripted).',
    );
  });

  it('refuses a config provider name that is not a name at all, naming the key', async () => {
    await expect(configNaming('"Open AI"')).rejects.toMatchObject({ key: 'provider' });
  });
});
