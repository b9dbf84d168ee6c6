import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { ConfigError, IncompatibleSessionError, UncertainStepError } from '@resume/core/spec';
import { describe, expect, it } from 'vitest';
import { runnerFixture } from '../testing/runner-fixture.js';
import { createFakeModels, createTestStore, stepLabelIn, transcriptOf, until } from './test-kit.js';

const fixture = runnerFixture({ name: 'chain' });

const flow = (shell: string, attempts = 5) => `
name: test-fix
variables: { topic: "parsers" }
agents:
  researcher: { prompt: "You research {{ topic }}." }
  writer: { prompt: "You write short reports." }
steps:
  - agent: researcher
    input: "Research {{ topic }}"
  - shell: ${JSON.stringify(shell)}
    retry: { attempts: ${attempts}, backoff: 1s }
    on_failure: { agent: researcher, input: "Tests failed:\\n{{ error }}\\nFix them." }
  - agent: writer
    input: "Write a report from:\\n{{ steps[0].response }}"
outputs:
  artifacts:
    - { path: out/report.md, from: "{{ last_response }}" }
`;

const flakyUntilThird =
  'echo "$CONCLAVE_ATTEMPT $CONCLAVE_STEP $CONCLAVE_SESSION_ID" >> attempts.log; echo boom >&2; [ "$CONCLAVE_ATTEMPT" -ge 3 ]';

async function attemptsLog(): Promise<string[]> {
  const text = await readFile(fixture.path('attempts.log'), 'utf8');
  return text.trim().split('\n');
}

describe('chain workflows', () => {
  it('runs agent and shell steps with retries, on_failure fixes, templating and artifacts', async () => {
    await writeFile(fixture.path('flow.yaml'), flow(flakyUntilThird));
    const { engine } = createTestStore();
    const models = createFakeModels();
    const runner = fixture.runner({ engine: engine(), models: models.resolve });
    const result = await runner.runWorkflow('flow.yaml', { variables: { topic: 'lexers' } });
    expect(result.status).toBe('completed');
    // CONCLAVE_STEP counts like the labels: the second step is step 2 (steps[1] in templates).
    expect(await attemptsLog()).toEqual([1, 2, 3].map((attempt) => `${attempt} 2 ${result.sessionId}`));
    expect(models.calls.map((call) => call.agent)).toEqual(['researcher', 'researcher', 'researcher', 'writer']);
    expect(models.calls[0]?.lastMessage).toBe('Research lexers');
    expect(models.calls[1]?.lastMessage).toContain('exited with code 1');
    expect(models.calls[1]?.lastMessage).toContain('boom');
    expect(models.calls[3]?.lastMessage).toContain('researcher says');
    expect(await readFile(fixture.path('out/report.md'), 'utf8')).toBe(result.conclusion);

    const state = await engine().readSession(result.sessionId);
    expect(state.specs[0]).toMatchObject({ kind: 'workflow', path: 'flow.yaml' });
    expect(state.variables).toEqual({ topic: 'lexers' });
    const shell = state.steps.find((step) => /^step\[shell-[0-9a-f]{8}\]\/shell$/.test(step.key));
    expect(shell?.attempts.map((attempt) => attempt.error?.message.split('\n')[0] ?? 'ok')).toEqual([
      expect.stringContaining('exited with code 1'),
      expect.stringContaining('exited with code 1'),
      'ok',
    ]);
    expect(state.files['out/report.md']?.access).toBe('write');
    // Labels name the step by its id: they keep meaning the same step when the spec is edited.
    const shellStep = stepLabelIn(flow(flakyUntilThird), 1);
    expect(shellStep).toMatch(/^step shell-[0-9a-f]{8}$/);
    expect(state.checkpoints.map((checkpoint) => checkpoint.label)).toEqual(
      expect.arrayContaining([
        `${shellStep}, attempt 2/5`,
        `${shellStep}, attempt 3/5`,
        `${shellStep}, passed at attempt 3`,
      ]),
    );
  });

  it('continues the attempt count after a crash between attempts, without re-running finished steps', async () => {
    await writeFile(fixture.path('flow.yaml'), flow(flakyUntilThird));
    const reference = await (async () => {
      const { engine } = createTestStore();
      const models = createFakeModels();
      const runner = fixture.runner({ engine: engine(), models: models.resolve });
      const result = await runner.runWorkflow('flow.yaml');
      return { messages: (await engine().readSession(result.sessionId)).messages, calls: models.calls };
    })();
    await rm(fixture.path('attempts.log'));

    const { store, engine } = createTestStore();
    const models = createFakeModels();
    let hung = false;
    const crashing = fixture.runner({
      engine: engine(),
      models: models.resolve,
      // The process "dies" while waiting for the second attempt.
      sleep: () => {
        hung = true;
        return new Promise(() => undefined);
      },
    });
    void crashing.runWorkflow('flow.yaml');
    await until(() => hung);
    const sessionId = (await engine().listSessions())[0]?.id ?? '';
    store.killHolder(sessionId);
    expect(await attemptsLog()).toEqual([`1 2 ${sessionId}`]);
    const callsBefore = models.calls.length;

    const plan = await fixture.runner({ engine: engine(), models: models.resolve }).plan(sessionId);
    expect(plan.done.map((step) => step.key)).toContainEqual(
      expect.stringMatching(/^step\[agent-researcher-[0-9a-f]{8}\]\/researcher$/),
    );
    expect(plan.next).toContain('step 2');

    const resumed = await fixture.runner({ engine: engine(), models: models.resolve }).resume(sessionId);
    expect(resumed.status).toBe('completed');
    expect((await attemptsLog()).map((line) => line.split(' ')[0])).toEqual(['1', '2', '3']);
    // The first fixer ran before the wait the process died in (the fixer runs first, then the backoff).
    expect(models.calls.slice(callsBefore).map((call) => call.agent)).toEqual(['researcher', 'writer']);
    const state = await engine().readSession(sessionId);
    expect(transcriptOf(state.messages)).toEqual(transcriptOf(reference.messages));
  });

  it('does not re-run a shell attempt that was in flight at a crash without a decision', async () => {
    const blocking =
      'echo "$CONCLAVE_ATTEMPT" >> attempts.log; touch started; while [ ! -f release ]; do sleep 0.02; done; [ "$CONCLAVE_ATTEMPT" -ge 2 ]';
    await writeFile(fixture.path('flow.yaml'), flow(blocking, 3));
    const { store, engine } = createTestStore();
    const models = createFakeModels();
    const crashing = fixture.runner({ engine: engine(), models: models.resolve });
    const abandoned = crashing.runWorkflow('flow.yaml').catch(() => null);
    await until(() => existsSync(fixture.path('started')));
    const sessionId = (await engine().listSessions())[0]?.id ?? '';
    store.killHolder(sessionId);
    try {
      const undecided = fixture.runner({ engine: engine(), models: models.resolve });
      await expect(undecided.resume(sessionId)).rejects.toSatisfy((error) => UncertainStepError.isInstance(error));
      expect(await attemptsLog()).toEqual(['1']);
      expect((await engine().readSession(sessionId)).status).toBe('interrupted');

      await writeFile(fixture.path('release'), '');
      const decided = fixture.runner({
        engine: engine(),
        models: models.resolve,
        decisions: { uncertainStep: () => 'rerun' },
      });
      const result = await decided.resume(sessionId);
      expect(result.status).toBe('completed');
    } finally {
      await writeFile(fixture.path('release'), '');
      await crashing.interrupt().catch(() => undefined);
      await abandoned;
    }
    // The uncertain attempt 1 was run again as attempt 1 (it never recorded an outcome), then attempt 2.
    const state = await engine().readSession(sessionId);
    const shell = state.steps.find((step) => /^step\[shell-[0-9a-f]{8}\]\/shell$/.test(step.key));
    expect(shell?.status).toBe('completed');
    expect(shell?.attempts.map((attempt) => attempt.attempt)).toEqual([1, 2]);
  });

  it('fails the run when the attempts run out, and a resume gets a fresh budget', async () => {
    await writeFile(fixture.path('flow.yaml'), flow(flakyUntilThird, 2));
    const { engine } = createTestStore();
    const models = createFakeModels();
    const runner = fixture.runner({ engine: engine(), models: models.resolve });
    const failed = await runner.runWorkflow('flow.yaml');
    expect(failed.status).toBe('failed');
    expect(failed.error?.message).toContain('exited with code 1');
    expect(failed.resumeCommand).toBe(`conclave run --resume ${failed.sessionId}`);
    const resumed = await runner.resume(failed.sessionId);
    expect(resumed.error).toBeNull();
    expect(resumed.status).toBe('completed');
    expect((await attemptsLog()).map((line) => line.split(' ')[0])).toEqual(['1', '2', '3']);
  });

  it('refuses an invalid spec before creating a session', async () => {
    await writeFile(fixture.path('flow.yaml'), flow(flakyUntilThird).replace('- agent: writer', '- agent: editor'));
    const { engine } = createTestStore();
    const runner = fixture.runner({ engine: engine(), models: createFakeModels().resolve });
    await expect(runner.runWorkflow('flow.yaml')).rejects.toSatisfy(
      (error) => ConfigError.isInstance(error) && error.message.includes('steps[2].agent'),
    );
    await writeFile(fixture.path('flow.yaml'), flow(flakyUntilThird));
    await expect(runner.runWorkflow('flow.yaml', { variables: { colour: 'red' } })).rejects.toThrow(/does not declare/);
    expect(await engine().listSessions()).toEqual([]);
  });

  it('with --use-edited-spec resumes a cosmetically edited workflow (warned, resume message) but blocks when a step that already ran changed', async () => {
    await writeFile(fixture.path('flow.yaml'), flow('true'));
    const { engine } = createTestStore();
    const models = createFakeModels();
    const runner = fixture.runnerInterruptedAt(stepLabelIn(flow('true'), 0), {
      engine: engine(),
      models: models.resolve,
    });
    const first = await runner.runWorkflow('flow.yaml');
    expect(first.status).toBe('interrupted');

    await writeFile(
      fixture.path('flow.yaml'),
      flow('true')
        .replace('writer: { prompt:', 'researcher2: { prompt: "x" }\n  writer: { prompt:')
        .replace('- agent: researcher\n', '- agent: researcher2\n'),
    );
    const blocked = fixture.runner({ engine: engine(), models: models.resolve });
    expect((await blocked.plan(first.sessionId, { useEditedSpec: true })).changes.compatibility?.level).toBe('block');
    await expect(blocked.resume(first.sessionId, { useEditedSpec: true })).rejects.toSatisfy((error) =>
      IncompatibleSessionError.isInstance(error),
    );

    await writeFile(
      fixture.path('flow.yaml'),
      flow('true').replace('You write short reports.', 'You write short, clear reports.'),
    );
    const notices: string[] = [];
    const resumer = fixture.runner({
      engine: engine(),
      models: models.resolve,
      onEvent: (event) => {
        if (event.type === 'notice') notices.push(event.text);
      },
    });
    expect((await resumer.plan(first.sessionId, { useEditedSpec: true })).changes.compatibility?.level).toBe('warn');
    const resumed = await resumer.resume(first.sessionId, { useEditedSpec: true });
    expect(resumed.status).toBe('completed');
    expect(notices.some((text) => text.includes('flow.yaml changed'))).toBe(true);
    // The researcher's step was not asked again; the writer got the edited prompt.
    expect(models.calls.map((call) => call.agent)).toEqual(['researcher', 'writer']);
    const state = await engine().readSession(first.sessionId);
    expect(state.specs.filter((spec) => spec.kind === 'workflow')).toHaveLength(2);
    expect(state.messages.some((message) => message.tags?.includes('resume-message'))).toBe(true);
  });

  it('an interrupt stops a running shell attempt (its whole process group) and leaves it for a decision', async () => {
    await writeFile(fixture.path('flow.yaml'), flow('touch started; sleep 5; touch finished', 2));
    const { engine } = createTestStore();
    const models = createFakeModels();
    const runner = fixture.runner({ engine: engine(), models: models.resolve });
    const running = runner.runWorkflow('flow.yaml');
    await until(() => existsSync(fixture.path('started')));
    await runner.interrupt('interrupted by Ctrl+C');
    const result = await running;
    expect(result.status).toBe('interrupted');
    expect(existsSync(fixture.path('finished'))).toBe(false);
    const plan = await runner.plan(result.sessionId);
    expect(plan.uncertain.map((step) => step.key)).toEqual([
      expect.stringMatching(/^step\[shell-[0-9a-f]{8}\]\/shell$/),
    ]);
  });
});
