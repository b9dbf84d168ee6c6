// Resuming workflow runs (`conclave run`): where shell steps run, which spec runs, what is
// validated before a session exists.
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError, FileNotFoundError, IncompatibleSessionError, UncertainStepError } from '@resume/core/spec';
import { describe, expect, it } from 'vitest';
import { ExitCode, exitCodeFor } from '../exit-codes/exit-codes.js';
import { formatResumePlan } from '../resume/format-resume-plan.js';
import { runnerFixture } from '../testing/runner-fixture.js';
import { nextStepOf } from './next-step.js';
import type { RunEvent } from './run-event.js';
import { createRunner } from './runner.js';
import { createFakeModels, createTestStore, instantSleep, stepLabelIn } from './test-kit.js';

const fixture = runnerFixture({ name: 'workflow', subdirectory: 'project' });

const twoSteps = (writerPrompt = 'You write short reports.') => `
name: where
agents:
  researcher: { prompt: "You research." }
  writer: { prompt: "${writerPrompt}" }
steps:
  - agent: researcher
    input: "Research"
  - shell: "pwd > where.txt"
  - agent: writer
    input: "Write"
`;

async function interruptedAfterFirstStep(spec: string) {
  await writeFile(fixture.path('flow.yaml'), spec);
  const { engine } = createTestStore();
  const models = createFakeModels();
  const runner = fixture.runnerInterruptedAt(stepLabelIn(spec, 0), {
    engine: engine(),
    models: models.resolve,
  });
  const first = await runner.runWorkflow('flow.yaml');
  expect(first.status).toBe('interrupted');
  return { engine, models, sessionId: first.sessionId };
}

describe('resuming a workflow from another directory', () => {
  it('runs shell steps in the recorded workspace, not in the current directory', async () => {
    const { engine, models, sessionId } = await interruptedAfterFirstStep(twoSteps());
    const elsewhere = path.join(fixture.root, 'elsewhere');
    await mkdir(elsewhere);
    const notices: string[] = [];
    const resumer = createRunner({
      engine: engine(),
      models: models.resolve,
      workspaceDir: elsewhere,
      sleep: instantSleep,
      onEvent: (event) => {
        if (event.type === 'notice') notices.push(event.text);
      },
    });
    const plan = await resumer.plan(sessionId);
    expect(plan.changes.workspace?.runsIn).toBe(fixture.workspace);
    expect(formatResumePlan(plan)).toContain(
      `the session runs in its workspace ${fixture.workspace} (you are in ${elsewhere})`,
    );
    const result = await resumer.resume(sessionId);
    expect(result.status).toBe('completed');
    expect((await readFile(fixture.path('where.txt'), 'utf8')).trim()).toBe(fixture.workspace);
    expect(existsSync(path.join(elsewhere, 'where.txt'))).toBe(false);
    expect(notices).toContain(`Resuming in the session's workspace ${fixture.workspace} (you are in ${elsewhere}).`);
  });

  it('refuses with 66 when the recorded workspace is gone, and --workspace moves the run', async () => {
    const { engine, models, sessionId } = await interruptedAfterFirstStep(twoSteps());
    const elsewhere = path.join(fixture.root, 'elsewhere');
    await mkdir(elsewhere);
    await rm(fixture.workspace, { recursive: true });
    const runner = createRunner({
      engine: engine(),
      models: models.resolve,
      workspaceDir: elsewhere,
      sleep: instantSleep,
    });
    const error = await runner.resume(sessionId).catch((caught: unknown) => caught);
    expect(FileNotFoundError.isInstance(error)).toBe(true);
    expect(exitCodeFor(error)).toBe(ExitCode.notFound);
    expect((error as FileNotFoundError).message).toContain(`runs in ${fixture.workspace}, which no longer exists`);
    expect(nextStepOf(error)).toEqual({ kind: 'resume-in-another-workspace', sessionId, startsFrom: 'file' });
    const state = await engine().readSession(sessionId);
    expect(state.status).toBe('interrupted');
    expect(state.recoveries).toBe(0);

    const moved = await runner.resume(sessionId, { workspaceDir: '.' });
    expect(moved.status).toBe('completed');
    expect((await readFile(path.join(elsewhere, 'where.txt'), 'utf8')).trim()).toBe(elsewhere);
  });
});

describe('what a resume reports', () => {
  it('does not announce a replayed agent step as speaking', async () => {
    const { engine, models, sessionId } = await interruptedAfterFirstStep(twoSteps());
    const events: RunEvent[] = [];
    const result = await fixture
      .runner({ engine: engine(), models: models.resolve, onEvent: (event) => events.push(event) })
      .resume(sessionId);
    expect(result.status).toBe('completed');
    expect(events.flatMap((event) => (event.type === 'turn-started' ? [event.agent] : []))).toEqual(['writer']);
  });
});

describe('the spec a resume runs', () => {
  it('runs the recorded spec when the file was edited, shows the diff, and runs the edit only when asked', async () => {
    const { engine, models, sessionId } = await interruptedAfterFirstStep(twoSteps());
    await writeFile(fixture.path('flow.yaml'), twoSteps('You write long, careful reports.'));
    const events: RunEvent[] = [];
    const runner = fixture.runner({ engine: engine(), models: models.resolve, onEvent: (event) => events.push(event) });
    const plan = await runner.plan(sessionId);
    expect(plan.spec).toMatchObject({ path: 'flow.yaml', changed: true, runs: 'recorded' });
    const text = formatResumePlan(plan);
    expect(text).toContain('flow.yaml changed since the session started; the recorded version runs');
    expect(text).toContain('-  writer: { prompt: "You write short reports." }');
    expect(text).toContain('+  writer: { prompt: "You write long, careful reports." }');
    expect((await runner.plan(sessionId, { useEditedSpec: true })).spec?.runs).toBe('edited');

    const result = await runner.resume(sessionId);
    expect(result.status).toBe('completed');
    const state = await engine().readSession(sessionId);
    // The writer ran with the recorded prompt, and the journal holds one spec.
    expect(state.specs.filter((spec) => spec.kind === 'workflow')).toHaveLength(1);
    expect(state.messages.some((message) => message.tags?.includes('resume-message'))).toBe(false);
    expect(events).toContainEqual({
      type: 'notice',
      text: 'flow.yaml changed since the session started; the recorded version runs (add --use-edited-spec to run the edited one).',
    });
  });

  it('with --use-edited-spec runs the edit, records it and tells the models; an edit of a step that ran blocks', async () => {
    const { engine, models, sessionId } = await interruptedAfterFirstStep(twoSteps());
    await writeFile(fixture.path('flow.yaml'), twoSteps().replace('input: "Research"', 'input: "Dig"'));
    const runner = fixture.runner({ engine: engine(), models: models.resolve });
    // Not asked for: the edit does not matter, the recorded spec runs.
    expect((await runner.plan(sessionId)).changes.compatibility?.level).toBe('ok');
    await writeFile(fixture.path('flow.yaml'), twoSteps().replace('- agent: researcher\n', '- agent: writer\n'));
    await expect(runner.resume(sessionId, { useEditedSpec: true })).rejects.toSatisfy((error) =>
      IncompatibleSessionError.isInstance(error),
    );
    await writeFile(fixture.path('flow.yaml'), twoSteps('You write long, careful reports.'));
    const result = await runner.resume(sessionId, { useEditedSpec: true });
    expect(result.status).toBe('completed');
    const state = await engine().readSession(sessionId);
    expect(state.specs.filter((spec) => spec.kind === 'workflow')).toHaveLength(2);
    expect(state.messages.some((message) => message.tags?.includes('resume-message'))).toBe(true);
  });

  it("a prompt file's edited tools list is the one offered when the edit is used, and a tool the session used must stay", async () => {
    const prompt = (tools: string) => `---\nname: tidy\ntools: [${tools}]\n---\nTidy the notes.\n`;
    await writeFile(fixture.path('tidy.prompt.md'), prompt('read_file, list_files'));
    await writeFile(fixture.path('notes.md'), 'notes\n');
    const { engine } = createTestStore();
    const offered: string[][] = [];
    const leadScript = [
      { text: 'Reading.', toolCalls: [{ id: 'call-1', name: 'read_file', args: { path: 'notes.md' } }] },
      { text: 'Listing.', toolCalls: [{ id: 'call-2', name: 'list_files', args: {} }] },
    ];
    const models = createFakeModels({ leadScript });
    const resolve: typeof models.resolve = (agent) => {
      const model = models.resolve(agent);
      return {
        ...model,
        generate: (request) => {
          offered.push((request.tools ?? []).map((tool) => tool.name).sort());
          return model.generate(request);
        },
      };
    };
    const first = await fixture
      .runnerInterruptedAt((checkpoint) => checkpoint.label?.startsWith('turn 1') ?? false, {
        engine: engine(),
        models: resolve,
      })
      .runWorkflow('tidy.prompt.md');
    expect(first.status).toBe('interrupted');
    expect(offered).toEqual([['list_files', 'read_file']]);

    // read_file was used: an edit that drops it blocks when the edit is to run.
    await writeFile(fixture.path('tidy.prompt.md'), prompt('list_files'));
    const runner = fixture.runner({ engine: engine(), models: resolve });
    const blocked = await runner.plan(first.sessionId, { useEditedSpec: true });
    expect(blocked.changes.compatibility?.findings).toContainEqual(
      expect.objectContaining({ kind: 'tool-missing', tool: 'read_file', level: 'block' }),
    );
    expect((await runner.plan(first.sessionId)).changes.compatibility?.level).toBe('ok');

    await writeFile(fixture.path('tidy.prompt.md'), prompt('read_file, list_files, write_file'));
    const resumed = await runner.resume(first.sessionId, { useEditedSpec: true });
    expect(resumed.status).toBe('completed');
    expect(offered.slice(1).every((names) => names.join() === 'list_files,read_file,write_file')).toBe(true);
  });
});

const fixFlow = (attempts: number) => `
name: fix
agents:
  fixer: { prompt: "You fix things." }
steps:
  - shell: 'echo "$CONCLAVE_ATTEMPT" >> attempts.log; [ "$CONCLAVE_ATTEMPT" -ge 3 ]'
    retry: { attempts: ${attempts} }
    on_failure: { agent: fixer, input: "Failed: {{ error }}" }
`;

const attemptsRun = async () => (await readFile(fixture.path('attempts.log'), 'utf8')).trim().split('\n');

describe('retries with an on_failure fixer', () => {
  it('an interrupt during the fixer leaves no uncertain attempt: the resume runs the next attempt without asking', async () => {
    await writeFile(fixture.path('flow.yaml'), fixFlow(3));
    const { engine } = createTestStore();
    let runner: ReturnType<typeof createRunner> | null = null;
    const hanging = createFakeModels({
      intercept: (_call, index) => (index === 0 ? 'interrupt' : undefined),
      onHang: () => void runner?.interrupt(),
    });
    runner = fixture.runner({ engine: engine(), models: hanging.resolve });
    const first = await runner.runWorkflow('flow.yaml');
    expect(first.status).toBe('interrupted');
    expect(await attemptsRun()).toEqual(['1']);

    const models = createFakeModels();
    const resumer = fixture.runner({ engine: engine(), models: models.resolve });
    const plan = await resumer.plan(first.sessionId);
    // Only the fixer's model call was cut off (idempotent: it runs again); the shell step is not uncertain.
    expect(plan.uncertain.map((step) => [step.key, step.action])).toEqual([
      [expect.stringMatching(/^step\[shell-[0-9a-f]{8}\]\/on-failure-1$/), 'rerun'],
    ]);
    expect(plan.retrying.map((step) => step.nextAttempt)).toEqual([2]);
    // No uncertainStep decision is given: none is needed.
    const resumed = await resumer.resume(first.sessionId);
    expect(resumed.status).toBe('completed');
    expect(await attemptsRun()).toEqual(['1', '2', '3']);
    expect(models.calls.map((call) => call.agent)).toEqual(['fixer', 'fixer']);
  });

  it('a checkpoint taken between attempts is a clean point to resume from', async () => {
    await writeFile(fixture.path('flow.yaml'), fixFlow(5));
    const { engine } = createTestStore();
    const models = createFakeModels();
    const runner = fixture.runner({ engine: engine(), models: models.resolve });
    const first = await runner.runWorkflow('flow.yaml');
    expect(first.status).toBe('completed');
    const state = await engine().readSession(first.sessionId);
    const midRetry = state.checkpoints.find(
      (checkpoint) => checkpoint.label === `${stepLabelIn(fixFlow(5), 0)}, attempt 3/5`,
    );
    expect(midRetry).toBeDefined();
    // Branching from it needs no decision: attempt 3 had not started at that checkpoint.
    const branch = await runner.branch(first.sessionId, { at: midRetry?.seq ?? 0 });
    expect(branch.status).toBe('completed');
    const branched = await engine().readSession(branch.sessionId);
    expect(
      branched.steps.find((step) => step.key.endsWith('/shell'))?.attempts.map((attempt) => attempt.attempt),
    ).toEqual([1, 2, 3]);
  });

  it('reports the attempt within the retry budget after a resume gives a fresh one', async () => {
    await writeFile(fixture.path('flow.yaml'), fixFlow(2));
    const { engine } = createTestStore();
    const models = createFakeModels();
    const runner = fixture.runner({ engine: engine(), models: models.resolve });
    const failed = await runner.runWorkflow('flow.yaml');
    expect(failed.status).toBe('failed');
    const events: RunEvent[] = [];
    const resumed = await fixture
      .runner({ engine: engine(), models: models.resolve, onEvent: (event) => events.push(event) })
      .resume(failed.sessionId);
    expect(resumed.status).toBe('completed');
    const progress = events.flatMap((event) =>
      event.type === 'progress' && event.label === 'attempt' ? [`${event.done}/${event.total}`] : [],
    );
    expect(progress).toEqual(['1/2']);
    const labels = (await engine().readSession(failed.sessionId)).checkpoints.map((checkpoint) => checkpoint.label);
    expect(labels).toContain(`${stepLabelIn(fixFlow(2), 0)}, attempt 1/2`);
    expect(
      labels.filter(
        (label) => /attempt (\d+)\/2/.test(label ?? '') && Number(/attempt (\d+)/.exec(label ?? '')?.[1]) > 2,
      ),
    ).toEqual([]);
  });
});

describe('branches', () => {
  it('does not keep a branch that stopped for a decision before doing anything', async () => {
    await writeFile(
      fixture.path('flow.yaml'),
      'name: b\nagents:\n  a: { prompt: "p" }\nsteps:\n  - agent: a\n    input: "x"\n  - shell: "true"\n  - agent: a\n    input: "y"\n',
    );
    const { engine } = createTestStore();
    const models = createFakeModels();
    const runner = fixture.runner({ engine: engine(), models: models.resolve });
    const first = await runner.runWorkflow('flow.yaml');
    expect(first.status).toBe('completed');
    // Just after the shell step started: in a branch from there it is uncertain.
    const events = [];
    for await (const event of engine().readEvents(first.sessionId)) events.push(event);
    const started = events.find((event) => event.type === 'step-started' && event.key.includes('shell'));
    await expect(runner.branch(first.sessionId, { at: started?.seq ?? 0 })).rejects.toSatisfy((error) =>
      UncertainStepError.isInstance(error),
    );
    expect((await engine().listSessions()).map((summary) => summary.id)).toEqual([first.sessionId]);
  });
});

describe('workflows without agents', () => {
  it('runs a workflow of shell steps only, with no agent declared and no model called', async () => {
    await writeFile(
      fixture.path('build.yaml'),
      'name: build\nsteps:\n  - shell: "echo built > built.txt"\n  - shell: "cat built.txt"\n',
    );
    const { engine } = createTestStore();
    const models = createFakeModels();
    const result = await fixture.runner({ engine: engine(), models: models.resolve }).runWorkflow('build.yaml');
    expect(result.status).toBe('completed');
    expect(models.calls).toEqual([]);
    expect(await readFile(fixture.path('built.txt'), 'utf8')).toBe('built\n');
  });
});

describe('what a shell step writes', () => {
  it("one durable append per step: the next step's start carries its completion and checkpoint (still announced)", async () => {
    const twoShellSteps = 'name: two\nsteps:\n  - shell: "true"\n  - shell: "true"\n';
    await writeFile(fixture.path('two.yaml'), twoShellSteps);
    const { engine, store } = createTestStore();
    const batches: string[][] = [];
    let durableSeq = 0;
    const append = store.append.bind(store);
    store.append = async (id, batch) => {
      batches.push(batch.events.map((event) => event.type));
      await append(id, batch);
      durableSeq = batch.events.at(-1)?.seq ?? durableSeq;
    };
    const announced: string[] = [];
    const result = await fixture
      .runner({
        engine: engine(),
        models: createFakeModels().resolve,
        onEvent: (event) => {
          // A checkpoint is announced once an append holding it resolved, never before.
          if (event.type === 'checkpoint')
            announced.push(`${event.label}${event.seq <= durableSeq ? '' : ' (not durable)'}`);
        },
      })
      .runWorkflow('two.yaml');
    expect(result.status).toBe('completed');
    expect(announced).toEqual([
      `${stepLabelIn(twoShellSteps, 0)}, passed at attempt 1`,
      `${stepLabelIn(twoShellSteps, 1)}, passed at attempt 1`,
    ]);
    const stepBatches = batches.filter((types) => types.includes('step-started') || types.includes('step-completed'));
    // Step 1's start; step 2's start with step 1's completion and checkpoint before it; step 2's
    // completion and checkpoint after the last step.
    expect(stepBatches).toHaveLength(3);
    expect(stepBatches[0]?.at(-1)).toBe('step-started');
    expect(stepBatches[1]?.slice(0, 2)).toEqual(['step-completed', 'checkpoint-marked']);
    expect(stepBatches[1]?.at(-1)).toBe('step-started');
    expect(stepBatches[2]?.slice(0, 2)).toEqual(['step-completed', 'checkpoint-marked']);
    expect(batches.flat().filter((type) => type === 'checkpoint-marked')).toHaveLength(2);
  });
});

describe('what a resume writes before its first new step', () => {
  it('writes nothing for the steps it replays: the first new step follows the resume record', async () => {
    const lines = ['name: long', 'steps:'];
    for (let index = 0; index < 6; index += 1) lines.push('  - shell: "true"');
    lines.push('  - shell: "test -f go"');
    await writeFile(fixture.path('long.yaml'), `${lines.join('\n')}\n`);
    const { engine, store } = createTestStore();
    const models = createFakeModels();
    const options = { engine: engine(), models: models.resolve, workspaceDir: fixture.workspace, sleep: instantSleep };
    const first = await createRunner(options).runWorkflow('long.yaml');
    expect(first.status).toBe('failed');
    const before: string[] = [];
    for await (const event of store.read(first.sessionId)) before.push(event.type);
    await writeFile(fixture.path('go'), '');
    const resumed = await createRunner({ ...options, engine: engine() }).resume(first.sessionId);
    expect(resumed.status).toBe('completed');
    const after: string[] = [];
    for await (const event of store.read(first.sessionId, { fromSeq: before.length + 1 })) after.push(event.type);
    // The six passed steps replay from the journal: no progress or data is written again for
    // them; only the failed step's next attempt is marked (its retry checkpoint) before it starts.
    expect(after.slice(0, after.indexOf('step-started'))).toEqual([
      'session-resumed',
      'status-changed',
      'checkpoint-marked',
    ]);
  });
});

describe('validation before a session exists', () => {
  it('refuses a prompt file that asks for an unknown tool without creating a session', async () => {
    await writeFile(fixture.path('tidy.prompt.md'), '---\ntools: [read_file, read_minds]\n---\nTidy.\n');
    const { engine } = createTestStore();
    const runner = fixture.runner({ engine: engine(), models: createFakeModels().resolve });
    const error = await runner.runWorkflow('tidy.prompt.md').catch((caught: unknown) => caught);
    expect(ConfigError.isInstance(error)).toBe(true);
    expect((error as ConfigError).message).toContain('tidy.prompt.md');
    expect((error as ConfigError).message).toContain('unknown tool: read_minds');
    expect(await engine().listSessions()).toEqual([]);
  });

  it('refuses an orchestrated run that asks for an unknown tool without creating a session', async () => {
    const { engine } = createTestStore();
    const runner = fixture.runner({ engine: engine(), models: createFakeModels().resolve });
    const error = await runner
      .start({ mode: 'orchestrated', task: 'Tidy', options: { tools: ['run_command'] } })
      .catch((caught: unknown) => caught);
    expect(ConfigError.isInstance(error)).toBe(true);
    expect((error as ConfigError).message).toContain('unknown tool: run_command');
    expect((error as ConfigError).hint).toContain('tools.allowCommands');
    expect(await engine().listSessions()).toEqual([]);
  });
});
