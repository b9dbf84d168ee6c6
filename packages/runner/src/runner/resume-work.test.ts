// The work a resume does before its first new step: the session is resolved and read once
// (the plan and the lineage's cost use the state in hand), and the recorded workflow spec is
// not parsed again: its YAML data is in the journal, validated as parsed YAML would be. A
// session recorded without that data (before it existed, or data JSON cannot hold) parses
// the recorded text once for both the plan and the run.
import { readFile, writeFile } from 'node:fs/promises';
import { createEngine, createRedactor, type Engine } from '@resume/core';
import { describe, expect, it, vi } from 'vitest';
import { runnerFixture } from '../testing/runner-fixture.js';
import { createRunner } from './runner.js';
import { createFakeModels, createTestStore, instantSleep } from './test-kit.js';

vi.mock('../workflow/yaml-error.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../workflow/yaml-error.js')>();
  return { ...original, readYamlData: vi.fn(original.readYamlData) };
});

const fixture = runnerFixture({ name: 'resume-work' });

/** The engine with its reads counted. */
function counted(engine: Engine) {
  const calls = { readSession: 0, resolveSessionId: 0 };
  const wrapped: Engine = {
    ...engine,
    readSession: (id, options) => {
      calls.readSession += 1;
      return engine.readSession(id, options);
    },
    resolveSessionId: (reference) => {
      calls.resolveSessionId += 1;
      return engine.resolveSessionId(reference);
    },
  };
  return { engine: wrapped, calls };
}

/** Runs `spec` until its last step fails, then resumes it as a new process would: the YAML parses of `spec` it made. */
async function resumeOf(spec: string, engine: () => Engine) {
  await writeFile(fixture.path('flow.yaml'), spec);
  const options = { models: createFakeModels().resolve, workspaceDir: fixture.workspace, sleep: instantSleep };
  const first = await createRunner({ ...options, engine: engine() }).runWorkflow('flow.yaml');
  expect(first.status).toBe('failed');
  await writeFile(fixture.path('go'), '');

  // The resume is a new process: fresh modules, nothing parsed yet.
  vi.resetModules();
  const fresh = await import('./runner.js');
  const parses = vi.mocked((await import('../workflow/yaml-error.js')).readYamlData);
  parses.mockClear();
  const { engine: resumingEngine, calls } = counted(engine());
  const resumed = await fresh.createRunner({ ...options, engine: resumingEngine }).resume(first.sessionId);
  expect(resumed.status).toBe('completed');
  const state = await engine().readSession(first.sessionId);
  const parsesOf = (text: string | undefined) => parses.mock.calls.filter(([parsed]) => parsed === text).length;
  return { calls, parses: parsesOf(spec), parsesOf, state };
}

describe('what a resume does before its first new step', () => {
  it('resolves and reads the session once, and validates the recorded YAML data without parsing the spec', async () => {
    const spec = 'name: three\nsteps:\n  - shell: "true"\n  - shell: "true"\n  - shell: "test -f go"\n';
    const { engine } = createTestStore();
    const { calls, parses, state } = await resumeOf(spec, engine);
    expect(calls).toEqual({ readSession: 1, resolveSessionId: 1 });
    expect(parses).toBe(0);
    expect(state.specs[0]?.document?.data).toEqual({
      name: 'three',
      steps: [{ shell: 'true' }, { shell: 'true' }, { shell: 'test -f go' }],
    });
  });

  it('parses the recorded spec once when JSON cannot hold its YAML data exactly (-0), so none was recorded', async () => {
    const spec = 'name: zero\nvariables: { zero: -0 }\nsteps:\n  - shell: "true"\n  - shell: "test -f go"\n';
    const { engine } = createTestStore();
    const { parses, state } = await resumeOf(spec, engine);
    expect(state.specs[0]?.document).toBeUndefined();
    expect(parses).toBe(1);
  });

  it('parses the recorded text once when the redactor changed the recorded data, and runs the recorded text', async () => {
    const secret = 'hunter2-very-secret-value';
    const spec = `name: scrubbed\nsteps:\n  - shell: "true # ${secret}"\n  - shell: "test -f go && echo ran > out"\n`;
    const { store } = createTestStore();
    const redactor = createRedactor({ secrets: [secret] });
    const engine = () => createEngine({ store, redact: redactor.redact });
    const { parsesOf, state } = await resumeOf(spec, engine);
    const recorded = state.specs[0];
    expect(recorded?.content).not.toContain(secret);
    expect(JSON.stringify(recorded?.document)).not.toContain(secret);
    expect(parsesOf(recorded?.content)).toBe(1);
    expect(await readFile(fixture.path('out'), 'utf8')).toBe('ran\n');
  });

  it('hands every caller of the same spec its own copy', async () => {
    const { parseWorkflowSpec } = await import('../workflow/workflow-spec.js');
    const text = 'name: copies\nsteps:\n  - shell: "echo one"\n';
    const first = parseWorkflowSpec(text, 'flow.yaml');
    first.steps.push({ shell: 'echo changed' } as (typeof first.steps)[number]);
    expect(parseWorkflowSpec(text, 'flow.yaml').steps).toHaveLength(1);
  });
});
