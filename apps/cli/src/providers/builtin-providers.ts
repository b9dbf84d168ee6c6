// The providers the CLI ships, registered in one place (order: which the environment selects first).
import { ProviderError } from '@resume/core/spec';
import { createProviderRegistry, type ProviderFactory } from './provider-registry.js';

/** A provider asked for without the key it needs: what is missing and how to give it. */
function missingKeyError(provider: string, message: string, hint: string): ProviderError {
  return new ProviderError({ reason: 'authentication', provider, message }, { hint });
}

const openaiProvider: ProviderFactory = {
  name: 'openai',
  description: 'OpenAI, or any OpenAI-compatible server (OPENAI_API_KEY, providers.openai.baseUrl)',
  defaultModel: 'gpt-4o-mini',
  detect: (env) => Boolean(env.OPENAI_API_KEY),
  configuredModel: (config) => config.providers.openai.model,
  async load({ config, env }) {
    const baseURL = config.providers.openai.baseUrl ?? env.OPENAI_BASE_URL;
    if (!env.OPENAI_API_KEY && !baseURL)
      throw missingKeyError(
        'openai',
        'The OpenAI provider needs OPENAI_API_KEY in the environment (or a base URL for a local server).',
        'export OPENAI_API_KEY=sk-...  (or set providers.openai.baseUrl for Ollama, vLLM, LM Studio)',
      );
    const { createOpenAIProvider } = await import('@resume/providers-openai');
    return createOpenAIProvider({
      ...(env.OPENAI_API_KEY ? { apiKey: env.OPENAI_API_KEY } : {}),
      ...(baseURL ? { baseURL } : {}),
    });
  },
};

const anthropicProvider: ProviderFactory = {
  name: 'anthropic',
  description: 'Anthropic (ANTHROPIC_API_KEY)',
  defaultModel: 'claude-sonnet-4-5',
  detect: (env) => Boolean(env.ANTHROPIC_API_KEY),
  configuredModel: (config) => config.providers.anthropic.model,
  async load({ config, env }) {
    if (!env.ANTHROPIC_API_KEY)
      throw missingKeyError(
        'anthropic',
        'The Anthropic provider needs ANTHROPIC_API_KEY in the environment.',
        'export ANTHROPIC_API_KEY=sk-ant-...',
      );
    const { createAnthropicProvider } = await import('@resume/providers-anthropic');
    const baseURL = config.providers.anthropic.baseUrl ?? env.ANTHROPIC_BASE_URL;
    return createAnthropicProvider({ apiKey: env.ANTHROPIC_API_KEY, ...(baseURL ? { baseURL } : {}) });
  },
};

const scriptedProvider: ProviderFactory = {
  name: 'scripted',
  description: 'offline, deterministic models for demos and tests (--script <file.yaml>)',
  defaultModel: 'scripted',
  // The fallback when nothing else is configured.
  detect: () => true,
  listsModels: (env) => Boolean(env.CONCLAVE_SCRIPTED_MODELS),
  async load({ env, script }) {
    const { createScriptedProvider, parseScriptText } = await import('@resume/providers-scripted');
    if (!script) return createScriptedProvider({ env: { ...env } });
    const { readUserFile, USER_FILE_LIMITS } = await import('@resume/runner');
    const text = readUserFile(script, { what: 'script', maxBytes: USER_FILE_LIMITS.text });
    return createScriptedProvider({ env: { ...env }, script: parseScriptText(text, script) });
  },
};

export const builtinProviders = createProviderRegistry([openaiProvider, anthropicProvider, scriptedProvider]);
