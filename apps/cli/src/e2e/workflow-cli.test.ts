// End-to-end: workflow runs through the built `conclave` (run, run --resume, sessions show)
// as a user at a script would drive them, without a terminal.
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from './run-cli.js';
import { sandboxFixture } from './sandbox-fixture.js';

beforeAll(() => assertBuilt());

const sandbox = sandboxFixture();

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
    expect(shown.stdout).toMatch(/step\[shell-[0-9a-f]{8}\]\/shell\s+completed at attempt 3/);
    expect(shown.stdout).toMatch(/attempt 1: Command `.*` exited with code 1\./);
    expect(shown.stdout).toMatch(/attempt 2: Command `.*` exited with code 1\./);
    const json = await sandbox.json<ShowJson>(['sessions', 'show', sessionId]);
    expect(json.variables).toEqual({ target: 'integration' });
    expect(json.steps[0]?.attemptHistory.map((attempt) => attempt.error === null)).toEqual([false, false, true]);
  });

  it("sessions show gives each shell step's exit code and the tail of its output", async () => {
    const flow = [
      'name: outputs',
      'steps:',
      '  - id: build',
      "    shell: 'for n in 1 2 3 4 5; do echo line $n; done; echo warned >&2'",
      '',
    ].join('\n');
    await writeFile(path.join(sandbox.workspace, 'outputs.yaml'), flow);
    const run = await sandbox.run(['run', 'outputs.yaml', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const { sessionId } = JSON.parse(run.stdout) as { sessionId: string };
    const shown = await sandbox.run(['sessions', 'show', sessionId]);
    expect(shown.stdout).toMatch(/step\[build\]\/shell\s+completed · exit 0/);
    expect(shown.stdout).toContain('      │ line 3\n      │ line 4\n      │ line 5\n');
    expect(shown.stdout).toContain('      │ stderr: warned');
    const json = await sandbox.json<{ steps: Array<{ key: string; shell: unknown }> }>(['sessions', 'show', sessionId]);
    expect(json.steps.find((step) => step.key === 'step[build]/shell')?.shell).toEqual({
      exitCode: 0,
      stdoutTail: 'line 1\nline 2\nline 3\nline 4\nline 5\n',
      stderrTail: 'warned\n',
      skipped: false,
    });
  });

  it('a prompt file refuses --var for a variable it does not declare, as a workflow does, and stores nothing', async () => {
    await writeFile(
      path.join(sandbox.workspace, 'tidy.prompt.md'),
      '---\nvariables: { file: notes.txt }\n---\nRead {{ file }} and tidy it.\n',
    );
    const run = await sandbox.run(['run', 'tidy.prompt.md', '--var', 'nosuch=1']);
    expect(run.code, run.stderr).toBe(64);
    expect(run.stderr).toContain('tidy.prompt.md');
    expect(run.stderr).toContain('"nosuch"');
    expect(run.stderr).toContain('Declare it under variables: in the front matter or use one of: file.');
    expect(await sandbox.json<unknown[]>(['sessions', 'list'])).toEqual([]);
  });

  it('after a crash: recent sessions say interrupted, abort names run --resume, and progress starts where the run was', async () => {
    const flow = [
      'name: four',
      'steps:',
      "  - shell: 'echo one'",
      "  - shell: 'echo two'",
      "  - shell: 'touch started; sleep 30'",
      "  - shell: 'echo four'",
      '',
    ].join('\n');
    await writeFile(path.join(sandbox.workspace, 'four.yaml'), flow);
    const running = sandbox.start(['run', 'four.yaml']);
    const started = path.join(sandbox.workspace, 'started');
    while (!existsSync(started)) await new Promise((resolve) => setTimeout(resolve, 50));
    running.child.kill('SIGKILL');
    await running.done;
    const [session] = await sandbox.json<{ id: string; status: string }[]>(['sessions', 'list']);
    const id = session?.id ?? '';
    expect(session?.status).toBe('interrupted');

    const missing = await sandbox.run(['sessions', 'show', 'nosuchsession']);
    expect(missing.stderr).toContain('Recent sessions:');
    expect(missing.stderr).toMatch(new RegExp(`${id}\\s+interrupted`));

    const aborted = await sandbox.run(['run', '--resume', id, '--yes', '--on-uncertain', 'abort']);
    expect(aborted.code).toBe(1);
    expect(aborted.stderr).toContain(`conclave run --resume ${id} --on-uncertain rerun|skip`);
    expect(aborted.stderr).not.toContain(`conclave --resume ${id}`);

    const resumed = await sandbox.run(['run', '--resume', id, '--yes', '--on-uncertain', 'skip']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const steps = resumed.stderr.split('\n').filter((line) => /^\s+steps \d/.test(line));
    expect(steps.map((line) => line.trim())).toEqual(['steps 3/4', 'steps 4/4']);
  });

  it('a parallel group shows each step in plain output, fails naming the failed one, and the plan shows each', async () => {
    const group = [
      'name: checks',
      'agents:',
      '  reviewer: { prompt: "You review." }',
      'steps:',
      '  - id: checks',
      '    parallel:',
      '      - { id: good, shell: "echo fine" }',
      '      - { id: bad, shell: "[ -f fixed ] || { echo broken >&2; exit 4; }" }',
      '  - agent: reviewer',
      '    input: "{{ steps.good.output }}"',
      '',
    ].join('\n');
    await writeFile(path.join(sandbox.workspace, 'checks.yaml'), group);
    const failed = await sandbox.run(['run', 'checks.yaml']);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('step 1 ∥ good: completed');
    expect(failed.stderr).toContain(
      'step 1 ∥ bad: failed (Command `[ -f fixed ] || { echo broken >&2; exit 4; }` exited with code 4.)',
    );
    expect(failed.stderr).toContain('Parallel step 1 (checks) failed: "bad" failed after its retries; good completed.');
    expect(failed.stderr).not.toContain('parallel: joined');
    const sessionId = /session (\S+)/.exec(failed.stderr)?.[1] ?? '';
    const plan = await sandbox.run(['run', '--resume', sessionId, '--dry-run']);
    expect(plan.stdout).toContain('Next: step 1 of 2, parallel: good done, bad failed (runs again)');
    await writeFile(path.join(sandbox.workspace, 'fixed'), '');
    const resumed = await sandbox.run(['run', '--resume', sessionId, '--yes']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('step 1 ∥ good: restored from the journal');
    expect(resumed.stderr).toContain('step 1 ∥ bad: completed');
    expect(resumed.stderr).toContain('step 1 parallel: joined');
    const shown = await sandbox.run(['sessions', 'show', sessionId]);
    expect(shown.stdout).toMatch(/step\[bad\]\/shell\s+completed at attempt 2 · in parallel branch checks\/bad/);
    const json = await sandbox.json<{ steps: { key: string; branch: string | null }[] }>([
      'sessions',
      'show',
      sessionId,
    ]);
    expect(json.steps.map((step) => [step.key, step.branch])).toEqual(
      expect.arrayContaining([
        ['step[good]/shell', 'checks/good'],
        ['step[bad]/shell', 'checks/bad'],
        [expect.stringMatching(/^step\[agent-reviewer-/), null],
      ]),
    );
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

  it('ten clean interrupts (Ctrl+C, SIGTERM) of the same step never lock the session', async () => {
    await writeFile(path.join(sandbox.workspace, 'slow.yaml'), slowFlow);
    const slow = { CONCLAVE_SCRIPTED_LATENCY_MS: '5000' };
    const first = sandbox.start(['run', 'slow.yaml'], { env: slow });
    await first.waitFor(/is speaking/);
    first.child.kill('SIGINT');
    const stopped = await first.done;
    expect(stopped.code).toBe(130);
    const id = /conclave run --resume ([0-9a-z]{22})/.exec(stopped.stderr)?.[1] ?? '';
    for (let round = 0; round < 10; round += 1) {
      const resumed = sandbox.start(['run', '--resume', id, '--yes'], { env: slow });
      await resumed.waitFor(/is speaking/);
      resumed.child.kill(round % 2 === 0 ? 'SIGTERM' : 'SIGINT');
      const outcome = await resumed.done;
      expect(outcome.code, outcome.stderr).toBe(130);
    }
    const finished = await sandbox.run(['run', '--resume', id, '--yes']);
    expect(finished.code, finished.stderr).toBe(0);
  }, 120_000);

  it('a poison step that kills the process at the same place hits resume.maxRecoveries, and --force gets past it', async () => {
    await writeFile(path.join(sandbox.workspace, 'slow.yaml'), slowFlow);
    await writeFile(path.join(sandbox.workspace, '.conclave.yaml'), 'resume:\n  maxRecoveries: 2\n');
    const slow = { CONCLAVE_SCRIPTED_LATENCY_MS: '5000' };
    const killedAt = async (args: string[]) => {
      const running = sandbox.start(args, { env: slow });
      await running.waitFor(/is speaking/);
      running.child.kill('SIGKILL');
      await running.done;
    };
    await killedAt(['run', 'slow.yaml']);
    const id = (await sandbox.json<Array<{ id: string }>>(['sessions', 'list']))[0]?.id ?? '';
    await killedAt(['run', '--resume', id, '--yes']);
    await killedAt(['run', '--resume', id, '--yes']);
    const refused = await sandbox.run(['run', '--resume', id, '--yes']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('3 times in a row without progress');
    expect(refused.stderr).toContain(`conclave run --resume ${id} --force`);
    expect(refused.stderr).toContain('resume.maxRecoveries');
    const forced = await sandbox.run(['run', '--resume', id, '--yes', '--force']);
    expect(forced.code, forced.stderr).toBe(0);
  }, 120_000);
});

const slowFlow = [
  'name: slow',
  'agents:',
  '  thinker: { prompt: "You think." }',
  'steps:',
  '  - agent: thinker',
  '    input: "Think"',
  '  - agent: thinker',
  '    input: "Think again"',
  '',
].join('\n');
