// Chain steps are found in the journal by their stable id, not their position: a resume of
// an edited workflow never takes one step's recorded result for another's.
import { readFile, writeFile } from 'node:fs/promises';
import { ConfigError } from '@resume/core/spec';
import { describe, expect, it } from 'vitest';
import { exitCodeFor } from '../exit-codes/exit-codes.js';
import { runnerFixture } from '../testing/runner-fixture.js';
import { hashText } from '../workflow/workflow-spec.js';
import { RUN_OPTIONS_KEY } from './run-config.js';
import type { createRunner } from './runner.js';
import { createFakeModels, createTestStore, stepLabelIn } from './test-kit.js';

const fixture = runnerFixture({ name: 'step-ids' });

const shellFlow = (...commands: string[]) =>
  `name: ids\nsteps:\n${commands.map((command) => `  - shell: ${JSON.stringify(command)}\n`).join('')}`;
const logs = (word: string) => `echo ${word} >> ran.log`;
const ran = async () => (await readFile(fixture.path('ran.log'), 'utf8')).trim().split('\n');

async function interruptedAt(label: string, spec: string) {
  await writeFile(fixture.path('flow.yaml'), spec);
  const { engine } = createTestStore();
  const runner = fixture.runnerInterruptedAt(label, {
    engine: engine(),
    models: createFakeModels().resolve,
  });
  const first = await runner.runWorkflow('flow.yaml');
  expect(first.status).toBe('interrupted');
  const resumer = (decisions: Parameters<typeof createRunner>[0]['decisions'] = undefined) =>
    fixture.runner({
      engine: engine(),
      models: createFakeModels().resolve,
      ...(decisions ? { decisions } : {}),
    });
  return { engine, sessionId: first.sessionId, resumer };
}

describe('steps matched by id on resume', () => {
  it('after a finished step is deleted (--force), the step that moved into its place still runs', async () => {
    const { sessionId, resumer } = await interruptedAt(
      `${stepLabelIn(shellFlow(logs('one'), logs('two'), logs('three')), 1)}, passed at attempt 1`,
      shellFlow(logs('one'), logs('two'), logs('three')),
    );
    expect(await ran()).toEqual(['one', 'two']);
    await writeFile(fixture.path('flow.yaml'), shellFlow(logs('two'), logs('three')));
    // Deleting a step that ran blocks without --force: its result would be lost from the run.
    const plan = await resumer().plan(sessionId, { useEditedSpec: true });
    expect(plan.changes.compatibility?.findings).toContainEqual(
      expect.objectContaining({ kind: 'step-changed', level: 'block', after: null }),
    );
    // Step 2's checkpoint is announced once the next append carried it, which is step 3's start:
    // the interrupt then stops step 3 before its command runs, and step 3 is left uncertain.
    const result = await resumer({ uncertainStep: () => 'rerun' }).resume(sessionId, {
      useEditedSpec: true,
      force: true,
    });
    expect(result.status).toBe('completed');
    expect(await ran()).toEqual(['one', 'two', 'three']);
  });

  it("changing a finished step's kind or agent under the same id blocks without --force", async () => {
    const spec = `name: ids
agents:
  w: { prompt: "You write." }
  v: { prompt: "You check." }
steps:
  - id: a
    shell: "${logs('a')}"
  - id: b
    agent: w
    input: "Go"
  - id: c
    shell: "${logs('c')}"
`;
    const { sessionId, resumer } = await interruptedAt('step b', spec);
    expect(await ran()).toEqual(['a']);
    const asAgent = spec.replace(`shell: "${logs('a')}"`, 'agent: w\n    input: "Do a"');
    await writeFile(fixture.path('flow.yaml'), asAgent);
    const plan = await resumer().plan(sessionId, { useEditedSpec: true });
    expect(plan.changes.compatibility?.level).toBe('block');
    expect(plan.changes.compatibility?.findings).toContainEqual(
      expect.objectContaining({
        kind: 'step-changed',
        message: 'step 1 (a) already ran as a shell step but the spec now makes it an agent step (agent w)',
      }),
    );
    await expect(resumer().resume(sessionId, { useEditedSpec: true })).rejects.toSatisfy(
      (error) => exitCodeFor(error) === 65,
    );
    const otherAgent = spec.replace('agent: w\n    input: "Go"', 'agent: v\n    input: "Go"');
    await writeFile(fixture.path('flow.yaml'), otherAgent);
    expect((await resumer().plan(sessionId, { useEditedSpec: true })).changes.compatibility?.findings).toContainEqual(
      expect.objectContaining({
        message: 'step 2 (b) already ran as an agent step (agent w) but the spec now makes it an agent step (agent v)',
      }),
    );
    const forced = await resumer().resume(sessionId, { useEditedSpec: true, force: true });
    expect(forced.status).toBe('completed');
  });

  it('a step inserted before finished ones runs, and the finished ones keep their results without running again', async () => {
    const spec = `name: ids
agents:
  writer: { prompt: "You write." }
steps:
  - shell: "${logs('one')}; echo first-output"
  - agent: writer
    name: summary
    input: "Summarize {{ steps[0].response }}"
  - shell: "${logs('three')}"
`;
    const { engine, sessionId, resumer } = await interruptedAt('step summary', spec);
    expect(await ran()).toEqual(['one']);
    const edited = spec.replace('steps:\n', `steps:\n  - shell: "${logs('zero')}; echo zero-output"\n`);
    await writeFile(fixture.path('flow.yaml'), edited.replaceAll('steps[0]', 'steps[1]'));
    // The named step keeps its id although its template's index moved with the insertion.
    const plan = await resumer().plan(sessionId, { useEditedSpec: true });
    expect(plan.changes.compatibility?.level).toBe('warn');
    const result = await resumer().resume(sessionId, { useEditedSpec: true });
    expect(result.status).toBe('completed');
    expect(await ran()).toEqual(['one', 'zero', 'three']);
    const state = await engine().readSession(sessionId);
    // The writer was asked once, with the first step's recorded output.
    const writerInputs = state.messages.filter(
      (message) => message.role === 'user' && message.tags?.includes('agent:writer'),
    );
    expect(writerInputs.map((message) => message.content)).toEqual(['Summarize first-output\n']);
  });

  it('sessions recorded before step ids keep resuming with position keys', async () => {
    const spec = shellFlow(logs('one'), logs('two'));
    await writeFile(fixture.path('flow.yaml'), spec);
    const { engine } = createTestStore();
    // A session as earlier versions wrote it: no key scheme in its run config, steps keyed step-N.
    const session = await engine().createSession({
      replay: 'keyed',
      title: 'ids',
      mode: 'chain',
      workspaceDir: fixture.workspace,
      options: { [RUN_OPTIONS_KEY]: { mode: 'chain', workflowPath: 'flow.yaml', variables: {} } },
      specHash: hashText(spec),
      initialEvents: [
        { type: 'spec-recorded', kind: 'workflow', path: 'flow.yaml', hash: hashText(spec), blob: null, content: spec },
        { type: 'variables-set', variables: {} },
      ],
    });
    await session.step('step-1/shell', async () => ({ exitCode: 0, stdoutTail: 'one', stderrTail: '', attempt: 1 }), {
      safety: 'unsafe',
    });
    await session.checkpoint('step 1 shell, passed at attempt 1');
    await session.interrupt();
    await session.close();
    const runner = fixture.runner({ engine: engine(), models: createFakeModels().resolve });
    expect((await runner.resume(session.id)).status).toBe('completed');
    // Step 1 was recorded under its position: it did not run again; step 2 ran.
    expect(await ran()).toEqual(['two']);
    const resumed = await engine().readSession(session.id);
    expect(resumed.steps.map((step) => step.key)).toEqual(['step-1/shell', 'step-2/shell']);
    // Its checkpoint labels stay as it wrote them, by position.
    expect(resumed.checkpoints.map((checkpoint) => checkpoint.label)).toEqual([
      'step 1 shell, passed at attempt 1',
      'step 2 shell, passed at attempt 1',
    ]);
  });

  it('a step inserted before finished ones gets a checkpoint of its own, named by its id', async () => {
    const { engine, sessionId, resumer } = await interruptedAt(
      'step first, passed at attempt 1',
      'name: ids\nsteps:\n  - { id: first, shell: "true" }\n  - { id: last, shell: "true" }\n',
    );
    await writeFile(
      fixture.path('flow.yaml'),
      'name: ids\nsteps:\n  - { id: setup, shell: "true" }\n  - { id: first, shell: "true" }\n  - { id: last, shell: "true" }\n',
    );
    // The interrupt at the first step's checkpoint (announced once the last step's start carried
    // it) stopped the last step before its command ran: it is uncertain, and run again.
    const resumed = await resumer({ uncertainStep: () => 'rerun' }).resume(sessionId, { useEditedSpec: true });
    expect(resumed.status).toBe('completed');
    const state = await engine().readSession(sessionId);
    // By position, the inserted step would have been "step 1", a label the first step already had:
    // it would have got no checkpoint, and that label would not say which step it marks.
    expect(state.checkpoints.map((checkpoint) => checkpoint.label)).toEqual([
      'step first, passed at attempt 1',
      'step setup, passed at attempt 1',
      'step last, passed at attempt 1',
    ]);
  });

  it('refuses two steps with the same id, naming the second', async () => {
    await writeFile(
      fixture.path('flow.yaml'),
      'name: ids\nsteps:\n  - { id: build, shell: "true" }\n  - { id: build, shell: "true" }\n',
    );
    const { engine } = createTestStore();
    const runner = fixture.runner({ engine: engine(), models: createFakeModels().resolve });
    await expect(runner.runWorkflow('flow.yaml')).rejects.toSatisfy(
      (error) => ConfigError.isInstance(error) && error.message.includes('steps[1].id'),
    );
  });
});
