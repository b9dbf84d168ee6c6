import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { UncertainStepError } from '@resume/core/spec';
import { beforeEach, describe, expect, it } from 'vitest';
import { adaptWorkspaceTools } from '../modes/workspace-tool-adapter.js';
import { runnerFixture } from '../testing/runner-fixture.js';
import { createWorkspaceTools } from '../tools/workspace-tools.js';
import type { RunnerOptions } from './runner.js';
import { createFakeModels, createTestStore, transcriptOf, until } from './test-kit.js';

const fixture = runnerFixture({ name: 'orchestrated', files: { 'notes.txt': 'remember the milk\n' } });

const leadScript = [
  { text: 'Reading first.', toolCalls: [{ id: 'call-1', name: 'read_file', args: { path: 'notes.txt' } }] },
  {
    text: 'Writing the plan.',
    toolCalls: [{ id: 'call-2', name: 'write_file', args: { path: 'plan.md', content: '# Plan\n' } }],
  },
];

/** Real workspace tools; `hangOn` makes one tool call never return (the process dies during it). */
function toolsWith(executions: string[], hangOn?: { name: string; onHang: () => void }): RunnerOptions['createTools'] {
  let hung = false;
  return ({ workspaceDir, session }) =>
    adaptWorkspaceTools(createWorkspaceTools({ root: workspaceDir }), { session, store: store() }).map((tool) => ({
      ...tool,
      async execute(args, context) {
        executions.push(tool.definition.name);
        if (hangOn && !hung && tool.definition.name === hangOn.name) {
          hung = true;
          hangOn.onHang();
          return new Promise(() => undefined);
        }
        return tool.execute(args, context);
      },
    }));
}

let currentStore: ReturnType<typeof createTestStore>;
const store = () => currentStore.store;

describe('orchestrated mode', () => {
  beforeEach(() => {
    currentStore = createTestStore();
  });

  it('runs tool calls as steps, snapshots the files, and concludes without tool calls', async () => {
    const executions: string[] = [];
    const models = createFakeModels({ leadScript });
    const runner = fixture.runner({
      engine: currentStore.engine(),
      models: models.resolve,
      createTools: toolsWith(executions),
    });
    const result = await runner.start({ mode: 'orchestrated', task: 'Plan the shopping' });
    expect(result.status).toBe('completed');
    expect(result.conclusion).toMatch(/^Done/);
    expect(executions).toEqual(['read_file', 'write_file']);
    expect(await readFile(fixture.path('plan.md'), 'utf8')).toBe('# Plan\n');
    const state = await currentStore.engine().readSession(result.sessionId);
    expect(Object.keys(state.files).sort()).toEqual(['notes.txt', 'plan.md']);
    expect(state.toolCalls.map((call) => [call.name, call.completedSeq !== null])).toEqual([
      ['read_file', true],
      ['write_file', true],
    ]);
    expect(state.messages.find((message) => message.role === 'tool')?.content).toContain('remember the milk');
  });

  it('declining the resume prompt after choosing to restore a changed file leaves the file as the user left it', async () => {
    const models = createFakeModels({ leadScript });
    const plan = fixture.path('plan.md');
    const runner = fixture.runnerInterruptedAt(() => existsSync(plan), {
      engine: currentStore.engine(),
      models: models.resolve,
      createTools: toolsWith([]),
    });
    const interrupted = await runner.start({ mode: 'orchestrated', task: 'Plan the shopping' });
    expect(interrupted.status).toBe('interrupted');
    await writeFile(plan, '# My own plan\n');
    const asked: string[] = [];
    const declined = await fixture
      .runner({
        engine: currentStore.engine(),
        models: models.resolve,
        createTools: toolsWith([]),
        decisions: {
          fileConflicts: (changes) => {
            asked.push(...changes.map((change) => `${change.path} ${change.status}`));
            return Object.fromEntries(changes.map((change) => [change.path, 'restore' as const]));
          },
          confirmResume: () => false,
        },
      })
      .resume(interrupted.sessionId);
    expect(asked).toEqual(['plan.md modified']);
    expect(declined.cancelled).toBe(true);
    expect(await readFile(plan, 'utf8')).toBe('# My own plan\n');
  });

  it('never re-runs a write that was in flight at a crash without a decision; rerun gives the same transcript', async () => {
    const reference = await (async () => {
      const { engine } = createTestStore();
      const runner = fixture.runner({
        engine: engine(),
        models: createFakeModels({ leadScript }).resolve,
        createTools: toolsWith([]),
      });
      const result = await runner.start({ mode: 'orchestrated', task: 'Plan the shopping' });
      return (await engine().readSession(result.sessionId)).messages;
    })();
    await rm(fixture.path('plan.md'));

    const executions: string[] = [];
    const models = createFakeModels({ leadScript });
    let hung = false;
    const crashing = fixture.runner({
      engine: currentStore.engine(),
      models: models.resolve,
      createTools: toolsWith(executions, {
        name: 'write_file',
        onHang: () => {
          hung = true;
        },
      }),
    });
    void crashing.start({ mode: 'orchestrated', task: 'Plan the shopping' });
    await until(() => hung);
    const sessionId = (await currentStore.engine().listSessions())[0]?.id ?? '';
    currentStore.store.killHolder(sessionId);
    const modelCallsBefore = models.calls.length;

    const undecided = fixture.runner({
      engine: currentStore.engine(),
      models: models.resolve,
      createTools: toolsWith(executions),
    });
    const plan = await undecided.plan(sessionId);
    expect(plan.uncertain.map((step) => [step.key, step.action])).toEqual([['turn-2/tool-1/write_file', 'decide']]);
    await expect(undecided.resume(sessionId)).rejects.toSatisfy((error) => UncertainStepError.isInstance(error));
    expect(executions).toEqual(['read_file', 'write_file']);

    const decided = fixture.runner({
      engine: currentStore.engine(),
      models: models.resolve,
      createTools: toolsWith(executions),
      decisions: { uncertainStep: () => 'rerun' },
    });
    const result = await decided.resume(sessionId);
    expect(result.status).toBe('completed');
    // read_file was replayed from the journal; only the uncertain write ran again.
    expect(executions).toEqual(['read_file', 'write_file', 'write_file']);
    expect(models.calls.length - modelCallsBefore).toBe(1);
    const state = await currentStore.engine().readSession(sessionId);
    expect(transcriptOf(state.messages)).toEqual(transcriptOf(reference));
  });

  it('a skipped uncertain write tells the model its effect is unknown', async () => {
    const models = createFakeModels({ leadScript });
    let hung = false;
    void fixture
      .runner({
        engine: currentStore.engine(),
        models: models.resolve,
        createTools: toolsWith([], {
          name: 'write_file',
          onHang: () => {
            hung = true;
          },
        }),
      })
      .start({ mode: 'orchestrated', task: 'Plan the shopping' });
    await until(() => hung);
    const sessionId = (await currentStore.engine().listSessions())[0]?.id ?? '';
    currentStore.store.killHolder(sessionId);
    const executions: string[] = [];
    const result = await fixture
      .runner({
        engine: currentStore.engine(),
        models: models.resolve,
        createTools: toolsWith(executions),
        decisions: { uncertainStep: () => 'skip' },
      })
      .resume(sessionId);
    expect(result.status).toBe('completed');
    expect(executions).toEqual([]);
    const state = await currentStore.engine().readSession(sessionId);
    expect(state.messages.filter((message) => message.role === 'tool').at(-1)?.content).toContain('skipped');
  });

  it('runs a .prompt.md file as an orchestrated agent with its front matter', async () => {
    await writeFile(
      fixture.path('tidy.prompt.md'),
      '---\nname: tidy\nmodel: small-model\ntools: [read_file, write_file]\nvariables: { file: notes.txt }\n---\nRead {{ file }} and write a plan.\n',
    );
    const models = createFakeModels({ leadScript });
    const runner = fixture.runner({ engine: currentStore.engine(), models: models.resolve });
    const result = await runner.runWorkflow('tidy.prompt.md');
    expect(result.status).toBe('completed');
    expect(result.resumeCommand).toBeNull();
    expect(models.calls[0]).toMatchObject({ agent: 'tidy', lastMessage: 'Read notes.txt and write a plan.' });
    const state = await currentStore.engine().readSession(result.sessionId);
    expect(state.header.mode).toBe('prompt');
    expect(state.specs[0]).toMatchObject({ kind: 'prompt', path: 'tidy.prompt.md' });
    expect(await readFile(fixture.path('plan.md'), 'utf8')).toBe('# Plan\n');
  });
});
