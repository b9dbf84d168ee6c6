// Registering a provider as docs/providers.md shows it: the example is read from the page and
// run as it is written, then its provider is found by name, configured from a config file and
// loaded.
import { randomUUID } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, ProviderError } from '@resume/core/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/load-config.js';
import { exitCodeFor } from '../exit-codes/exit-codes.js';
import { builtinProviders } from './builtin-providers.js';
import type { ProviderRegistry } from './provider-registry.js';

const here = dirname(fileURLToPath(import.meta.url));
const page = readFileSync(resolve(here, '../../../../docs/providers.md'), 'utf8');

/** The first TypeScript block after a heading of the page. */
function exampleUnder(heading: string): string {
  const section = page.slice(page.indexOf(`## ${heading}`));
  const match = /```ts\n([\s\S]*?)```/.exec(section);
  if (!match?.[1]) throw new Error(`docs/providers.md has no example under "${heading}"`);
  return match[1];
}

const workspace = '/projects/app';
const configFile = `${workspace}/.conclave.yaml`;

describe('registering a provider as docs/providers.md shows', () => {
  // Written beside this test so that its imports resolve as they would in a package that depends on ours.
  const exampleFile = join(here, `docs-example-${randomUUID()}.ts`);
  let providers: ProviderRegistry;

  beforeAll(async () => {
    writeFileSync(exampleFile, exampleUnder('Registering a provider'));
    ({ providers } = (await import(/* @vite-ignore */ exampleFile)) as { providers: ProviderRegistry });
  });
  afterAll(() => rmSync(exampleFile, { force: true }));

  it('adds the provider beside the built-in ones', () => {
    expect(providers.names()).toEqual(['openai', 'anthropic', 'scripted', 'my-gateway']);
    expect(providers.get('my-gateway').defaultModel).toBe('gateway-small');
    expect(providers.isFree('my-gateway')).toBe(false);
    expect(providers.isFree('scripted')).toBe(true);
    expect(builtinProviders.has('my-gateway')).toBe(false);
  });

  it('lets the config file choose it and set it up, in the shape it declares', () => {
    const read = (file: string) =>
      file === configFile
        ? 'provider: my-gateway\nproviders:\n  my-gateway:\n    baseUrl: https://gateway.internal/v1\n'
        : null;
    const { config } = loadConfig({ cwd: workspace, userHome: '/users/ada', env: {}, readFile: read, providers });
    expect(config.provider).toBe('my-gateway');
    expect(config.providers['my-gateway']).toEqual({ baseUrl: 'https://gateway.internal/v1' });

    const misspelt = (file: string) =>
      file === configFile
        ? 'providers:\n  my-gateway:\n    baseUrl: https://gateway.internal/v1\n    modle: big\n'
        : null;
    const error = (() => {
      try {
        loadConfig({ cwd: workspace, userHome: '/users/ada', env: {}, readFile: misspelt, providers });
      } catch (caught) {
        return caught;
      }
      return null;
    })();
    expect(ConfigError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ file: configFile, key: 'providers.my-gateway.modle' });
  });

  it('loads its models with the key from the environment, and says which key is missing without it', async () => {
    const factory = providers.get('my-gateway');
    const settings = { baseUrl: 'https://gateway.internal/v1' };
    const provider = await factory.load({ settings, env: { MY_GATEWAY_KEY: 'gw-test' }, script: null });
    expect(provider.chatModel('gateway-small').modelId).toBe('gateway-small');

    const missing = await factory.load({ settings, env: {}, script: null }).catch((caught: unknown) => caught);
    expect(ProviderError.isInstance(missing)).toBe(true);
    expect(missing).toMatchObject({ reason: 'authentication', provider: 'my-gateway' });
    expect(exitCodeFor(missing)).toBe(69);
  });
});
