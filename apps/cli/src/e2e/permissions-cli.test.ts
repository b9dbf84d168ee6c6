// End-to-end: a store whose files the user may not read or write (another owner, a chmod).
// Root is not stopped by file modes, so when the tests run as root (as CI does) the CLI runs
// as `nobody` over a sandbox it owns; as any other user it runs as that user.
import { execFileSync } from 'node:child_process';
import { chmod, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, type RunOptions } from './run-cli.js';
import { sandboxFixture } from './sandbox-fixture.js';

const sessionIdFrom = (text: string) => /Session saved: ([0-9a-z]{22})/.exec(text)?.[1] ?? '';

/** Who the CLI runs as: `nobody` when the tests run as root, else the user running them. */
function unprivileged(): RunOptions {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(execFileSync('id', [flag, 'nobody'], { encoding: 'utf8' }).trim());
  return { user: { uid: id('-u'), gid: id('-g') } };
}

beforeAll(() => assertBuilt());

describe('a store the user may not read or write', () => {
  const sandbox = sandboxFixture('all');
  let readable: string;
  let refused: string;
  let folder: string;
  const as = unprivileged();
  beforeAll(async () => {
    readable = sessionIdFrom((await sandbox.run(['Evaluate my idea: durable agent sessions'])).stdout);
    refused = sessionIdFrom((await sandbox.run(['Evaluate my idea: a shared journal'])).stdout);
    folder = path.join(sandbox.home, 'sessions', refused);
    if (as.user) {
      await chmod(sandbox.root, 0o755);
      execFileSync('chown', ['-R', `${as.user.uid}:${as.user.gid}`, sandbox.root]);
    }
    await chmod(folder, 0o000);
  });
  afterAll(async () => {
    await chmod(folder, 0o700).catch(() => {});
  });

  it('lists the other sessions and shows the unreadable one as unreadable, with its path', async () => {
    // Without its index the listing looks at every session (as it does once the sessions changed).
    await rm(path.join(sandbox.home, 'index', 'summaries.json'), { force: true });
    const listed = await sandbox.run(['sessions', 'list'], as);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/completed .*Evaluate my idea: durable agent sessions/);
    expect(listed.stdout).toMatch(/unreadable .*\(unreadable session\)/);
    expect(listed.stderr).toContain(`unreadable: ${refused.slice(0, 10)}`);
    expect(listed.stderr).toContain(`Permission denied: cannot read ${folder}`);
    const json = await sandbox.json<{ id: string; status: string; unreadable: { path: string } | null }[]>(
      ['sessions', 'list'],
      as,
    );
    expect(json.map((item) => [item.id, item.status, item.unreadable?.path ?? null])).toEqual(
      expect.arrayContaining([
        [readable, 'completed', null],
        [refused, 'unreadable', folder],
      ]),
    );
  });

  it('lists a session whose journal may not be read as unreadable, naming the journal', async () => {
    const journal = path.join(sandbox.home, 'sessions', readable, 'journal.jsonl');
    await chmod(journal, 0o000);
    try {
      const json = await sandbox.json<{ id: string; status: string; unreadable: { path: string } | null }[]>(
        ['sessions', 'list'],
        as,
      );
      expect(json.find((item) => item.id === readable)).toMatchObject({
        status: 'unreadable',
        unreadable: { path: journal },
      });
      const shown = await sandbox.run(['sessions', 'show', readable], as);
      expect(shown.code, shown.stderr).toBe(77);
      expect(shown.stderr).toContain(`Permission denied: cannot read ${journal}`);
    } finally {
      await chmod(journal, 0o600);
    }
  });

  it('names the refused folder and exits 77 for every command on the session', async () => {
    for (const command of [
      ['sessions', 'show', refused],
      ['sessions', 'export', refused],
      ['sessions', 'verify', refused],
      ['sessions', 'repair', refused],
      ['sessions', 'delete', refused, '--force'],
      ['--resume', refused, 'a follow-up'],
    ]) {
      const result = await sandbox.run(command, as);
      expect(result.code, `${command.join(' ')}: ${result.stderr}`).toBe(77);
      expect(result.stderr).toContain(`Permission denied: cannot read ${folder}`);
      expect(result.stderr).toContain(`Check the owner and mode of ${folder}`);
      expect(result.stderr).not.toContain('unexpected failure');
    }
  });

  it('says the sessions folder cannot be written when a new run cannot create its session, and keeps the others', async () => {
    const sessions = path.join(sandbox.home, 'sessions');
    const journal = path.join(sandbox.home, 'sessions', readable, 'journal.jsonl');
    const before = await readFile(journal);
    await chmod(sessions, 0o500);
    try {
      const started = await sandbox.run(['Evaluate my idea: one more'], as);
      expect(started.code, started.stderr).toBe(77);
      expect(started.stderr).toContain(`Permission denied: cannot write ${sessions}`);
      const deleted = await sandbox.run(['sessions', 'delete', readable, '--force', '--now'], as);
      expect(deleted.code, deleted.stderr).toBe(77);
      expect(deleted.stderr).toContain(`Permission denied: cannot write ${sessions}`);
    } finally {
      await chmod(sessions, 0o700);
    }
    expect(await readFile(journal)).toEqual(before);
  });
});
