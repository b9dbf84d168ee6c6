// End-to-end: `validate:` and `goal_seek:` steps through the built `conclave`: each check and
// each attempt is journaled, a kill in the middle of the loop resumes at the same attempt with
// the same missing list (or previous score), and no check or attempt runs twice.
import { cp, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assertBuilt, createSandbox, type Sandbox } from './run-cli.js';

beforeAll(() => assertBuilt());

let sandbox: Sandbox;
beforeEach(async () => {
  sandbox = await createSandbox();
});
afterEach(() => sandbox.remove());

// Each check finds one more part done: 1 of 3, 2 of 3, then all of them.
const checkScript = [
  'echo check >> checks.log',
  'n=$(grep -c check checks.log)',
  'case $n in',
  '  1) echo \'{ "completion": 0.33, "missing": ["usage", "errors"] }\' ;;',
  '  2) echo \'{ "completion": 0.67, "missing": ["errors"] }\'; exit 1 ;;',
  '  *) echo \'{ "completion": 1, "missing": [] }\' ;;',
  'esac',
  '',
].join('\n');

const validateFlow = [
  'name: complete-docs',
  'agents:',
  '  fixer: { prompt: "You complete documentation." }',
  'steps:',
  '  - id: docs',
  '    validate:',
  '      shell: sh check.sh',
  '      threshold: 1',
  '      max_attempts: 3',
  '      on_incomplete:',
  '        agent: fixer',
  '        input: "Check {{ validation.attempt }} found {{ validation.completion }}; still missing: {{ validation.missing }}"',
  "  - shell: 'echo after >> checks.log'",
  '',
].join('\n');

// Scores 40, 70, 55: the threshold is never reached, so the best attempt (the second) is the output.
const scoreScript = [
  'echo scored >> scores.log',
  'n=$(grep -c scored scores.log)',
  'printf %s "$CONCLAVE_OUTPUT" > "output-$n.txt"',
  'case $n in 1) echo 40 ;; 2) echo "score: 70" ;; *) echo \'{ "score": 55 }\' ;; esac',
  '',
].join('\n');

const goalFlow = [
  'name: tagline',
  'agents:',
  '  writer: { prompt: "You write taglines." }',
  'steps:',
  '  - id: tagline',
  '    goal_seek:',
  '      agent: writer',
  '      input: "Write a tagline (attempt {{ goal.attempt }}; the last one scored {{ goal.previous_score }})"',
  '      validate: sh score.sh',
  '      threshold: 90',
  '      max_attempts: 3',
  'outputs:',
  '  artifacts:',
  '    - { path: chosen.txt, from: "{{ steps.tagline.output }}" }',
  '',
].join('\n');

interface CallLogLine {
  agent: string | null;
  lastMessage: string | null;
}

async function lines(file: string): Promise<string[]> {
  return (await readFile(path.resolve(sandbox.workspace, file), 'utf8')).split('\n').filter(Boolean);
}

/** Runs flow.yaml with slow model calls and kills it (SIGKILL) while its second model call waits. */
async function killedAtTheSecondTurn(callLog: string): Promise<void> {
  const running = sandbox.start(['run', 'flow.yaml'], {
    env: { CONCLAVE_SCRIPTED_LATENCY_MS: '4000', CONCLAVE_SCRIPTED_CALL_LOG: callLog },
  });
  await running.waitFor(/is speaking[\s\S]*is speaking/);
  running.child.kill('SIGKILL');
  await running.done;
}

async function calls(file: string): Promise<CallLogLine[]> {
  return (await lines(file)).map((line) => JSON.parse(line) as CallLogLine);
}

describe('conclave run: validate steps', () => {
  it('checks, runs the fixer while incomplete, and goes on once the threshold is reached', async () => {
    await writeFile(path.join(sandbox.workspace, 'check.sh'), checkScript);
    await writeFile(path.join(sandbox.workspace, 'flow.yaml'), validateFlow);
    const callLog = path.join(sandbox.root, 'calls.jsonl');
    const result = await sandbox.run(['run', 'flow.yaml'], { env: { CONCLAVE_SCRIPTED_CALL_LOG: callLog } });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('check 1/3: 33% complete, missing usage, errors');
    expect(result.stderr).toContain('check 3/3: 100% complete');
    expect(await lines('checks.log')).toEqual(['check', 'check', 'check', 'after']);
    expect((await calls(callLog)).map((call) => call.lastMessage)).toEqual([
      'Check 1 found 0.33; still missing: usage, errors',
      'Check 2 found 0.67; still missing: errors',
    ]);
  });

  it('killed while its fixer works, resumes at the same check with the same missing list', async () => {
    await writeFile(path.join(sandbox.workspace, 'check.sh'), checkScript);
    await writeFile(path.join(sandbox.workspace, 'flow.yaml'), validateFlow);
    const callLog = path.join(sandbox.root, 'calls.jsonl');
    await killedAtTheSecondTurn(callLog);
    expect(await lines('checks.log')).toEqual(['check', 'check']);
    const id = (await sandbox.json<Array<{ id: string }>>(['sessions', 'list']))[0]?.id ?? '';
    const plan = await sandbox.run(['run', '--resume', id, '--dry-run']);
    expect(plan.stdout).toContain('check 2/3: 67% complete, missing errors');

    const resumed = await sandbox.run(['run', '--resume', id, '--yes'], {
      env: { CONCLAVE_SCRIPTED_CALL_LOG: callLog },
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    // The two checks that ran are not run again; the third ends the loop.
    expect(await lines('checks.log')).toEqual(['check', 'check', 'check', 'after']);
    expect((await calls(callLog)).map((call) => call.lastMessage)).toEqual([
      'Check 1 found 0.33; still missing: usage, errors',
      'Check 2 found 0.67; still missing: errors',
    ]);
  }, 60_000);

  it('fails naming what is missing when the checks run out, and a resume checks again with fresh attempts', async () => {
    await writeFile(path.join(sandbox.workspace, 'check.sh'), checkScript);
    await writeFile(
      path.join(sandbox.workspace, 'flow.yaml'),
      validateFlow.replace('max_attempts: 3', 'max_attempts: 2'),
    );
    const failed = await sandbox.run(['run', 'flow.yaml']);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('Step docs is 67% complete after 2 checks, below its threshold of 100%');
    expect(failed.stderr).toContain('missing: errors');
    const id = /conclave run --resume (\S+)/.exec(failed.stderr)?.[1] ?? '';
    const resumed = await sandbox.run(['run', '--resume', id, '--yes']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await lines('checks.log')).toEqual(['check', 'check', 'check', 'after']);
  });

  it('a check whose output holds no completion fails with what it printed and the format expected', async () => {
    await writeFile(
      path.join(sandbox.workspace, 'flow.yaml'),
      ['name: v', 'steps:', '  - id: docs', '    validate: { shell: "echo all good" }', ''].join('\n'),
    );
    const result = await sandbox.run(['run', 'flow.yaml']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('The check of step docs printed no completion');
    expect(result.stderr).toContain('all good');
    expect(result.stderr).toContain('{ "completion": 0.8, "missing": [...] }');
  });

  it('a spec that misuses validate: is refused before anything runs, naming the place and the fix', async () => {
    await writeFile(
      path.join(sandbox.workspace, 'both.yaml'),
      [
        'name: v',
        'agents: { a: { prompt: "p" } }',
        'steps:',
        '  - validate: { shell: "true", agent: a, input: "Check" }',
        '',
      ].join('\n'),
    );
    const both = await sandbox.run(['run', 'both.yaml']);
    expect(both.code).toBe(64);
    expect(both.stderr).toContain('both.yaml at steps[0].validate');
    expect(both.stderr).toContain('a check is either `shell:` or `agent:` with `input:`, not both');

    await writeFile(
      path.join(sandbox.workspace, 'outside.yaml'),
      ['name: v', 'steps:', '  - shell: "echo {{ validation.missing }}"', ''].join('\n'),
    );
    const outside = await sandbox.run(['run', 'outside.yaml']);
    expect(outside.code).toBe(64);
    expect(outside.stderr).toContain('{{ validation.missing }} is only available in validate.on_incomplete');
    expect((await sandbox.json<unknown[]>(['sessions', 'list'])).length).toBe(0);
  });
});

describe('conclave run: goal_seek steps', () => {
  it('repeats with the previous score until max_attempts, and the best attempt is the output', async () => {
    await writeFile(path.join(sandbox.workspace, 'score.sh'), scoreScript);
    await writeFile(path.join(sandbox.workspace, 'flow.yaml'), goalFlow);
    const callLog = path.join(sandbox.root, 'calls.jsonl');
    const result = await sandbox.run(['run', 'flow.yaml'], { env: { CONCLAVE_SCRIPTED_CALL_LOG: callLog } });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('attempt 2/3: scored 70');
    expect(result.stderr).toContain('best of 3 attempts: 70 (attempt 2), below the threshold of 90');
    expect((await calls(callLog)).map((call) => call.lastMessage)).toEqual([
      'Write a tagline (attempt 1; the last one scored )',
      'Write a tagline (attempt 2; the last one scored 40)',
      'Write a tagline (attempt 3; the last one scored 70)',
    ]);
    const best = await readFile(path.join(sandbox.workspace, 'output-2.txt'), 'utf8');
    expect(best.length).toBeGreaterThan(0);
    expect(await readFile(path.join(sandbox.workspace, 'chosen.txt'), 'utf8')).toBe(best);
  });

  it('stops at the first attempt that reaches the threshold', async () => {
    await writeFile(path.join(sandbox.workspace, 'score.sh'), scoreScript);
    await writeFile(path.join(sandbox.workspace, 'flow.yaml'), goalFlow.replace('threshold: 90', 'threshold: 70'));
    const result = await sandbox.run(['run', 'flow.yaml']);
    expect(result.code, result.stderr).toBe(0);
    expect(await lines('scores.log')).toEqual(['scored', 'scored']);
    expect(result.stderr).toContain('attempt 2/3: scored 70, threshold reached');
  });

  it('killed during an attempt, resumes at that attempt with the previous score; no attempt runs twice', async () => {
    await writeFile(path.join(sandbox.workspace, 'score.sh'), scoreScript);
    await writeFile(path.join(sandbox.workspace, 'flow.yaml'), goalFlow);
    const callLog = path.join(sandbox.root, 'calls.jsonl');
    await killedAtTheSecondTurn(callLog);
    expect(await lines('scores.log')).toEqual(['scored']);
    const id = (await sandbox.json<Array<{ id: string }>>(['sessions', 'list']))[0]?.id ?? '';
    const plan = await sandbox.run(['run', '--resume', id, '--dry-run']);
    expect(plan.stdout).toContain('attempt 1/3: scored 40');

    const resumed = await sandbox.run(['run', '--resume', id, '--yes'], {
      env: { CONCLAVE_SCRIPTED_CALL_LOG: callLog },
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await lines('scores.log')).toEqual(['scored', 'scored', 'scored']);
    expect((await calls(callLog)).map((call) => call.lastMessage)).toEqual([
      'Write a tagline (attempt 1; the last one scored )',
      'Write a tagline (attempt 2; the last one scored 40)',
      'Write a tagline (attempt 3; the last one scored 70)',
    ]);
  }, 60_000);
});

describe('conclave run: agents as checks and scorers', () => {
  it('an agent check answers with the completion JSON, an agent scorer with a score', async () => {
    const flow = [
      'name: agents',
      'agents:',
      '  judge: { prompt: "You judge work." }',
      '  writer: { prompt: "You write." }',
      'steps:',
      '  - id: docs',
      '    validate:',
      '      agent: judge',
      '      input: "How complete are the docs?"',
      '      on_incomplete: { shell: \'echo "{{ validation.missing }}" >> fixed.txt\' }',
      '  - id: line',
      '    goal_seek:',
      '      agent: writer',
      '      input: "Write a line"',
      '      validate: { agent: judge, input: "Score this line: {{ goal.output }}" }',
      '      threshold: 80',
      '',
    ].join('\n');
    const script = [
      '- { agent: judge, text: \'Not yet. { "completion": 0.5, "missing": ["usage"] }\' }',
      '- { agent: judge, text: \'{ "completion": 1, "missing": [] }\' }',
      "- { agent: writer, text: 'A line worth reading.' }",
      "- { agent: judge, text: 'Good. score: 85' }",
      '',
    ].join('\n');
    await writeFile(path.join(sandbox.workspace, 'flow.yaml'), flow);
    await writeFile(path.join(sandbox.workspace, 'script.yaml'), script);
    const result = await sandbox.run(['run', 'flow.yaml', '--script', 'script.yaml']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('check 1/3: 50% complete, missing usage');
    expect(result.stderr).toContain('check 2/3: 100% complete');
    expect(result.stderr).toContain('attempt 1/3: scored 85, threshold reached');
    expect(await lines('fixed.txt')).toEqual(['usage']);
  });
});

describe('examples/scored-steps.yaml', () => {
  it('runs offline: a validate loop and a goal_seek loop', async () => {
    const examples = fileURLToPath(new URL('../../../../examples/', import.meta.url));
    await cp(path.join(examples, 'scored-steps.yaml'), path.join(sandbox.workspace, 'examples', 'scored-steps.yaml'));
    await cp(path.join(examples, 'scored-steps'), path.join(sandbox.workspace, 'examples', 'scored-steps'), {
      recursive: true,
    });
    const result = await sandbox.run(['run', 'examples/scored-steps.yaml']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('check 1/4: 33% complete, missing Usage, Errors');
    expect(result.stderr).toContain('check 3/4: 100% complete');
    expect(result.stderr).toMatch(/attempt \d\/3: scored \d+, threshold reached/);
    const out = path.join(sandbox.workspace, 'examples', 'scored-steps', 'out');
    expect(await readFile(path.join(out, 'guide.md'), 'utf8')).toMatch(/## Usage[\s\S]*## Errors/);
    expect((await readFile(path.join(out, 'summary.md'), 'utf8')).trim().length).toBeGreaterThan(0);
  });
});
