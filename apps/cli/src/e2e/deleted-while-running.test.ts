// End-to-end: a session's folder removed (`rm -rf`) while the built CLI runs it. The run says
// plainly that the session was deleted and what went with it, exits non-zero with a typed
// error, and never claims the session kept anything or prints a resume command.
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from './run-cli.js';
import { sandboxFixture } from './sandbox-fixture.js';

beforeAll(() => assertBuilt());

const sandbox = sandboxFixture();

describe('a session deleted while it runs', () => {
  it('says the folder was deleted and what was lost, exits 66, and offers no resume', async () => {
    const running = sandbox.start(['Plan the migration', '--max-rounds', '3'], {
      env: { CONCLAVE_SCRIPTED_LATENCY_MS: '300' },
    });
    await running.waitFor(/critic is speaking/);
    const listed = await sandbox.json<{ id: string }[]>(['sessions', 'list']);
    const sessionId = listed[0]?.id ?? '';
    const folder = path.join(sandbox.home, 'sessions', sessionId);
    await rm(folder, { recursive: true, force: true });
    const result = await running.done;
    expect(result.code, result.stderr).toBe(66);
    expect(result.stderr).toContain(`Session ${sessionId} was deleted (its folder ${folder} is gone) while it ran`);
    expect(result.stderr).toMatch(/its \d+ messages and \d+ steps? went with it/);
    expect(result.stderr).toContain('Nothing of this run was kept, and there is nothing to resume.');
    expect(result.stderr).toContain(`✗ Failed. Session ${sessionId} no longer exists; nothing of this run was kept.`);
    expect(result.stderr).not.toContain('keeps everything');
    expect(result.stderr).not.toContain('Resume with');
    expect(result.stderr).not.toContain('--resume');
    expect(result.stderr).not.toContain('lease could not be released');
  });

  it('--json reports the typed error and no resume command', async () => {
    const running = sandbox.start(['Plan the migration', '--max-rounds', '3', '--json'], {
      env: { CONCLAVE_SCRIPTED_LATENCY_MS: '300' },
    });
    await running.waitFor(/critic is speaking/);
    const listed = await sandbox.json<{ id: string }[]>(['sessions', 'list']);
    const sessionId = listed[0]?.id ?? '';
    await rm(path.join(sandbox.home, 'sessions', sessionId), { recursive: true, force: true });
    const result = await running.done;
    expect(result.code, result.stderr).toBe(66);
    const report = JSON.parse(result.stdout) as {
      status: string;
      resumeCommand: string | null;
      error: { code: string; message: string };
    };
    expect(report.status).toBe('failed');
    expect(report.resumeCommand).toBeNull();
    expect(report.error.code).toBe('session-deleted');
    expect(result.stderr).not.toContain('keeps everything');
  });
});
