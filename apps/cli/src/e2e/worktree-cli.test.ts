// End-to-end: workflow runs in a git worktree of their own (`worktree: true`, `--worktree`)
// through the built `conclave`: the repository's files are left alone, a resume goes on in the
// same worktree and refuses (65) when it is gone or moved to a commit the run did not make, and
// `conclave run merge` merges the branch back or refuses on conflicts, naming the files.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assertBuilt, createSandbox, type Sandbox } from './run-cli.js';

beforeAll(() => assertBuilt());

const identity = {
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.com',
};

let sandbox: Sandbox;
beforeEach(async () => {
  sandbox = await createSandbox();
});
afterEach(() => sandbox.remove());

function git(args: string[], cwd = sandbox.workspace): string {
  return execFileSync('git', args, { cwd, env: { ...sandbox.env, ...identity }, encoding: 'utf8' }).trim();
}

async function initRepository(): Promise<void> {
  git(['init', '-q', '-b', 'main']);
  await writeFile(path.join(sandbox.workspace, 'README.md'), '# project\n');
  git(['add', '-A']);
  git(['commit', '-qm', 'Start']);
}

const notesFlow = [
  'name: notes',
  'worktree: true',
  'agents:',
  '  writer: { prompt: "You write notes." }',
  'steps:',
  '  - id: first',
  '    shell: \'pwd >> where.txt && echo first > notes.txt && git add notes.txt && git commit -qm "Add notes"\'',
  '  - agent: writer',
  '    input: "Write a note"',
  '  - id: second',
  '    shell: \'pwd >> where.txt && echo second >> notes.txt && git commit -qam "More notes"\'',
  '',
].join('\n');

const worktreeOf = (stderr: string) => /Running in a new git worktree (\S+) on branch/.exec(stderr)?.[1] ?? '';
const sessionOf = (stderr: string) => /conclave\/([0-9a-z]{22})/.exec(stderr)?.[1] ?? '';

async function killedAtTheAgent(): Promise<{ worktree: string; id: string }> {
  await writeFile(path.join(sandbox.workspace, 'notes.yaml'), notesFlow);
  git(['add', 'notes.yaml']);
  git(['commit', '-qm', 'Add the workflow']);
  const running = sandbox.start(['run', 'notes.yaml'], { env: { ...identity, CONCLAVE_SCRIPTED_LATENCY_MS: '5000' } });
  await running.waitFor(/is speaking/);
  // The first step's completion is durable with the agent step's start: let that append land.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  running.child.kill('SIGKILL');
  const killed = await running.done;
  return { worktree: worktreeOf(killed.stderr), id: sessionOf(killed.stderr) };
}

describe('conclave run: workflows in a git worktree', () => {
  it('runs in a new worktree on conclave/<session>, says how to merge, and run merge brings it back', async () => {
    await initRepository();
    await writeFile(path.join(sandbox.workspace, 'notes.yaml'), notesFlow);
    git(['add', 'notes.yaml']);
    git(['commit', '-qm', 'Add the workflow']);
    const result = await sandbox.run(['run', 'notes.yaml'], { env: identity });
    expect(result.code, result.stderr).toBe(0);
    const worktree = worktreeOf(result.stderr);
    const id = sessionOf(result.stderr);
    expect(worktree).not.toBe('');
    expect(result.stderr).toContain(`on branch conclave/${id}`);
    expect(result.stderr).toContain(`Merge it into the repository with: conclave run merge ${id}`);
    // The repository's own files are untouched; the worktree has the work.
    expect(existsSync(path.join(sandbox.workspace, 'notes.txt'))).toBe(false);
    expect(await readFile(path.join(worktree, 'notes.txt'), 'utf8')).toBe('first\nsecond\n');
    expect((await readFile(path.join(worktree, 'where.txt'), 'utf8')).trim().split('\n')).toEqual([worktree, worktree]);
    const shown = await sandbox.run(['sessions', 'show', id]);
    expect(shown.stdout).toContain(`workspace:   ${worktree}`);

    const merged = await sandbox.run(['run', 'merge', id], { env: identity });
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stdout).toContain('Committed the 1 file the run left uncommitted');
    expect(merged.stdout).toContain(`Fast-forwarded main to conclave/${id}`);
    expect(merged.stdout).toContain(`Removed its worktree and the branch conclave/${id}`);
    expect(await readFile(path.join(sandbox.workspace, 'notes.txt'), 'utf8')).toBe('first\nsecond\n');
    expect(existsSync(worktree)).toBe(false);
    expect(git(['branch', '--list', 'conclave/*'])).toBe('');
    expect(git(['status', '--porcelain'])).toBe('');
  });

  it('a resume goes on in the same worktree, and refuses (65) when its HEAD moved to a commit the run did not make', async () => {
    await initRepository();
    const { worktree, id } = await killedAtTheAgent();
    expect(await readFile(path.join(worktree, 'notes.txt'), 'utf8')).toBe('first\n');
    // A commit made by hand after the run stopped.
    await new Promise((resolve) => setTimeout(resolve, 2100));
    await writeFile(path.join(worktree, 'other.txt'), 'by hand\n');
    git(['add', 'other.txt'], worktree);
    git(['commit', '-qm', 'By hand'], worktree);

    const refused = await sandbox.run(['run', '--resume', id, '--yes'], { env: identity });
    expect(refused.code, refused.stderr).toBe(65);
    expect(refused.stderr).toContain('1 commit this session did not make');
    expect(refused.stderr).toContain('By hand');
    expect(refused.stderr).toContain(`git -C ${worktree} reset --hard`);

    git(['reset', '-q', '--hard', 'HEAD~1'], worktree);
    const resumed = await sandbox.run(['run', '--resume', id, '--yes'], { env: identity });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await readFile(path.join(worktree, 'notes.txt'), 'utf8')).toBe('first\nsecond\n');
    // The first step ran once, the second in the same worktree.
    expect((await readFile(path.join(worktree, 'where.txt'), 'utf8')).trim().split('\n')).toEqual([worktree, worktree]);
    expect(resumed.stderr).toContain(`conclave run merge ${id}`);
  }, 60_000);

  it('a resume whose worktree is gone is refused (65) with the commands that bring it back', async () => {
    await initRepository();
    const { worktree, id } = await killedAtTheAgent();
    git(['worktree', 'remove', '--force', worktree]);
    const refused = await sandbox.run(['run', '--resume', id, '--yes'], { env: identity });
    expect(refused.code, refused.stderr).toBe(65);
    expect(refused.stderr).toContain(
      `runs in the git worktree ${worktree} (branch conclave/${id}), which no longer exists`,
    );
    const fix = `git -C ${sandbox.workspace} worktree prune && git -C ${sandbox.workspace} worktree add ${worktree} conclave/${id}`;
    expect(refused.stderr).toContain(fix);
    git(['worktree', 'prune']);
    git(['worktree', 'add', '-q', worktree, `conclave/${id}`]);
    const resumed = await sandbox.run(['run', '--resume', id, '--yes'], { env: identity });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await readFile(path.join(worktree, 'notes.txt'), 'utf8')).toBe('first\nsecond\n');
  }, 60_000);

  it('run merge refuses on conflicts, naming the files, and changes nothing; a merge commit when both moved', async () => {
    await initRepository();
    const flow = ['name: edit', 'steps:', "  - shell: 'echo from-run > README.md && echo new > added.txt'", ''];
    await writeFile(path.join(sandbox.workspace, 'edit.yaml'), flow.join('\n'));
    const result = await sandbox.run(['run', 'edit.yaml', '--worktree'], { env: identity });
    expect(result.code, result.stderr).toBe(0);
    const id = sessionOf(result.stderr);
    await writeFile(path.join(sandbox.workspace, 'README.md'), 'from-main\n');
    git(['commit', '-qam', 'Edit in main']);
    const head = git(['rev-parse', 'HEAD']);

    const refused = await sandbox.run(['run', 'merge', id], { env: identity });
    expect(refused.code, refused.stderr).toBe(65);
    expect(refused.stderr).toContain(`Branch conclave/${id} conflicts with main`);
    expect(refused.stderr).toContain('in 1 file: README.md. Nothing was merged.');
    expect(git(['rev-parse', 'HEAD'])).toBe(head);
    expect(await readFile(path.join(sandbox.workspace, 'README.md'), 'utf8')).toBe('from-main\n');

    // Once the main line's change is undone on its own commit, both sides moved without conflict.
    git(['revert', '--no-edit', 'HEAD']);
    await writeFile(path.join(sandbox.workspace, 'other.md'), 'main work\n');
    git(['add', 'other.md']);
    git(['commit', '-qm', 'More main work']);
    const merged = await sandbox.run(['run', 'merge', id, '--keep'], { env: identity });
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stdout).toContain(`Merged conclave/${id} into main with a merge commit`);
    expect(merged.stdout).toContain('Kept its worktree');
    expect(await readFile(path.join(sandbox.workspace, 'added.txt'), 'utf8')).toBe('new\n');
    expect(git(['log', '-1', '--format=%s'])).toBe(`Merge conclave/${id}: edit`);
  });

  it('map.worktree runs each item in a worktree of its own, merges each back, and a conflict is a dead letter', async () => {
    await initRepository();
    const flow = [
      'name: per-item',
      'steps:',
      '  - id: each',
      '    map:',
      '      items: [a, b, c]',
      '      parallel: 3 # every item from the same commit: b and c both write shared.txt',
      '      worktree: true',
      '      do:',
      '        - shell: \'pwd > "where-$CONCLAVE_ITEM.txt" && case "$CONCLAVE_ITEM" in a) echo a > a.txt ;; *) echo "$CONCLAVE_ITEM" > shared.txt ;; esac\'',
      '',
    ];
    await writeFile(path.join(sandbox.workspace, 'items.yaml'), flow.join('\n'));
    git(['add', 'items.yaml']);
    git(['commit', '-qm', 'Add the workflow']);
    const result = await sandbox.run(['run', 'items.yaml'], { env: identity });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain('1 of 3 items of map step "each" failed after their retries');
    const id = /conclave run dlq ([0-9a-z]+)/.exec(result.stderr)?.[1] ?? '';
    const letters = await sandbox.json<Array<{ id: string; error: string }>>(['run', 'dlq', id]);
    // Whichever of b and c merged second conflicts with the first.
    const failed = letters[0]?.id ?? '';
    const merged = failed === 'b' ? 'c' : 'b';
    expect(letters.length === 1 && ['b', 'c'].includes(failed)).toBe(true);
    expect(letters[0]?.error).toContain("conflicts with the workspace's in 1 file: shared.txt");
    // a and the other one were merged into the repository's branch, each from a worktree of its own.
    expect(await readFile(path.join(sandbox.workspace, 'a.txt'), 'utf8')).toBe('a\n');
    expect(await readFile(path.join(sandbox.workspace, 'shared.txt'), 'utf8')).toBe(`${merged}\n`);
    const whereA = (await readFile(path.join(sandbox.workspace, 'where-a.txt'), 'utf8')).trim();
    const whereOther = (await readFile(path.join(sandbox.workspace, `where-${merged}.txt`), 'utf8')).trim();
    expect(whereA).toContain('conclave-worktrees');
    expect(whereA).not.toBe(whereOther);
    expect(existsSync(whereA)).toBe(false);
    expect(git(['status', '--porcelain'])).toBe('');
    expect(git(['log', '--format=%s'])).toContain(`Merge item ${merged} of map step each`);
  });

  it('refuses a worktree outside a git repository (64) and a merge of a run without one', async () => {
    await writeFile(path.join(sandbox.workspace, 'flow.yaml'), 'name: plain\nsteps:\n  - shell: "true"\n');
    const refused = await sandbox.run(['run', 'flow.yaml', '--worktree']);
    expect(refused.code).toBe(64);
    expect(refused.stderr).toContain(`A worktree run needs a git repository, and ${sandbox.workspace} is not in one`);
    expect(await sandbox.json<unknown[]>(['sessions', 'list'])).toEqual([]);
    const plain = await sandbox.run(['run', 'flow.yaml', '--json']);
    const { sessionId } = JSON.parse(plain.stdout) as { sessionId: string };
    const merge = await sandbox.run(['run', 'merge', sessionId]);
    expect(merge.code).toBe(64);
    expect(merge.stderr).toContain('did not run in a git worktree; there is nothing to merge');
    const help = await sandbox.run(['run', 'merge', '--help']);
    expect(help.stdout).toContain('a fast-forward when the repository');
  });
});

describe('examples/worktree.yaml', () => {
  it('runs offline in a worktree of a fresh repository and merges back', async () => {
    const examples = fileURLToPath(new URL('../../../../examples/', import.meta.url));
    await cp(path.join(examples, 'worktree.yaml'), path.join(sandbox.workspace, 'examples', 'worktree.yaml'));
    await cp(path.join(examples, 'worktree'), path.join(sandbox.workspace, 'examples', 'worktree'), {
      recursive: true,
    });
    await initRepository();
    const result = await sandbox.run(['run', 'examples/worktree.yaml'], { env: identity });
    expect(result.code, result.stderr).toBe(0);
    const id = sessionOf(result.stderr);
    const merged = await sandbox.run(['run', 'merge', id], { env: identity });
    expect(merged.code, merged.stderr).toBe(0);
    const changelog = await readFile(path.join(sandbox.workspace, 'examples', 'worktree', 'CHANGELOG.md'), 'utf8');
    expect(changelog).toContain('## Unreleased');
  });
});
