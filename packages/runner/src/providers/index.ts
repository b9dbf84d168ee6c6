// `@resume/runner/providers`: the provider registry and the built-in providers, without the
// runner: what a front end needs at start-up to name providers in its help and options.
export { builtinProviders } from './builtin-providers.js';
export {
  configuredModel,
  createProviderRegistry,
  defineProvider,
  type ProviderEnvironment,
  type ProviderFactory,
  type ProviderLoadInput,
  type ProviderRegistry,
  type ProviderSettings,
} from './provider-registry.js';
