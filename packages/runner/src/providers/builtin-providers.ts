// The providers Conclave ships, registered in one place (order: which the environment selects first).
import { lazySchema } from '@resume/core/lazy-schema';
import { ProviderError } from '@resume/core/spec';
import { z } from 'zod';
import { readUserFile, USER_FILE_LIMITS } from '../files/user-file.js';
import { createProviderRegistry, defineProvider } from './provider-registry.js';

/** A provider asked for without the key it needs: what is missing and how to give it. */
function missingKeyError(provider: string, message: string, hint: string): ProviderError {
  return new ProviderError({ reason: 'authentication', provider, message }, { hint });
}

/** `providers.openai` and `providers.anthropic`: where the API is and the model agents get by default. */
const endpointSchema = lazySchema(() =>
  z.strictObject({
    /** An OpenAI-compatible server (Ollama, vLLM, LM Studio, OpenRouter...) or a proxy. */
    baseUrl: z
      .url({ protocol: /^https?$/, error: 'is not an http:// or https:// URL' })
      .refine((value) => {
        // Runs after a failed URL check too: only a parsable URL can carry credentials.
        const url = URL.canParse(value) ? new URL(value) : null;
        return url === null || (url.username === '' && url.password === '');
      }, 'must not carry a user or password (the API key comes from OPENAI_API_KEY or ANTHROPIC_API_KEY in the environment; a proxy password belongs in its own settings)')
      .optional(),
    /** The model used when an agent names none. */
    model: z.string().min(1).optional(),
  }),
);

const openaiProvider = defineProvider({
  name: 'openai',
  description: 'OpenAI, or any OpenAI-compatible server (OPENAI_API_KEY, providers.openai.baseUrl)',
  defaultModel: 'gpt-4o-mini',
  configSchema: endpointSchema,
  detect: (env) => Boolean(env.OPENAI_API_KEY),
  async load({ settings, env }) {
    const baseURL = settings.baseUrl ?? env.OPENAI_BASE_URL;
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
});

const anthropicProvider = defineProvider({
  name: 'anthropic',
  description: 'Anthropic (ANTHROPIC_API_KEY)',
  defaultModel: 'claude-sonnet-4-5',
  configSchema: endpointSchema,
  detect: (env) => Boolean(env.ANTHROPIC_API_KEY),
  async load({ settings, env }) {
    if (!env.ANTHROPIC_API_KEY)
      throw missingKeyError(
        'anthropic',
        'The Anthropic provider needs ANTHROPIC_API_KEY in the environment.',
        'export ANTHROPIC_API_KEY=sk-ant-...',
      );
    const { createAnthropicProvider } = await import('@resume/providers-anthropic');
    const baseURL = settings.baseUrl ?? env.ANTHROPIC_BASE_URL;
    return createAnthropicProvider({ apiKey: env.ANTHROPIC_API_KEY, ...(baseURL ? { baseURL } : {}) });
  },
});

const scriptedProvider = defineProvider({
  name: 'scripted',
  description: 'offline, deterministic models for demos and tests (--script <file.yaml>)',
  defaultModel: 'scripted',
  free: true,
  configSchema: lazySchema(() =>
    z.strictObject({
      /** A YAML script of turns the scripted models play (see --script). */
      script: z.string().optional(),
      /** USD per million input and output tokens, so cost limits can be tried offline (default: free). */
      price: z.strictObject({ input: z.number().nonnegative(), output: z.number().nonnegative() }).optional(),
    }),
  ),
  // The fallback when nothing else is configured.
  detect: () => true,
  listsModels: (env) => Boolean(env.CONCLAVE_SCRIPTED_MODELS),
  async load({ env, script, settings }) {
    const { createScriptedProvider, parseScriptText } = await import('@resume/providers-scripted');
    // The environment's price (CONCLAVE_SCRIPTED_PRICE) wins over the config's, as everywhere.
    const price = settings.price && !env.CONCLAVE_SCRIPTED_PRICE ? { price: settings.price } : {};
    if (!script) return createScriptedProvider({ env: { ...env }, ...price });
    const text = readUserFile(script, { what: 'script', maxBytes: USER_FILE_LIMITS.text });
    return createScriptedProvider({ env: { ...env }, script: parseScriptText(text, script), ...price });
  },
});

export const builtinProviders = createProviderRegistry([openaiProvider, anthropicProvider, scriptedProvider]);
