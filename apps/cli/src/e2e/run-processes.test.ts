// End-to-end: how `conclave run` treats the processes of a workflow's shell steps and the
// run's own output: how many run at once (--max-parallel), a reader that leaves (`| head`).
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assertBuilt, createSandbox, type Sandbox } from './run-cli.js';

beforeAll(() => assertBuilt());

let sandbox: Sandbox;
beforeEach(async () => {
  sandbox = await createSandbox();
});
afterEach(() => sandbox.remove());

/** A command that fails when another one holds the workspace's `busy` directory at the same time. */
const alone = 'mkdir busy 2>/dev/null || { echo overlap >> overlaps.txt; exit 1; }; sleep 0.3; rmdir busy';

describe('conclave run --max-parallel', () => {
  it('runs every map and parallel group one at a time with --max-parallel 1, whatever the spec says', async () => {
    const spec = [
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
      '',
    ].join('\n');
    await writeFile(path.join(sandbox.workspace, 'crowded.yaml'), spec);
    const result = await sandbox.run(['run', 'crowded.yaml', '--max-parallel', '1']);
    expect(result.code, result.stderr).toBe(0);
    await expect(readFile(path.join(sandbox.workspace, 'overlaps.txt'), 'utf8')).rejects.toThrow();
  });

  it('stays within limits.maxParallel and says so', async () => {
    await writeFile(path.join(sandbox.workspace, '.conclave.yaml'), 'limits:\n  maxParallel: 1\n');
    const spec = [
      'name: crowded',
      'steps:',
      '  - id: group',
      '    parallel:',
      `      - { id: one, shell: '${alone}' }`,
      `      - { id: two, shell: '${alone}' }`,
      '',
    ].join('\n');
    await writeFile(path.join(sandbox.workspace, 'crowded.yaml'), spec);
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
    const spec = [
      'name: piped',
      'steps:',
      "  - shell: 'sleep 0.3; echo one > one.txt'",
      "  - shell: 'sleep 0.3; echo two > two.txt'",
      "  - shell: 'sleep 0.3; echo three > three.txt'",
      '',
    ].join('\n');
    await writeFile(path.join(sandbox.workspace, 'piped.yaml'), spec);
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
    const spec = ['name: piped', 'steps:', "  - shell: 'sleep 0.3; exit 3'", ''].join('\n');
    await writeFile(path.join(sandbox.workspace, 'piped.yaml'), spec);
    const running = sandbox.start(['run', 'piped.yaml']);
    await running.waitFor('Started session');
    running.child.stdout?.destroy();
    running.child.stderr?.destroy();
    expect((await running.done).code).toBe(1);
  });
});
