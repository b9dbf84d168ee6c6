// End-to-end: `sessions repair` on a journal damaged in the middle of a workflow run. The
// shell step whose run was in the removed part runs again on resume: the repair and the
// resume plan say so before it happens.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from './run-cli.js';
import { sandboxFixture } from './sandbox-fixture.js';

beforeAll(() => assertBuilt());

const sandbox = sandboxFixture();

const flow = [
  'name: repairable',
  'agents:',
  '  writer: { prompt: "You write." }',
  'steps:',
  '  - agent: writer',
  '    input: "Plan"',
  '  - shell: "echo deployed >> deploys.log"',
  '  - agent: writer',
  '    input: "Report"',
  '',
].join('\n');

async function findJournal(directory: string, id: string): Promise<string | null> {
  for (const entry of await readdir(directory, { withFileTypes: true })) {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) {
      const found = await findJournal(full, id);
      if (found) return found;
    } else if (entry.name === 'journal.jsonl' && full.includes(id)) return full;
  }
  return null;
}

describe('conclave sessions repair', () => {
  it('lists the side-effecting steps whose run was lost, and the resume plan says they run again', async () => {
    await writeFile(path.join(sandbox.workspace, 'flow.yaml'), flow);
    const run = await sandbox.run(['run', 'flow.yaml', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const { sessionId } = JSON.parse(run.stdout) as { sessionId: string };
    const journal = await findJournal(sandbox.home, sessionId);
    expect(journal).not.toBeNull();
    // Damage the record that starts the shell step: it and everything after it are cut.
    const bytes = await readFile(journal ?? '');
    const lines = bytes.toString('utf8').split('\n');
    const index = lines.findIndex((line) => line.includes('"step-started"') && line.includes('/shell"'));
    expect(index).toBeGreaterThan(0);
    const offset = Buffer.byteLength(lines.slice(0, index).join('\n')) + 1 + 40;
    const damaged = Buffer.from(bytes);
    damaged[offset] = (damaged[offset] ?? 0) ^ 0x08;
    await writeFile(journal ?? '', damaged);

    const repaired = await sandbox.run(['sessions', 'repair', sessionId]);
    expect(repaired.code, repaired.stderr).toBe(0);
    expect(repaired.stdout).toContain(
      'Will run again when resumed (their earlier run was lost with the damaged part): 1 side-effecting step',
    );
    expect(repaired.stdout).toMatch(/- step\[shell-[0-9a-f]{8}\]\/shell/);

    const plan = await sandbox.run(['run', '--resume', sessionId, '--dry-run']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('Will run again (their earlier run was lost with the damaged part): 1');
    // Without a terminal nothing runs unless accepted; the question names the step running again.
    const unasked = await sandbox.run(['run', '--resume', sessionId]);
    expect(unasked.code).toBe(64);
    expect(unasked.stderr).toContain('1 side-effecting step runs again');
    expect((await readFile(path.join(sandbox.workspace, 'deploys.log'), 'utf8')).trim().split('\n')).toHaveLength(1);

    const resumed = await sandbox.run(['run', '--resume', sessionId, '--yes']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect((await readFile(path.join(sandbox.workspace, 'deploys.log'), 'utf8')).trim().split('\n')).toHaveLength(2);
  });
});

describe('conclave sessions repair by list index', () => {
  it('takes the number `sessions list` shows, as every other session command does', async () => {
    const older = await sandbox.run(['Evaluate the first idea']);
    expect(older.code, older.stderr).toBe(0);
    const newer = await sandbox.run(['Evaluate the second idea']);
    expect(newer.code, newer.stderr).toBe(0);
    const listed = await sandbox.json<{ id: string }[]>(['sessions', 'list']);
    const report = await sandbox.json<{ sessionId: string }>(['sessions', 'repair', '2', '--dry-run']);
    expect(report.sessionId).toBe(listed[1]?.id);
  });
});
