// A run journals its workflow spec as validated, with the fingerprint of the rules that
// validated it (spec-rules.ts). A resume by a build with the same rules takes that spec and
// builds none of the spec's schemas; under any other rules, or when the recorded text or data
// is not as recorded, the spec is validated again exactly as a fresh run validates it.
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createEngine, createRedactor, type Engine, type Session } from '@resume/core';
import type { JsonValue } from '@resume/core/spec';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parse } from 'yaml';
import { hashDocument } from '../workflow/spec-document.js';
import { hashText } from '../workflow/spec-hash.js';
import { SPEC_RULES } from '../workflow/spec-rules.js';
import { createRunner } from './runner.js';
import { createFakeModels, createTestStore, instantSleep } from './test-kit.js';

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'conclave-validated-spec-'));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

const options = () => ({ models: createFakeModels().resolve, workspaceDir: workspace, sleep: instantSleep });

type SpecRecordedInput = Extract<Parameters<Session['record']>[0], { type: 'spec-recorded' }>;

/**
 * Runs `spec` from flow.yaml until its last step fails (it waits for a file named go), in a
 * store of its own. `rewrite` changes the spec the run journals, as it is written: the run
 * itself goes on with the spec it validated.
 */
async function failedRun(spec: string, rewrite?: (event: SpecRecordedInput) => SpecRecordedInput) {
  const { store, engine } = createTestStore();
  const redact = <T>(value: T): T => {
    const event = value as { type?: unknown; kind?: unknown };
    if (!rewrite || event?.type !== 'spec-recorded' || event.kind !== 'workflow') return value;
    return rewrite(value as SpecRecordedInput) as T;
  };
  await rm(path.join(workspace, 'go'), { force: true });
  await writeFile(path.join(workspace, 'flow.yaml'), spec);
  const first = await createRunner({ ...options(), engine: createEngine({ store, redact }) }).runWorkflow('flow.yaml');
  expect(first.status).toBe('failed');
  await writeFile(path.join(workspace, 'go'), '');
  const recorded = (await engine().readSession(first.sessionId)).specs.find((entry) => entry.kind === 'workflow');
  return { id: first.sessionId, engine, recorded };
}

/**
 * Resumes `sessionId` as a new process would (fresh modules), counting the zod schemas the
 * workflow spec's module builds on the way (zod hands every schema it builds to its global
 * post-processor).
 */
async function resumeCounting(sessionId: string, engine: Engine) {
  vi.resetModules();
  const config = (globalThis as { __zod_globalConfig?: { postProcessor?: (schema: unknown) => void } })
    .__zod_globalConfig as { postProcessor?: (schema: unknown) => void };
  const stackLimit = Error.stackTraceLimit;
  let specSchemas = 0;
  Error.stackTraceLimit = 100;
  config.postProcessor = () => {
    if (new Error().stack?.includes('workflow-spec.ts')) specSchemas += 1;
  };
  try {
    const fresh = await import('./runner.js');
    const resumed = await fresh
      .createRunner({ ...options(), engine })
      .resume(sessionId)
      .then(
        (result) => ({ result, error: null }),
        (error: unknown) => ({ result: null, error: error as Error }),
      );
    return { ...resumed, specSchemas };
  } finally {
    delete config.postProcessor;
    Error.stackTraceLimit = stackLimit;
  }
}

/** The hash that binds a validated spec to its rules and to its data's hash (spec-document.ts). */
const bindingHash = (rules: string, dataHash: string, spec: string) =>
  `sha256:${createHash('sha256')
    .update(JSON.stringify([rules, dataHash, spec]))
    .digest('hex')}`;

const SPEC =
  'name: checked\nagents: { helper: { prompt: "You help." } }\nsteps:\n  - shell: "true"\n  - shell: "test -f go"\n';

describe('a resume and the spec its run recorded as validated', () => {
  it('is built with a fingerprint of the rules', () => {
    expect(SPEC_RULES).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('takes the recorded spec of an unchanged workflow as validated: it builds none of the spec schemas', async () => {
    const { id, engine, recorded } = await failedRun(SPEC);
    expect(recorded?.document?.validated?.rules).toBe(SPEC_RULES);
    // The spec as validating it gave: defaults and transforms applied.
    expect(JSON.parse(recorded?.document?.validated?.spec ?? 'null')).toEqual({
      name: 'checked',
      variables: {},
      agents: { helper: { prompt: 'You help.' } },
      steps: [{ shell: 'true' }, { shell: 'test -f go' }],
      outputs: { artifacts: [] },
    });
    const resumed = await resumeCounting(id, engine());
    expect(resumed.error).toBeNull();
    expect(resumed.result?.status).toBe('completed');
    expect(resumed.specSchemas).toBe(0);
  });

  it('validates in full a spec recorded under other rules (another build), and one recorded without a validated spec', async () => {
    const other = 'sha256:0000000000000000000000000000000000000000000000000000000000000000';
    const underOtherRules = await failedRun(SPEC, (event) => {
      const { document } = event;
      if (!document?.validated) throw new Error('no validated spec recorded');
      const { spec } = document.validated;
      return {
        ...event,
        document: { ...document, validated: { spec, rules: other, hash: bindingHash(other, document.hash, spec) } },
      };
    });
    expect(underOtherRules.recorded?.document?.validated?.rules).toBe(other);
    const otherRules = await resumeCounting(underOtherRules.id, underOtherRules.engine());
    expect(otherRules.error).toBeNull();
    expect(otherRules.result?.status).toBe('completed');
    expect(otherRules.specSchemas).toBeGreaterThan(0);

    // A session started by a build that recorded no validated spec resumes as it always did.
    const older = await failedRun(SPEC, (event) => {
      if (!event.document?.validated) throw new Error('no validated spec recorded');
      return { ...event, document: { data: event.document.data, hash: event.document.hash } };
    });
    expect(older.recorded?.document).toBeDefined();
    expect(older.recorded?.document?.validated).toBeUndefined();
    const olderSession = await resumeCounting(older.id, older.engine());
    expect(olderSession.error).toBeNull();
    expect(olderSession.result?.status).toBe('completed');
    expect(olderSession.specSchemas).toBeGreaterThan(0);
  });

  it("refuses on resume, with a fresh run's message, a spec these rules reject that was recorded as valid under others", async () => {
    // The spec with an agent prompt naming a variable it does not declare: these rules refuse it.
    const invalid = SPEC.replace('You help.', 'You help {{ who }}.');
    await writeFile(path.join(workspace, 'flow.yaml'), invalid);
    const freshRun = await createRunner({ ...options(), engine: createTestStore().engine() })
      .runWorkflow('flow.yaml')
      .then(
        () => null,
        (error: Error) => error,
      );
    expect(freshRun?.message).toContain('unknown variable "{{ who }}"');

    const data = parse(invalid) as JsonValue;
    const dataHash = hashDocument(data);
    const claimed = JSON.stringify({
      name: 'checked',
      variables: {},
      agents: { helper: { prompt: 'You help {{ who }}.' } },
      steps: [{ shell: 'true' }, { shell: 'test -f go' }],
      outputs: { artifacts: [] },
    });
    /** The run journals `invalid` (and its data) as validated under `rules`. */
    const recordedAsValid = (rules: string) => (event: SpecRecordedInput) => ({
      ...event,
      hash: hashText(invalid),
      content: invalid,
      document: {
        data,
        hash: dataHash,
        validated: { spec: claimed, rules, hash: bindingHash(rules, dataHash, claimed) },
      },
    });

    // Recorded as valid under this build's rules, the recorded spec is taken as it is...
    const trusted = await failedRun(SPEC, recordedAsValid(SPEC_RULES as string));
    await writeFile(path.join(workspace, 'flow.yaml'), invalid);
    const taken = await resumeCounting(trusted.id, trusted.engine());
    expect(taken.error).toBeNull();
    expect(taken.result?.status).toBe('completed');
    expect(taken.specSchemas).toBe(0);

    // ...under any other rules it is validated again, and refused as a fresh run refuses it.
    const other = 'sha256:1111111111111111111111111111111111111111111111111111111111111111';
    const distrusted = await failedRun(SPEC, recordedAsValid(other));
    await writeFile(path.join(workspace, 'flow.yaml'), invalid);
    const refused = await resumeCounting(distrusted.id, distrusted.engine());
    expect(refused.specSchemas).toBeGreaterThan(0);
    expect(refused.result?.status).toBe('failed');
    expect(refused.result?.error?.message).toBe(freshRun?.message);
  });

  it('validates the recorded text again when the redactor changed it (the recorded spec is not used)', async () => {
    const secret = 'hunter2-very-secret-value';
    const spec = `name: scrubbed\nsteps:\n  - shell: "true # ${secret}"\n  - shell: "test -f go"\n`;
    const redactor = createRedactor({ secrets: [secret] });
    const scrubbed = await failedRun(spec, (event) => redactor.redact(event));
    expect(scrubbed.recorded?.document?.validated).toBeDefined();
    expect(JSON.stringify(scrubbed.recorded)).not.toContain(secret);
    const resumed = await resumeCounting(scrubbed.id, scrubbed.engine());
    expect(resumed.error).toBeNull();
    expect(resumed.result?.status).toBe('completed');
    expect(resumed.specSchemas).toBeGreaterThan(0);
  });
});
