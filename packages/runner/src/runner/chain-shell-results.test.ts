// What a shell step leaves for later templates: its output, its exit code and whether it
// was skipped (an uncertain run the user chose not to repeat).
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { ConfigError } from '@resume/core/spec';
import { describe, expect, it } from 'vitest';
import { runnerFixture } from '../testing/runner-fixture.js';
import type { RunEvent } from './run-event.js';
import { createFakeModels, createTestStore, until } from './test-kit.js';

const fixture = runnerFixture({ name: 'shell-results' });

const flow = (command: string) => `
name: results
agents:
  writer: { prompt: "You write." }
steps:
  - shell: ${JSON.stringify(command)}
  - agent: writer
    input: "exit={{ steps[0].exit_code }} skipped={{ steps[0].skipped }} out={{ steps[0].response }}"
`;

async function writerInput(engine: () => ReturnType<ReturnType<typeof createTestStore>['engine']>, id: string) {
  const state = await engine().readSession(id);
  return state.messages.find((message) => message.role === 'user' && message.tags?.includes('agent:writer'))?.content;
}

describe('shell step results in templates', () => {
  it('a passed step gives its exit code and skipped=false', async () => {
    await writeFile(fixture.path('flow.yaml'), flow('echo built'));
    const { engine } = createTestStore();
    const runner = fixture.runner({ engine: engine(), models: createFakeModels().resolve });
    const result = await runner.runWorkflow('flow.yaml');
    expect(result.status).toBe('completed');
    expect(await writerInput(engine, result.sessionId)).toBe('exit=0 skipped=false out=built\n');
  });

  it('tells live views what a running command prints, as it prints it', async () => {
    await writeFile(fixture.path('flow.yaml'), flow('echo first; echo oops >&2; echo second'));
    const { engine } = createTestStore();
    const events: RunEvent[] = [];
    const runner = fixture.runner({
      engine: engine(),
      models: createFakeModels().resolve,
      onEvent: (event) => events.push(event),
    });
    expect((await runner.runWorkflow('flow.yaml')).status).toBe('completed');
    const printed = events.flatMap((event) => (event.type === 'shell-output' ? [event] : []));
    expect(printed.every((event) => /^shell-[0-9a-f]{8}$/.test(event.step))).toBe(true);
    expect(printed.map((event) => event.text).join('')).toMatch(/first\n[\s\S]*second\n/);
    expect(printed.map((event) => event.text).join('')).toContain('oops');
  });

  it('a skipped uncertain step gives skipped=true and an empty exit code', async () => {
    const blocking = 'touch started; while [ ! -f release ]; do sleep 0.02; done; echo done';
    await writeFile(fixture.path('flow.yaml'), flow(blocking));
    const { store, engine } = createTestStore();
    const models = createFakeModels();
    const crashing = fixture.runner({ engine: engine(), models: models.resolve });
    const abandoned = crashing.runWorkflow('flow.yaml').catch(() => null);
    try {
      await until(() => existsSync(fixture.path('started')));
      const sessionId = (await engine().listSessions())[0]?.id ?? '';
      store.killHolder(sessionId);
      const skipping = fixture.runner({
        engine: engine(),
        models: models.resolve,
        decisions: { uncertainStep: () => 'skip' },
      });
      const result = await skipping.resume(sessionId);
      expect(result.status).toBe('completed');
      expect(await writerInput(engine, sessionId)).toBe('exit= skipped=true out=');
    } finally {
      await writeFile(fixture.path('release'), '');
      await crashing.interrupt().catch(() => undefined);
      await abandoned;
    }
  });

  it('refuses exit_code of an agent step before the run starts', async () => {
    const spec = `${flow('true')}  - agent: writer\n    input: "{{ steps[1].exit_code }}"\n`;
    await writeFile(fixture.path('flow.yaml'), spec);
    const { engine } = createTestStore();
    const runner = fixture.runner({ engine: engine(), models: createFakeModels().resolve });
    await expect(runner.runWorkflow('flow.yaml')).rejects.toSatisfy(
      (error) =>
        ConfigError.isInstance(error) &&
        error.message.includes('steps[2].input') &&
        error.message.includes('has no exit code'),
    );
    expect(await engine().listSessions()).toEqual([]);
  });
});
