// What a shell step's command sees of the environment: everything but the provider API keys,
// which only a step that names them under `env:` gets.
import { readFile, writeFile } from 'node:fs/promises';
import { createEngine } from '@resume/core';
import { createMemoryStore } from '@resume/core/testing';
import { describe, expect, it } from 'vitest';
import { runnerFixture } from '../testing/runner-fixture.js';
import { createFakeModels } from './test-kit.js';

const fixture = runnerFixture({ name: 'shell-env' });

const env = {
  PATH: process.env.PATH,
  OPENAI_API_KEY: 'sk-proj-shellEnvironmentTest000000000001',
  ANTHROPIC_API_KEY: 'sk-ant-shellEnvironmentTest00000000002',
  MY_SERVICE_TOKEN: 'svc-shell-environment-test-0003',
};

async function run(flow: string): Promise<string> {
  await writeFile(fixture.path('flow.yaml'), flow);
  const runner = fixture.runner({
    engine: createEngine({ store: createMemoryStore() }),
    models: createFakeModels().resolve,
    env,
  });
  const result = await runner.runWorkflow('flow.yaml');
  expect(result.status).toBe('completed');
  return readFile(fixture.path('seen.txt'), 'utf8');
}

const print = `'echo "openai=\${OPENAI_API_KEY:-unset} anthropic=\${ANTHROPIC_API_KEY:-unset} service=\${MY_SERVICE_TOKEN:-unset}" > seen.txt'`;

describe('the environment of a shell step', () => {
  it('leaves out the provider API keys and keeps the rest', async () => {
    const seen = await run(`name: env\nsteps:\n  - shell: ${print}\n`);
    expect(seen.trim()).toBe(`openai=unset anthropic=unset service=${env.MY_SERVICE_TOKEN}`);
  });

  it('passes a provider API key the step names under env:', async () => {
    const seen = await run(`name: env\nsteps:\n  - shell: ${print}\n    env: [OPENAI_API_KEY]\n`);
    expect(seen.trim()).toBe(`openai=${env.OPENAI_API_KEY} anthropic=unset service=${env.MY_SERVICE_TOKEN}`);
  });

  it('refuses an env: entry that is not a variable name, naming the step and the fix', async () => {
    await writeFile(fixture.path('flow.yaml'), `name: env\nsteps:\n  - shell: ${print}\n    env: [OPENAI_API_KEY=x]\n`);
    const runner = fixture.runner({
      engine: createEngine({ store: createMemoryStore() }),
      models: createFakeModels().resolve,
      env,
    });
    await expect(runner.runWorkflow('flow.yaml')).rejects.toThrow(
      /flow\.yaml at steps\[0\]\.env\[0\]: .*variable name/,
    );
  });
});
