// Durable timers from the command line: a workflow's `sleep:` step marks the session sleeping
// with its wake time (list, list --json, show); a run stopped during the sleep is listed as
// sleeping, and resuming it sleeps only until the recorded wake time, then goes on.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from './run-cli.js';
import { sandboxFixture } from './sandbox-fixture.js';

beforeAll(() => assertBuilt());

const sandbox = sandboxFixture();

const napFlow = [
  'name: nap',
  'steps:',
  '  - shell: "echo before >> log.txt"',
  '    id: before',
  '  - sleep: 4s',
  '  - shell: "echo after >> log.txt"',
  '    id: after',
  '',
].join('\n');

interface ListedJson {
  id: string;
  status: string;
  wakeAt: string | null;
  updatedAt: string;
}

describe('sleep steps in workflows', () => {
  it('a run stopped while it sleeps is listed as sleeping, and its resume wakes at the recorded time', async () => {
    await writeFile(path.join(sandbox.workspace, 'nap.yaml'), napFlow);
    const running = sandbox.start(['run', 'nap.yaml']);
    await running.waitFor(/sleeping for 4s/);
    const [sleeping] = await sandbox.json<ListedJson[]>(['sessions', 'list']);
    expect(sleeping?.status).toBe('sleeping');
    const wakeAt = sleeping?.wakeAt ?? '';
    expect(Date.parse(wakeAt)).toBeGreaterThan(Date.now());
    const listed = await sandbox.run(['sessions', 'list']);
    expect(listed.stdout).toMatch(/sleeping\s.*nap\s+wakes \d{4}-\d{2}-\d{2} \d{2}:\d{2}/);

    running.child.kill('SIGINT');
    const stopped = await running.done;
    expect(stopped.code).toBe(130);
    const [after] = await sandbox.json<ListedJson[]>(['sessions', 'list', '--status', 'sleeping']);
    expect(after).toMatchObject({ id: sleeping?.id, status: 'sleeping', wakeAt });
    const shown = await sandbox.run(['sessions', 'show', sleeping?.id ?? '']);
    expect(shown.stdout).toContain(`(${wakeAt})`);

    const resumed = await sandbox.run(['run', '--resume', '--yes']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const [done] = await sandbox.json<ListedJson[]>(['sessions', 'list']);
    expect(done).toMatchObject({ id: sleeping?.id, status: 'completed', wakeAt: null });
    // It slept until the time the first run recorded (the remainder: the library's tests pin that down).
    expect(Date.parse(done?.updatedAt ?? '')).toBeGreaterThanOrEqual(Date.parse(wakeAt));
    expect(await readFile(path.join(sandbox.workspace, 'log.txt'), 'utf8')).toBe('before\nafter\n');
  }, 60_000);

  it('refuses a sleep_until that is not a time with its zone, naming the step and the fix', async () => {
    await writeFile(
      path.join(sandbox.workspace, 'bad.yaml'),
      ['name: bad', 'steps:', '  - sleep_until: "tomorrow 9am"', ''].join('\n'),
    );
    const refused = await sandbox.run(['run', 'bad.yaml']);
    expect(refused.code).toBe(64);
    expect(refused.stderr).toContain('steps[0].sleep_until');
    expect(refused.stderr).toContain('ISO time with its zone');
    expect((await sandbox.json<ListedJson[]>(['sessions', 'list'])).length).toBe(0);
  });
});
