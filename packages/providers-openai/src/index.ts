// `@resume/providers-openai`: OpenAI and OpenAI-compatible chat models.

export { toOpenAIMessages } from './openai-messages.js';
export { createOpenAIProvider, OPENAI_PROVIDER_NAME, type OpenAIProviderOptions } from './openai-provider.js';
