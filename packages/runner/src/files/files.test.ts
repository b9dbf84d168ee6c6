import { chmod, mkdir, mkdtemp, readFile, realpath, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Session } from '@resume/core';
import { createEngine } from '@resume/core';
import { createMemoryStore, type MemoryStore } from '@resume/core/testing';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { diffFileChange, resolveFileConflicts, unifiedDiff } from './file-conflicts.js';
import { compareWorkspaceFiles, fileConflicts, hashContent, snapshotFile } from './file-snapshots.js';
import { compareGitState, compareWorkspaceDirectory, readGitState } from './git-state.js';
import { WorkspaceAccessError } from './workspace-access-error.js';
import { resolveWorkspacePath } from './workspace-path.js';

const directories: string[] = [];
afterEach(async () => {
  await Promise.all(directories.splice(0).map((directory) => rm(directory, { recursive: true, force: true })));
});

/** A temporary directory with the given files, removed after the test. */
async function testDirectory(files: Record<string, string> = {}): Promise<string> {
  const directory = await realpath(await mkdtemp(path.join(tmpdir(), 'conclave-files-')));
  directories.push(directory);
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(directory, name)), { recursive: true });
    await writeFile(path.join(directory, name), content);
  }
  return directory;
}

async function sessionWithSnapshots(
  workspace: string,
  paths: Array<[string, 'read' | 'write']>,
): Promise<{ session: Session; store: MemoryStore }> {
  const store = createMemoryStore();
  const engine = createEngine({ store, holder: { pid: 1, host: 'test' } });
  const session = await engine.createSession({ title: 'refactor', mode: 'orchestrated', workspaceDir: workspace });
  for (const [filePath, access] of paths) {
    await snapshotFile({ session, store, workspaceDir: workspace, path: filePath, access });
  }
  await session.checkpoint('tools done');
  return { session, store };
}

describe('file snapshots and conflicts', () => {
  it('classifies unchanged, modified, deleted and created-since files by content hash', async () => {
    const workspace = await testDirectory({ 'same.txt': 'same\n', 'edited.txt': 'v1\n', 'gone.txt': 'bye\n' });
    const { session, store } = await sessionWithSnapshots(workspace, [
      ['same.txt', 'read'],
      ['edited.txt', 'write'],
      ['gone.txt', 'read'],
      ['new.txt', 'read'],
    ]);
    expect(session.state.files['edited.txt']).toMatchObject({ hash: hashContent('v1\n'), size: 3, access: 'write' });
    expect(session.state.files['new.txt']).toMatchObject({ hash: null, blob: null });
    expect(
      new TextDecoder().decode((await store.getBlob(session.state.files['gone.txt']?.blob as string)) as Uint8Array),
    ).toBe('bye\n');

    // Rewriting identical content is not a change (mtime is never looked at).
    await writeFile(path.join(workspace, 'same.txt'), 'same\n');
    await writeFile(path.join(workspace, 'edited.txt'), 'v2\n');
    await rm(path.join(workspace, 'gone.txt'));
    await writeFile(path.join(workspace, 'new.txt'), 'hello\n');

    const changes = await compareWorkspaceFiles({ state: session.state, workspaceDir: workspace });
    expect(changes.map((change) => [change.path, change.status])).toEqual([
      ['edited.txt', 'modified'],
      ['gone.txt', 'deleted'],
      ['new.txt', 'created-since'],
      ['same.txt', 'unchanged'],
    ]);
    expect(fileConflicts(changes).map((change) => change.path)).toEqual(['edited.txt', 'gone.txt', 'new.txt']);
    await session.close();
  });

  it('keeps files by default and restores the snapshots chosen, keeping what it replaced', async () => {
    const workspace = await testDirectory({ 'a.txt': 'original a\n', 'b.txt': 'original b\n', 'dir/c.txt': 'c\n' });
    const { session, store } = await sessionWithSnapshots(workspace, [
      ['a.txt', 'write'],
      ['b.txt', 'write'],
      ['dir/c.txt', 'read'],
      ['later.txt', 'read'],
    ]);
    await writeFile(path.join(workspace, 'a.txt'), 'user edit a\n');
    await chmod(path.join(workspace, 'a.txt'), 0o754);
    await writeFile(path.join(workspace, 'b.txt'), 'user edit b\n');
    await rm(path.join(workspace, 'dir'), { recursive: true });
    await writeFile(path.join(workspace, 'later.txt'), 'created later\n');
    const changes = await compareWorkspaceFiles({ state: session.state, workspaceDir: workspace });

    const resolutions = await resolveFileConflicts({
      changes,
      choices: { 'a.txt': 'restore', 'dir/c.txt': 'restore', 'later.txt': 'restore' },
      store,
      workspaceDir: workspace,
    });
    expect(resolutions.map((resolution) => [resolution.path, resolution.action])).toEqual([
      ['a.txt', 'restored'],
      ['b.txt', 'kept'],
      ['dir/c.txt', 'restored'],
      ['later.txt', 'removed'],
    ]);
    expect(await readFile(path.join(workspace, 'a.txt'), 'utf8')).toBe('original a\n');
    expect((await stat(path.join(workspace, 'a.txt'))).mode & 0o777).toBe(0o754);
    expect(await readFile(path.join(workspace, 'b.txt'), 'utf8')).toBe('user edit b\n');
    expect(await readFile(path.join(workspace, 'dir/c.txt'), 'utf8')).toBe('c\n');
    await expect(stat(path.join(workspace, 'later.txt'))).rejects.toThrow();
    // The user's edit that a restore replaced is still in the blob store.
    const replaced = resolutions[0]?.replacedBlob as string;
    expect(new TextDecoder().decode((await store.getBlob(replaced)) as Uint8Array)).toBe('user edit a\n');
    await session.close();
  });

  it('restores nothing when a file changed again after the comparison', async () => {
    const workspace = await testDirectory({ 'a.txt': 'one\n', 'b.txt': 'two\n' });
    const { session, store } = await sessionWithSnapshots(workspace, [
      ['a.txt', 'write'],
      ['b.txt', 'write'],
    ]);
    await writeFile(path.join(workspace, 'a.txt'), 'edited\n');
    await writeFile(path.join(workspace, 'b.txt'), 'edited\n');
    const changes = await compareWorkspaceFiles({ state: session.state, workspaceDir: workspace });
    await writeFile(path.join(workspace, 'b.txt'), 'edited twice\n');

    const attempt = resolveFileConflicts({
      changes,
      choices: { 'a.txt': 'restore', 'b.txt': 'restore' },
      store,
      workspaceDir: workspace,
    });
    await expect(attempt).rejects.toMatchObject({ code: 'workspace-access', reason: 'file-changed', path: 'b.txt' });
    expect(await readFile(path.join(workspace, 'a.txt'), 'utf8')).toBe('edited\n');
    await session.close();
  });

  it('shows a unified diff between the snapshot and the current file', async () => {
    const workspace = await testDirectory({ 'notes.md': 'line 1\nline 2\n' });
    const { session, store } = await sessionWithSnapshots(workspace, [['notes.md', 'read']]);
    await writeFile(path.join(workspace, 'notes.md'), 'line 1\nline two\n');
    const [change] = await compareWorkspaceFiles({ state: session.state, workspaceDir: workspace });
    const diff = await diffFileChange({ change: change as never, store, workspaceDir: workspace });
    expect(diff).toContain('--- a/notes.md');
    expect(diff).toContain('+++ b/notes.md');
    expect(diff).toContain('-line 2');
    expect(diff).toContain('+line two');
    expect(unifiedDiff('x', 'same\n', 'same\n')).not.toContain('@@');
    await session.close();
  });

  it('refuses snapshots of paths outside the workspace', async () => {
    const workspace = await testDirectory({ 'a.txt': 'a' });
    const outside = await testDirectory({ 'secret.txt': 'secret' });
    await symlink(path.join(outside, 'secret.txt'), path.join(workspace, 'link.txt'));
    const { session, store } = await sessionWithSnapshots(workspace, []);
    for (const requested of ['../secret.txt', path.join(outside, 'secret.txt'), 'link.txt']) {
      await expect(
        snapshotFile({ session, store, workspaceDir: workspace, path: requested, access: 'read' }),
      ).rejects.toSatisfy((error: unknown) => WorkspaceAccessError.isInstance(error));
    }
    await session.close();
  });
});

describe('workspace paths', () => {
  it('resolves inside paths and refuses .., absolute paths and symlinks that lead out', async () => {
    const workspace = await testDirectory({ 'src/index.ts': 'x' });
    const outside = await testDirectory({ 'etc/passwd': 'root' });
    await symlink(path.join(outside, 'etc'), path.join(workspace, 'escape'));
    await symlink(path.join(workspace, 'src'), path.join(workspace, 'alias'));
    await symlink(path.join(outside, 'missing'), path.join(workspace, 'dangling'));

    expect(await resolveWorkspacePath(workspace, 'src/../src/index.ts')).toMatchObject({
      relative: 'src/index.ts',
      exists: true,
    });
    expect(await resolveWorkspacePath(workspace, 'alias/index.ts')).toMatchObject({
      absolute: path.join(workspace, 'src/index.ts'),
      exists: true,
    });
    expect(await resolveWorkspacePath(workspace, 'new/dir/file.txt')).toMatchObject({ exists: false });
    const refused = async (requested: string) =>
      resolveWorkspacePath(workspace, requested).then(
        () => null,
        (error: unknown) => (WorkspaceAccessError.isInstance(error) ? error.reason : String(error)),
      );
    expect(await refused('../outside.txt')).toBe('outside-workspace');
    expect(await refused('src/../../x')).toBe('outside-workspace');
    expect(await refused('/etc/passwd')).toBe('outside-workspace');
    expect(await refused('escape/passwd')).toBe('symlink-escape');
    expect(await refused('escape/new-file.txt')).toBe('symlink-escape');
    expect(await refused('dangling')).toBe('symlink-escape');
  });
});

describe('workspace path confinement (property)', () => {
  it('either refuses a path or resolves it inside the workspace, whatever the segments', async () => {
    const workspace = await testDirectory({ 'a/b/file.txt': 'x' });
    const outside = await testDirectory({ 'target.txt': 'y' });
    await symlink(outside, path.join(workspace, 'a', 'out'));
    await symlink(path.join(workspace, 'a', 'b'), path.join(workspace, 'in'));
    const segment = fc.constantFrom('..', '.', 'a', 'b', 'out', 'in', 'file.txt', 'new', '');
    await fc.assert(
      fc.asyncProperty(fc.array(segment, { minLength: 1, maxLength: 6 }), fc.boolean(), async (segments, absolute) => {
        const requested = (absolute ? '/' : '') + segments.join('/');
        const outcome = await resolveWorkspacePath(workspace, requested).then(
          (resolved) => resolved,
          (error: unknown) => {
            if (!WorkspaceAccessError.isInstance(error)) throw error;
            return null;
          },
        );
        if (outcome === null) return;
        const relative = path.relative(workspace, outcome.absolute);
        expect(relative.startsWith('..') || path.isAbsolute(relative)).toBe(false);
      }),
      { numRuns: 200 },
    );
  });
});

describe('git and workspace state', () => {
  it('reads branch and HEAD from .git and reports a change', async () => {
    const head1 = 'a'.repeat(40);
    const head2 = 'b'.repeat(40);
    const workspace = await testDirectory({
      '.git/HEAD': 'ref: refs/heads/main\n',
      '.git/refs/heads/main': `${head1}\n`,
      'src/app.ts': '',
    });
    const recorded = await readGitState(path.join(workspace, 'src'));
    expect(recorded).toEqual({ branch: 'main', head: head1 });

    await writeFile(path.join(workspace, '.git/HEAD'), 'ref: refs/heads/feature\n');
    await rm(path.join(workspace, '.git/refs/heads/main'));
    await writeFile(path.join(workspace, '.git/packed-refs'), `# pack-refs\n${head2} refs/heads/feature\n`);
    const current = await readGitState(workspace);
    expect(current).toEqual({ branch: 'feature', head: head2 });

    const comparison = compareGitState(recorded, current);
    expect(comparison).toMatchObject({ changed: true, branchChanged: true, headChanged: true });
    expect(comparison.message).toBe(
      'git changed since the session started: branch main → feature, HEAD aaaaaaa → bbbbbbb',
    );
    expect(compareGitState(current, current).changed).toBe(false);

    await writeFile(path.join(workspace, '.git/HEAD'), `${head1}\n`);
    expect(await readGitState(workspace)).toEqual({ branch: null, head: head1 });
  });

  it('returns null outside a repository and says when the workspace moved', async () => {
    const workspace = await testDirectory({ 'a.txt': '' });
    // tmpdir is not inside a repository on any machine this runs on; guard anyway.
    const state = await readGitState(workspace);
    if (state === null) expect(compareGitState(null, null).changed).toBe(false);
    expect(compareGitState({ branch: 'main', head: null }, null).changed).toBe(true);

    // A resume runs in the recorded workspace wherever it is started from, unless --workspace moves it.
    const elsewhere = compareWorkspaceDirectory(workspace, '/home/ana', { exists: () => true });
    expect(elsewhere).toMatchObject({ same: true, runsIn: workspace, missing: false });
    expect(elsewhere.message).toBe(`the session runs in its workspace ${workspace} (you are in /home/ana)`);
    const gone = compareWorkspaceDirectory('/home/ana/project', workspace, { exists: () => false });
    expect(gone).toMatchObject({ missing: true, runsIn: '/home/ana/project' });
    const moved = compareWorkspaceDirectory('/home/ana/project', '/home/ana', { chosen: workspace });
    expect(moved).toMatchObject({ same: false, runsIn: workspace });
    expect(moved.message).toBe(`the session ran in /home/ana/project; resuming in ${workspace} (--workspace)`);
    expect(compareWorkspaceDirectory(workspace, workspace).same).toBe(true);
  });
});
