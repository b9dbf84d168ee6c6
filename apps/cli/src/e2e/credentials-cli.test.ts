// End-to-end: passwords and secrets the user hands the CLI stay out of what it prints and of
// the process list: store URLs in `conclave config`, the command line in `ps`, and the lines
// of a file given as a workflow spec that is not one.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from './run-cli.js';
import { sandboxFixture } from './sandbox-fixture.js';

beforeAll(() => assertBuilt());

const sandbox = sandboxFixture();

describe('conclave keeps passwords out of what it prints', () => {
  it.each([
    [
      'without a user name',
      'postgres://:PwNoUser123@db.internal/app',
      'PwNoUser123',
      'postgres://:***@db.internal/app',
    ],
    [
      'as a query parameter',
      'postgres://app@db.internal/app?password=PwQuery123&sslmode=require',
      'PwQuery123',
      'postgres://app@db.internal/app?password=***&sslmode=require',
    ],
    ['holding an @', 'postgres://app:Pw@At123@db.internal/app', 'Pw@At123', 'postgres://app:***@db.internal/app'],
  ])('conclave config masks a store URL password given %s', async (_case, url, password, masked) => {
    for (const json of [false, true]) {
      const result = await sandbox.run(['config', '--store', url, ...(json ? ['--json'] : [])]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout + result.stderr).not.toContain(password);
      expect(result.stdout).toContain(masked);
    }
  });

  it('the process list shows the command line with its passwords masked', async () => {
    // The shell step's parent is the conclave process: it reads what `ps` shows of it.
    await writeFile(
      path.join(sandbox.workspace, 'flow.yaml'),
      [
        'name: title',
        'variables: { target: "" }',
        'steps:',
        `  - shell: "tr '\\\\000' ' ' < /proc/$PPID/cmdline > cmdline.txt; ps -o args= -p $PPID > ps.txt"`,
        '',
      ].join('\n'),
    );
    const url = 'postgres://app:PwTitle1234@db.internal/app';
    const result = await sandbox.run(['run', 'flow.yaml', '--var', `target=${url}`]);
    expect(result.code, result.stderr).toBe(0);
    for (const file of ['cmdline.txt', 'ps.txt']) {
      const shown = await readFile(path.join(sandbox.workspace, file), 'utf8');
      expect(shown).toContain('run flow.yaml --var target=postgres://app:***@db.internal/app');
      expect(shown).not.toContain('PwTitle1234');
    }
  });

  it('a file that is not a workflow spec is named, not printed: its lines are cut short, few and redacted', async () => {
    const token = 'svc-quoted-service-token-0123456789';
    // The first three keys are quoted: a password hash, a known secret, a key with a long tail.
    const lines = [
      'root:$6$Kq9vN3xK$p2Lm7Wt4Rb9Yc6Hd1Jf5Gs0Qa2:19000:0:99999:7:::',
      `MY_SERVICE_TOKEN=${token}:`,
      `OPENAI_API_KEY=sk-proj-Zq8vN3xKp2Lm7Wt4Rb9Yc6Hd1Jf5Gs0Q ${'long line '.repeat(20)}:`,
      ...Array.from({ length: 20 }, (_, index) => `daemon${index}:*:19000:0:99999:7:::`),
    ];
    await writeFile(path.join(sandbox.workspace, 'shadow'), `${lines.join('\n')}\n`);
    const result = await sandbox.run(['run', 'shadow'], { env: { MY_SERVICE_TOKEN: token } });
    expect(result.code).toBe(64);
    expect(result.stderr).toContain('shadow');
    expect(result.stderr).toContain('[REDACTED]');
    expect(result.stderr).not.toContain('Kq9vN3xK$p2Lm7Wt4Rb9Yc6Hd1Jf5Gs0Qa2');
    expect(result.stderr).not.toContain('long line '.repeat(8));
    expect(result.stderr).not.toContain('sk-proj-Zq8vN3xKp2Lm7Wt4Rb9Yc6Hd1Jf5Gs0Q');
    expect(result.stderr).not.toContain(token);
    expect(result.stderr).not.toContain('daemon5');
    expect(result.stderr).toMatch(/and \d+ more/);
    for (const line of result.stderr.split('\n')) expect(line.length).toBeLessThanOrEqual(400);
  });
});
