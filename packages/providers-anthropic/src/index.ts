// `@resume/providers-anthropic`: Anthropic chat models.

export { toAnthropicMessages } from './anthropic-messages.js';
export {
  ANTHROPIC_PROVIDER_NAME,
  type AnthropicProviderOptions,
  createAnthropicProvider,
} from './anthropic-provider.js';
