// Sessions recorded by the builds of decision 0019 journaled, next to their spec's YAML data, the
// spec as validating it gave (`document.validated`). A resume no longer takes that spec: it
// validates the recorded data as a fresh run validates the file, whatever `validated` holds.
import { writeFile } from 'node:fs/promises';
import { createEngine, type Session } from '@resume/core';
import type { JsonValue } from '@resume/core/spec';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runnerFixture } from '../testing/runner-fixture.js';
import { hashDocument } from '../workflow/spec-document.js';
import { hashText } from '../workflow/spec-hash.js';
import { createRunner } from './runner.js';
import { createFakeModels, createTestStore, instantSleep } from './test-kit.js';

const fixture = runnerFixture({ name: 'older-document' });

const options = () => ({ models: createFakeModels().resolve, workspaceDir: fixture.workspace, sleep: instantSleep });

type SpecRecordedInput = Extract<Parameters<Session['record']>[0], { type: 'spec-recorded' }>;

const SPEC =
  'name: checked\nagents: { helper: { prompt: "You help." } }\nsteps:\n  - shell: "true"\n  - shell: "test -f go"\n';

/**
 * What those builds journaled as `validated` for a spec named `checked` with these agents and
 * steps (its rules' fingerprint and binding hash are opaque here).
 */
const validatedOf = (agents: JsonValue, steps: JsonValue) => ({
  spec: JSON.stringify({ name: 'checked', variables: {}, agents, steps, outputs: { artifacts: [] } }),
  rules: `sha256:${'1'.repeat(64)}`,
  hash: `sha256:${'2'.repeat(64)}`,
});

/**
 * Runs SPEC until its last step fails (it waits for a file named go), journaling the spec as
 * `rewrite` makes it, as an older build would have written it; then writes `go`.
 */
async function failedRun(rewrite: (event: SpecRecordedInput) => SpecRecordedInput) {
  const { store, engine } = createTestStore();
  const redact = <T>(value: T): T => {
    const event = value as { type?: unknown; kind?: unknown };
    if (event?.type !== 'spec-recorded' || event.kind !== 'workflow') return value;
    return rewrite(value as SpecRecordedInput) as T;
  };
  await writeFile(fixture.path('flow.yaml'), SPEC);
  const first = await createRunner({ ...options(), engine: createEngine({ store, redact }) }).runWorkflow('flow.yaml');
  expect(first.status).toBe('failed');
  await writeFile(fixture.path('go'), '');
  const recorded = (await engine().readSession(first.sessionId)).specs.find((entry) => entry.kind === 'workflow');
  return { id: first.sessionId, engine, recorded };
}

describe('a session whose journal holds a validated spec (decision 0019)', () => {
  it('resumes to the end, its spec validated from the recorded data, not taken from `validated`', async () => {
    const data = parse(SPEC) as JsonValue;
    const older = await failedRun((event) => ({
      ...event,
      document: {
        data,
        hash: hashDocument(data),
        // Taken as it is, this spec would fail the resumed step.
        validated: validatedOf({}, [{ shell: 'true' }, { shell: 'false' }]),
      },
    }));
    expect(older.recorded?.document?.validated).toBeDefined();
    const resumed = await createRunner({ ...options(), engine: older.engine() }).resume(older.id);
    expect(resumed.status).toBe('completed');
  });

  it("refuses, with a fresh run's message, a recorded spec these rules reject even though it was recorded as valid", async () => {
    // An agent prompt naming a variable the spec does not declare: a fresh run refuses it.
    const invalid = SPEC.replace('You help.', 'You help {{ who }}.');
    await writeFile(fixture.path('flow.yaml'), invalid);
    const freshRun = await createRunner({ ...options(), engine: createTestStore().engine() })
      .runWorkflow('flow.yaml')
      .then(
        () => null,
        (error: Error) => error,
      );
    expect(freshRun?.message).toContain('unknown variable "{{ who }}"');

    const data = parse(invalid) as JsonValue;
    const older = await failedRun((event) => ({
      ...event,
      hash: hashText(invalid),
      content: invalid,
      document: {
        data,
        hash: hashDocument(data),
        validated: validatedOf({ helper: { prompt: 'You help {{ who }}.' } }, [
          { shell: 'true' },
          { shell: 'test -f go' },
        ]),
      },
    }));
    await writeFile(fixture.path('flow.yaml'), invalid);
    const refused = await createRunner({ ...options(), engine: older.engine() }).resume(older.id);
    expect(refused.status).toBe('failed');
    expect(refused.error?.message).toBe(freshRun?.message);
  });
});
