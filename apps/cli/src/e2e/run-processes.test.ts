// End-to-end: how `conclave run` treats the processes of a workflow's shell steps and the
// run's own output: a command the interrupted run left running, Ctrl+C, how many run at once
// (--max-parallel), a reader that leaves (`| head`).
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ExitCode } from '@resume/runner/exit-codes';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from './run-cli.js';
import { sandboxFixture } from './sandbox-fixture.js';

beforeAll(() => assertBuilt());

const sandbox = sandboxFixture();

/** Writes `<name>.yaml` into the workspace, one line per entry. */
async function writeSpec(name: string, lines: string[]): Promise<void> {
  await writeFile(path.join(sandbox.workspace, `${name}.yaml`), `${lines.join('\n')}\n`);
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitForFile(file: string): Promise<string> {
  for (;;) {
    const text = await readFile(file, 'utf8').catch(() => '');
    if (text.trim()) return text.trim();
    await pause(20);
  }
}

function procStat(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return '';
  }
}

/** Whether a process still runs (a zombie waiting to be reaped does not). */
const isRunning = (pid: number) => existsSync(`/proc/${pid}`) && !/\) [ZX] /.test(procStat(pid));

/**
 * Runs a one-step workflow (step id `long`) whose command writes its pid to started.txt, and
 * SIGKILLs `conclave` alone once it has: the command keeps running.
 */
async function orphanedRun(command: string): Promise<{ id: string; pid: number }> {
  await writeSpec('orphan', ['name: orphan', 'steps:', '  - id: long', `    shell: '${command}'`]);
  const running = sandbox.start(['run', 'orphan.yaml']);
  const pid = Number(await waitForFile(path.join(sandbox.workspace, 'started.txt')));
  running.child.kill('SIGKILL');
  await running.done;
  const [session] = await sandbox.json<Array<{ id: string }>>(['sessions', 'list']);
  return { id: session?.id ?? '', pid };
}

describe('a command the interrupted run left running', () => {
  it('is recorded with its start, listed by the plan, and waited for before the step is skipped', async () => {
    const { id, pid } = await orphanedRun(
      'echo $$ > started.txt; until test -f release; do sleep 0.05; done; echo done > finished.txt',
    );

    const journal = await readFile(path.join(sandbox.home, 'sessions', id, 'journal.jsonl'), 'utf8');
    const started = journal
      .split('\n')
      .filter(Boolean)
      .flatMap((line) => (JSON.parse(line) as { events: Array<Record<string, unknown>> }).events)
      .find((event) => event.type === 'step-started' && event.key === 'step[long]/shell');
    const stat = procStat(pid);
    expect(started?.process).toMatchObject({
      pid,
      processGroup: pid,
      startTime: stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19],
    });

    const plan = await sandbox.run(['run', '--resume', id, '--dry-run']);
    expect(plan.stdout).toContain(`its command is still running (pid ${pid}, for `);

    const resuming = sandbox.start(['run', '--resume', id, '--yes', '--on-uncertain', 'skip']);
    await resuming.waitFor('waiting for it to end');
    await writeFile(path.join(sandbox.workspace, 'release'), '');
    const resumed = await resuming.done;
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(
      `step long: its command from the interrupted run is still running (pid ${pid}, for `,
    );
    expect(resumed.stderr).toContain('step long: waiting for it to end before deciding what to do with the step.');
    expect(resumed.stderr).toContain('step long: its command ended after ');
    // It ran to its end: waited for, not stopped.
    expect(await readFile(path.join(sandbox.workspace, 'finished.txt'), 'utf8')).toBe('done\n');
  });

  it('is stopped first with --on-uncertain rerun, and the rerun records it', async () => {
    const { id, pid } = await orphanedRun('echo $$ >> started.txt; test -f again || sleep 30');
    await writeFile(path.join(sandbox.workspace, 'again'), '');
    const resumed = await sandbox.run(['run', '--resume', id, '--yes', '--on-uncertain', 'rerun']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('step long: stopped it (SIGTERM) before running the step again.');
    expect(isRunning(pid)).toBe(false);
    const journal = await readFile(path.join(sandbox.home, 'sessions', id, 'journal.jsonl'), 'utf8');
    expect(journal).toContain(`"stoppedProcess":{"pid":${pid},"processGroup":${pid}`);
  });
});

describe('Ctrl+C during a shell step', () => {
  it('stops its whole process group, a child that ignores SIGTERM included', async () => {
    await writeSpec('stubborn', [
      'name: stubborn',
      'steps:',
      `  - shell: '(trap "" TERM; exec sleep 30) & echo $! > child.pid; wait'`,
    ]);
    const running = sandbox.start(['run', 'stubborn.yaml']);
    const child = Number(await waitForFile(path.join(sandbox.workspace, 'child.pid')));
    running.child.kill('SIGINT');
    const result = await running.done;
    expect(result.code, result.stderr).toBe(130);
    expect(isRunning(child)).toBe(false);
  });
});

/** A command that fails when another one holds the workspace's `busy` directory at the same time. */
const alone = 'mkdir busy 2>/dev/null || { echo overlap >> overlaps.txt; exit 1; }; sleep 0.3; rmdir busy';

describe('conclave run --max-parallel', () => {
  it('runs every map and parallel group one at a time with --max-parallel 1, whatever the spec says', async () => {
    await writeSpec('crowded', [
      'name: crowded',
      'steps:',
      '  - id: each',
      '    map:',
      '      items: [a, b, c]',
      '      parallel: 3',
      '      do:',
      `        - shell: '${alone}'`,
      '  - id: group',
      '    parallel:',
      `      - { id: one, shell: '${alone}' }`,
      `      - { id: two, shell: '${alone}' }`,
    ]);
    const result = await sandbox.run(['run', 'crowded.yaml', '--max-parallel', '1']);
    expect(result.code, result.stderr).toBe(0);
    await expect(readFile(path.join(sandbox.workspace, 'overlaps.txt'), 'utf8')).rejects.toThrow();
  });

  it('stays within limits.maxParallel and says so', async () => {
    await writeFile(path.join(sandbox.workspace, '.conclave.yaml'), 'limits:\n  maxParallel: 1\n');
    await writeSpec('crowded', [
      'name: crowded',
      'steps:',
      '  - id: group',
      '    parallel:',
      `      - { id: one, shell: '${alone}' }`,
      `      - { id: two, shell: '${alone}' }`,
    ]);
    const result = await sandbox.run(['run', 'crowded.yaml', '--max-parallel', '4']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('--max-parallel 4 is above limits.maxParallel (1)');
    await expect(readFile(path.join(sandbox.workspace, 'overlaps.txt'), 'utf8')).rejects.toThrow();
  });

  it('refuses a value that is not a whole number of at least 1', async () => {
    await writeFile(path.join(sandbox.workspace, 'one.yaml'), "name: one\nsteps:\n  - shell: 'true'\n");
    const result = await sandbox.run(['run', 'one.yaml', '--max-parallel', '0']);
    expect(result.code).toBe(64);
    expect(result.stderr).toContain('--max-parallel must be at least 1');
  });
});

describe('conclave run when the reader of its output leaves', () => {
  it("goes on to the end with its output dropped, and exits with the run's outcome", async () => {
    await writeSpec('piped', [
      'name: piped',
      'steps:',
      "  - shell: 'sleep 0.3; echo one > one.txt'",
      "  - shell: 'sleep 0.3; echo two > two.txt'",
      "  - shell: 'sleep 0.3; echo three > three.txt'",
    ]);
    // `conclave run piped.yaml 2>&1 | head -2`: the reader takes the first lines and goes.
    const running = sandbox.start(['run', 'piped.yaml']);
    await running.waitFor('Started session');
    running.child.stdout?.destroy();
    running.child.stderr?.destroy();
    const result = await running.done;
    expect(result.code).toBe(0);
    expect(await readFile(path.join(sandbox.workspace, 'three.txt'), 'utf8')).toBe('three\n');
    const [session] = await sandbox.json<Array<{ status: string }>>(['sessions', 'list']);
    expect(session?.status).toBe('completed');
  });

  it('exits non-zero when the run it went on with fails', async () => {
    await writeSpec('piped', ['name: piped', 'steps:', "  - shell: 'sleep 0.3; exit 3'"]);
    const running = sandbox.start(['run', 'piped.yaml']);
    await running.waitFor('Started session');
    running.child.stdout?.destroy();
    running.child.stderr?.destroy();
    expect((await running.done).code).toBe(1);
  });
});

describe('a command whose output cannot be written', () => {
  /** Standard output to /dev/full: every write fails with ENOSPC. */
  const toFullDisk = async (args: string[]) => {
    const full = openSync('/dev/full', 'w');
    try {
      return await sandbox.run(args, { stdout: full });
    } finally {
      closeSync(full);
    }
  };
  const said =
    'conclave: could not write to standard output (ENOSPC: no space left on device, write). Free space on the disk it goes to, or send it elsewhere.\n';

  it.skipIf(!existsSync('/dev/full'))(
    'says so in one line and exits 74, from the quick answers and the full commands',
    async () => {
      for (const args of [['--version'], ['sessions', 'list', '--json', '--quiet'], ['--help']]) {
        const result = await toFullDisk(args);
        expect({ args, code: result.code, stderr: result.stderr }).toEqual({
          args,
          code: ExitCode.storeFull,
          stderr: said,
        });
      }
    },
  );

  it.skipIf(!existsSync('/dev/full'))(
    "lets a run go on to its end, says once that its output was lost, and exits with the run's outcome",
    async () => {
      await writeSpec('lost', [
        'name: lost',
        'steps:',
        "  - shell: 'echo one > one.txt'",
        "  - shell: 'echo two > two.txt'",
      ]);
      const result = await toFullDisk(['run', 'lost.yaml']);
      expect(result.code).toBe(0);
      expect(result.stderr.split(said).length - 1).toBe(1);
      expect(result.stderr).not.toMatch(/^\s+at /m);
      expect(await readFile(path.join(sandbox.workspace, 'two.txt'), 'utf8')).toBe('two\n');
      const [session] = await sandbox.json<Array<{ status: string }>>(['sessions', 'list']);
      expect(session?.status).toBe('completed');
    },
  );
});

describe('step timeouts', () => {
  it('fails a hung shell step after its timeout, stops its whole group, retries it, and says so in the journal', async () => {
    await writeSpec('hung', [
      'name: hung',
      'steps:',
      '  - id: hang',
      "    shell: 'echo $$ >> started.txt; test -f fixed || { sleep 60 & echo $! >> children.txt; wait; }'",
      '    timeout: 300ms',
      '    retry: { attempts: 2 }',
    ]);
    const result = await sandbox.run(['run', 'hung.yaml']);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain('timed out after 300ms');
    const children = (await readFile(path.join(sandbox.workspace, 'children.txt'), 'utf8')).split('\n').filter(Boolean);
    expect(children).toHaveLength(2);
    for (const child of children) expect(isRunning(Number(child))).toBe(false);
    const [session] = await sandbox.json<Array<{ id: string; status: string }>>(['sessions', 'list']);
    expect(session?.status).toBe('failed');
    const shown = await sandbox.run(['sessions', 'show', session?.id ?? '']);
    expect(shown.stdout).toContain('timed out after 300ms');

    // A resume gets a fresh set of attempts; the cause fixed, it passes.
    await writeFile(path.join(sandbox.workspace, 'fixed'), '');
    const resumed = await sandbox.run(['run', '--resume', session?.id ?? '', '--yes']);
    expect(resumed.code, resumed.stderr).toBe(0);
  });

  it('applies --step-timeout, then defaults.timeout, to steps without their own, parallel members and map items included', async () => {
    await writeSpec('slow', [
      'name: slow',
      'defaults: { timeout: 10m }',
      'steps:',
      '  - id: group',
      '    parallel:',
      "      - { id: quick, shell: 'true' }",
      "      - { id: slow, shell: 'sleep 30' }",
    ]);
    const result = await sandbox.run(['run', 'slow.yaml', '--step-timeout', '200ms']);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain('"slow" failed after its retries');
    expect(result.stderr).toContain('timed out after 200ms');

    await writeSpec('slow-items', [
      'name: slow-items',
      'defaults: { timeout: 200ms }',
      'steps:',
      '  - id: each',
      '    map:',
      '      items: [a, b]',
      `      do: [ { shell: 'test "$CONCLAVE_ITEM" = a || sleep 30' } ]`,
    ]);
    const items = await sandbox.run(['run', 'slow-items.yaml']);
    expect(items.code, items.stderr).toBe(1);
    expect(items.stderr).toContain('1 of 2 items of map step "each" failed after their retries (b)');
    const sessions = await sandbox.json<Array<{ id: string; title: string }>>(['sessions', 'list']);
    const letters = await sandbox.json<Array<{ error: string }>>([
      'run',
      'dlq',
      sessions.find((session) => session.title === 'slow-items')?.id ?? '',
    ]);
    expect(letters[0]?.error).toContain('timed out after 200ms');
  });

  it('fails an agent step whose model does not answer in time', async () => {
    await writeSpec('slow-model', [
      'name: slow-model',
      'agents:',
      '  writer: { prompt: "You write." }',
      'steps:',
      '  - agent: writer',
      '    input: hello',
      '    timeout: 200ms',
    ]);
    const result = await sandbox.run(['run', 'slow-model.yaml'], { env: { CONCLAVE_SCRIPTED_LATENCY_MS: '5000' } });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain('timed out after 200ms');
  });

  it('refuses a timeout that is not a duration, naming the step and the fix', async () => {
    await writeSpec('bad', ['name: bad', 'steps:', "  - shell: 'true'", '    timeout: soon']);
    const result = await sandbox.run(['run', 'bad.yaml']);
    expect(result.code).toBe(64);
    expect(result.stderr).toContain('bad.yaml at steps[0].timeout: "soon" is not a duration');
    const flag = await sandbox.run(['run', 'bad.yaml', '--step-timeout', 'soon']);
    expect(flag.code).toBe(64);
    expect(flag.stderr).toContain('--step-timeout takes a duration such as 30s or 5m');
  });
});
