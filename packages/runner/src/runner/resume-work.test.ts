// The work a resume does before its first new step: the session is resolved and read once
// (the plan and the lineage's cost use the state in hand), and the recorded workflow spec is
// parsed once for both the plan and the run.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Engine } from '@resume/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createRunner } from './runner.js';
import { createFakeModels, createTestStore, instantSleep } from './test-kit.js';

vi.mock('../workflow/yaml-error.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../workflow/yaml-error.js')>();
  return { ...original, readYamlData: vi.fn(original.readYamlData) };
});

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'conclave-resume-work-'));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

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

describe('what a resume does before its first new step', () => {
  it('resolves and reads the session once, and parses the recorded spec once for its plan and its run', async () => {
    const spec = 'name: three\nsteps:\n  - shell: "true"\n  - shell: "true"\n  - shell: "test -f go"\n';
    await writeFile(path.join(workspace, 'flow.yaml'), spec);
    const { engine } = createTestStore();
    const options = { models: createFakeModels().resolve, workspaceDir: workspace, sleep: instantSleep };
    const first = await createRunner({ ...options, engine: engine() }).runWorkflow('flow.yaml');
    expect(first.status).toBe('failed');
    await writeFile(path.join(workspace, 'go'), '');

    // The resume is a new process: fresh modules, nothing parsed yet.
    vi.resetModules();
    const fresh = await import('./runner.js');
    const parses = vi.mocked((await import('../workflow/yaml-error.js')).readYamlData);
    parses.mockClear();
    const { engine: resumingEngine, calls } = counted(engine());
    const resumed = await fresh.createRunner({ ...options, engine: resumingEngine }).resume(first.sessionId);
    expect(resumed.status).toBe('completed');
    expect(calls).toEqual({ readSession: 1, resolveSessionId: 1 });
    expect(parses.mock.calls.filter(([text]) => text === spec)).toHaveLength(1);
  });

  it('hands every caller of the same spec its own copy', async () => {
    const { parseWorkflowSpec } = await import('../workflow/workflow-spec.js');
    const text = 'name: copies\nsteps:\n  - shell: "echo one"\n';
    const first = parseWorkflowSpec(text, 'flow.yaml');
    first.steps.push({ shell: 'echo changed' } as (typeof first.steps)[number]);
    expect(parseWorkflowSpec(text, 'flow.yaml').steps).toHaveLength(1);
  });
});
