// End-to-end: workflow runs through the built `conclave` (run, run --resume, sessions show)
// as a user at a script would drive them, without a terminal.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assertBuilt, createSandbox, type Sandbox } from './run-cli.js';

beforeAll(() => assertBuilt());

let sandbox: Sandbox;
beforeEach(async () => {
  sandbox = await createSandbox();
});
afterEach(() => sandbox.remove());

const flakyFlow = [
  'name: flaky',
  'variables: { target: "unit" }',
  'agents:',
  '  fixer: { prompt: "You fix tests." }',
  'steps:',
  '  - shell: "echo x >> tries; [ $(wc -l < tries) -ge 3 ] || { echo broken >&2; exit 1; }"',
  '    retry: { attempts: 3 }',
  '  - agent: fixer',
  '    input: "Summarize {{ target }}"',
  '',
].join('\n');

interface ShowJson {
  variables: Record<string, string>;
  steps: { key: string; status: string; attemptHistory: { attempt: number; error: string | null }[] }[];
}

describe('conclave run: workflows from the command line', () => {
  it('sessions show lists the variables and each step with its attempts', async () => {
    await writeFile(path.join(sandbox.workspace, 'flaky.yaml'), flakyFlow);
    const run = await sandbox.run(['run', 'flaky.yaml', '--var', 'target=integration', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const { sessionId } = JSON.parse(run.stdout) as { sessionId: string };
    const shown = await sandbox.run(['sessions', 'show', sessionId]);
    expect(shown.stdout).toContain('variables:   target="integration"');
    expect(shown.stdout).toMatch(/step-1\/shell\s+completed at attempt 3/);
    expect(shown.stdout).toMatch(/attempt 1: Command `.*` exited with code 1\./);
    expect(shown.stdout).toMatch(/attempt 2: Command `.*` exited with code 1\./);
    const json = await sandbox.json<ShowJson>(['sessions', 'show', sessionId]);
    expect(json.variables).toEqual({ target: 'integration' });
    expect(json.steps[0]?.attemptHistory.map((attempt) => attempt.error === null)).toEqual([false, false, true]);
  });

  it('run --resume without an id resumes the newest interrupted workflow of this directory and says which', async () => {
    await writeFile(
      path.join(sandbox.workspace, 'flaky.yaml'),
      flakyFlow.replace('retry: { attempts: 3 }', 'retry: { attempts: 1 }'),
    );
    const failed = await sandbox.run(['run', 'flaky.yaml', '--json']);
    expect(failed.code).toBe(1);
    const { sessionId } = JSON.parse(failed.stdout) as { sessionId: string };
    // A discussion in the same directory is newer, but it is not a workflow run.
    await sandbox.run(['An unrelated discussion', '--max-rounds', '1']);

    const withVariables = await sandbox.run(['run', '--resume', sessionId, '--var', 'target=e2e', '--yes']);
    expect(withVariables.code).toBe(64);
    expect(withVariables.stderr).toContain('--var cannot change the variables of a run being resumed');

    const resumed = await sandbox.run(['run', '--resume', '--yes']);
    expect(resumed.stderr).toContain(`→ Resuming workflow run ${sessionId} "flaky"`);
    // The failed step gets a fresh budget: its second try fails too, the third passes.
    expect(resumed.code).toBe(1);
    const again = await sandbox.run(['run', '--resume', '--yes']);
    expect(again.code, again.stderr).toBe(0);

    const none = await sandbox.run(['run', '--resume', '--yes']);
    expect(none.code).toBe(66);
    expect(none.stderr).toContain('No interrupted or failed workflow run in this workspace');
  });
});
