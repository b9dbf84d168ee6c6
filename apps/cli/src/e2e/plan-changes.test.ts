// End-to-end: the resume plan (`--dry-run`) names what the resume will then meet: a model the
// provider no longer offers, and settings the config now gives otherwise than the session
// recorded, each with the value the resume uses and how to get the other.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from './run-cli.js';
import { sandboxFixture } from './sandbox-fixture.js';

beforeAll(() => assertBuilt());

describe('conclave --resume --dry-run: what changed since the session stopped', () => {
  const sandbox = sandboxFixture('all');
  let id: string;
  beforeAll(async () => {
    const running = sandbox.start(['--model', 'gpt-4o', 'Plan the database migration'], {
      env: { CONCLAVE_SCRIPTED_LATENCY_MS: '150' },
    });
    await running.waitFor(/round 2 · architect is speaking/);
    running.child.kill('SIGINT');
    const interrupted = await running.done;
    id = /Resume with: conclave --resume ([0-9a-z]{22})/.exec(interrupted.stderr)?.[1] ?? '';
  });

  it('says a model is no longer offered, as the resume then does (69)', async () => {
    const env = { CONCLAVE_SCRIPTED_MODELS: 'gpt-4.1,claude-sonnet-4-5' };
    const plan = await sandbox.run(['--resume', id, '--dry-run'], { env });
    expect(plan.code).toBe(0);
    expect(plan.stdout).not.toContain('Changed since: nothing');
    expect(plan.stdout).toContain('gpt-4o');
    expect(plan.stdout).toMatch(/--models/);
    const resumed = await sandbox.run(['--resume', id, '--yes'], { env });
    expect(resumed.code).toBe(69);
  });

  it('lists every setting the config changed, the value the resume uses and how to use the other', async () => {
    await writeFile(
      path.join(sandbox.workspace, '.conclave.yaml'),
      [
        'agents:',
        '  - name: planner',
        '    system: You plan.',
        '  - name: reviewer',
        '    system: You review.',
        'judge:',
        '  system: You judge strictly.',
        'discussion:',
        '  maxRounds: 5',
        '',
      ].join('\n'),
    );
    const plan = await sandbox.run(['--resume', id, '--dry-run']);
    expect(plan.code, plan.stderr).toBe(0);
    const text = plan.stdout.replace(/\s+/g, ' ');
    expect(text).toContain('discussion.maxRounds is 5 in');
    expect(text).toContain('the resume uses 4 (add --max-rounds 5 to use 5)');
    expect(text).toContain(
      "(planner, reviewer) differ from the session's (architect, critic, pragmatist): the resume keeps the session's",
    );
    expect(text).toContain("the judge's prompt in");
    expect(text).toContain('a new session runs with the config\'s: conclave "Plan the database migration"');
    const json = await sandbox.json<{ changes: { settings: { setting: string }[] } }>(['--resume', id, '--dry-run']);
    expect(json.changes.settings.map((change) => change.setting)).toEqual([
      'discussion.maxRounds',
      'agents',
      'judge.system',
    ]);
    const chosen = await sandbox.run(['--resume', id, '--dry-run', '--max-rounds', '5']);
    expect(chosen.stdout).not.toContain('discussion.maxRounds is 5');
  });
});
