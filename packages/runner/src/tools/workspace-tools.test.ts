import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { InterruptedError } from '@resume/core/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { WorkspaceAccessError } from '../files/workspace-access-error.js';
import { splitCommandLine } from './command-line.js';
import { WorkspaceToolError } from './workspace-tool-error.js';
import { createWorkspaceTools } from './workspace-tools.js';

const directories: string[] = [];
afterEach(async () => {
  await Promise.all(directories.splice(0).map((directory) => rm(directory, { recursive: true, force: true })));
});

async function testDirectory(files: Record<string, string> = {}): Promise<string> {
  const directory = await realpath(await mkdtemp(path.join(tmpdir(), 'conclave-tools-')));
  directories.push(directory);
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(directory, name)), { recursive: true });
    await writeFile(path.join(directory, name), content);
  }
  return directory;
}

// The test's own Node binary, allowed by its exact path, so no PATH lookup is involved.
const node = process.execPath;
const environment = { PATH: path.dirname(node) };

async function reason(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => 'no error',
    (error: unknown) => {
      if (WorkspaceAccessError.isInstance(error) || WorkspaceToolError.isInstance(error)) return error.reason;
      return String(error);
    },
  );
}

describe('workspace tools', () => {
  it('offers the four tools with JSON schemas and declares reads idempotent, writes and commands unsafe', async () => {
    const tools = createWorkspaceTools({ root: await testDirectory(), allowCommands: [node], env: environment });
    expect(tools.definitions.map((definition) => definition.name)).toEqual([
      'read_file',
      'write_file',
      'list_files',
      'run_command',
    ]);
    expect(tools.definitions[1]?.parameters).toMatchObject({ type: 'object', required: ['path', 'content'] });
    expect(['read_file', 'list_files', 'write_file', 'run_command', 'other'].map(tools.safetyOf)).toEqual([
      'idempotent',
      'idempotent',
      'unsafe',
      'unsafe',
      'unsafe',
    ]);
    const withoutCommands = createWorkspaceTools({ root: await testDirectory() });
    expect(withoutCommands.names).toEqual(['read_file', 'write_file', 'list_files']);
    expect(await reason(withoutCommands.execute('run_command', { command: 'ls' }))).toBe('unknown-tool');
  });

  it('reads, writes and lists files, reporting the files it touched', async () => {
    const root = await testDirectory({ 'src/a.ts': 'export const a = 1;\n', 'README.md': '# hi\n' });
    const tools = createWorkspaceTools({ root });

    const read = await tools.execute('read_file', { path: './src/a.ts' });
    expect(read).toEqual({
      result: { path: 'src/a.ts', size: 20, truncated: false, content: 'export const a = 1;\n' },
      files: [{ path: 'src/a.ts', access: 'read' }],
    });

    const written = await tools.execute('write_file', { path: 'out/report.md', content: 'done\n' });
    expect(written).toEqual({
      result: { path: 'out/report.md', bytes: 5, created: true },
      files: [{ path: 'out/report.md', access: 'write' }],
    });
    expect(await readFile(path.join(root, 'out/report.md'), 'utf8')).toBe('done\n');

    const listed = await tools.execute('list_files', { recursive: true });
    expect(listed.result).toEqual({
      path: '.',
      truncated: false,
      entries: [
        { path: 'README.md', type: 'file', size: 5 },
        { path: 'out', type: 'directory', size: null },
        { path: 'src', type: 'directory', size: null },
        { path: 'out/report.md', type: 'file', size: 5 },
        { path: 'src/a.ts', type: 'file', size: 20 },
      ],
    });
    expect(await reason(tools.execute('read_file', { path: 'missing.txt' }))).toBe('not-a-file');
    expect(await reason(tools.execute('write_file', { path: 'x.txt' }))).toBe('invalid-arguments');
  });

  it('refuses ../, absolute paths and symlinks that point out of the workspace', async () => {
    const root = await testDirectory({ 'inside.txt': 'ok' });
    const outside = await testDirectory({ 'secret.txt': 'secret', 'dir/other.txt': 'other' });
    await symlink(path.join(outside, 'secret.txt'), path.join(root, 'secret-link'));
    await symlink(path.join(outside, 'dir'), path.join(root, 'dir-link'));
    const tools = createWorkspaceTools({ root });

    expect(await reason(tools.execute('read_file', { path: '../secret.txt' }))).toBe('outside-workspace');
    expect(await reason(tools.execute('read_file', { path: path.join(outside, 'secret.txt') }))).toBe(
      'outside-workspace',
    );
    expect(await reason(tools.execute('read_file', { path: 'secret-link' }))).toBe('symlink-escape');
    expect(await reason(tools.execute('write_file', { path: 'secret-link', content: 'pwned' }))).toBe('symlink-escape');
    expect(await reason(tools.execute('write_file', { path: 'dir-link/new.txt', content: 'pwned' }))).toBe(
      'symlink-escape',
    );
    expect(await reason(tools.execute('list_files', { path: 'dir-link' }))).toBe('symlink-escape');
    expect(await reason(tools.execute('write_file', { path: '.git/config', content: '' }))).toBe('not-a-file');
    expect(await readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('secret');
    // Listed, never followed.
    const listed = await tools.execute('list_files', {});
    expect(listed.result).toMatchObject({
      entries: expect.arrayContaining([{ path: 'secret-link', type: 'symlink', size: null }]),
    });
  });

  it('runs allow-listed commands without a shell, with the given environment, and keeps output tails', async () => {
    const root = await testDirectory();
    const tools = createWorkspaceTools({ root, allowCommands: [node], env: environment, maxOutputBytes: 100 });

    const ran = await tools.execute('run_command', {
      command: `${node} -e "process.stdout.write('x'.repeat(5000) + 'END'); console.error(process.env.SECRET_TOKEN ?? 'no secret'); process.exit(3)"`,
    });
    expect(ran.result).toMatchObject({ exitCode: 3, timedOut: false, stdoutTruncated: true, stderr: 'no secret\n' });
    const stdout = (ran.result as { stdout: string }).stdout;
    expect(stdout).toHaveLength(100);
    expect(stdout.endsWith('END')).toBe(true);

    const cwd = await tools.execute('run_command', { command: `${node} -e "console.log(process.cwd())"` });
    expect((cwd.result as { stdout: string }).stdout.trim()).toBe(root);

    expect(await reason(tools.execute('run_command', { command: 'rm -rf /' }))).toBe('command-refused');
    expect(await reason(tools.execute('run_command', { command: `${node} -v; rm -rf /` }))).toBe('command-refused');
    expect(await reason(tools.execute('run_command', { command: `${node} -e "$(whoami)"` }))).toBe('command-refused');
  });

  it('stops a command at its timeout and on abort', async () => {
    const root = await testDirectory();
    const tools = createWorkspaceTools({ root, allowCommands: [node], env: environment, timeoutMs: 300 });
    const sleeper = { command: `${node} -e "setTimeout(() => {}, 60000)"` };

    const timedOut = await tools.execute('run_command', sleeper);
    expect(timedOut.result).toMatchObject({ timedOut: true, exitCode: null, signal: 'SIGTERM' });

    const patient = createWorkspaceTools({ root, allowCommands: [node], env: environment, timeoutMs: 60_000 });
    const controller = new AbortController();
    const running = patient.execute('run_command', sleeper, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(running).rejects.toSatisfy((error: unknown) => InterruptedError.isInstance(error));
  });
});

describe('splitCommandLine', () => {
  it('splits words, honours quotes and escapes, and refuses shell operators', () => {
    expect(splitCommandLine(`npm  run "test unit" 'a b' c\\ d`)).toEqual(['npm', 'run', 'test unit', 'a b', 'c d']);
    expect(splitCommandLine(`node -e "console.log(1)"`)).toEqual(['node', '-e', 'console.log(1)']);
    for (const line of ['a | b', 'a > f', 'a && b', 'a; b', 'echo $HOME', 'echo `id`', '"unclosed']) {
      expect(() => splitCommandLine(line)).toThrow(WorkspaceToolError);
    }
  });
});
