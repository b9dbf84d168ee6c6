// End-to-end: files the user names on the command line (export targets, import bundles, specs,
// project, items and config files) through the built `conclave`: only regular files are read or
// replaced, damaged sessions are never exported as if whole, and every refusal is typed.
import { execFileSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdtempSync, readlinkSync, rmSync, statSync, truncateSync } from 'node:fs';
import { mkdir, readFile, stat, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, createSandbox, type Sandbox } from './run-cli.js';
import { sandboxFixture } from './sandbox-fixture.js';

const sessionIdFrom = (text: string) => /Session saved: ([0-9a-z]{22})/.exec(text)?.[1] ?? '';
const MiB = 1024 * 1024;

beforeAll(() => assertBuilt());

function mkfifo(file: string): void {
  execFileSync('mkfifo', [file]);
}

/** Root reads any file whatever its mode: it runs the CLI as nobody, whom the modes hold. */
const asUserTheModesHold = process.getuid?.() === 0 ? { user: { uid: 65534, gid: 65534 } } : {};

describe('conclave sessions export -o', () => {
  let sandbox: Sandbox;
  let id: string;
  beforeAll(async () => {
    sandbox = await createSandbox();
    id = sessionIdFrom((await sandbox.run(['Evaluate my idea: durable agent sessions'])).stdout);
  });
  afterAll(() => sandbox.remove());

  it('refuses an existing file without --force and keeps its bytes and mode; --force replaces it keeping the mode', async () => {
    const target = path.join(sandbox.workspace, 'existing.json');
    await writeFile(target, 'keep me\n');
    chmodSync(target, 0o644);
    const refused = await sandbox.run(['sessions', 'export', id, '-o', target]);
    expect(refused.code).toBe(64);
    expect(refused.stderr).toContain(target);
    expect(refused.stderr).toContain('--force');
    expect(await readFile(target, 'utf8')).toBe('keep me\n');
    expect(statSync(target).mode & 0o777).toBe(0o644);

    const forced = await sandbox.run(['sessions', 'export', id, '-o', target, '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(JSON.parse(await readFile(target, 'utf8'))).toMatchObject({ sessionId: id });
    expect(statSync(target).mode & 0o777).toBe(0o644);
  });

  it('never writes through or replaces a symbolic link, naming where it points, even with --force', async () => {
    const real = path.join(sandbox.workspace, 'real.json');
    const link = path.join(sandbox.workspace, 'link.json');
    await writeFile(real, 'the real file\n');
    await symlink(real, link);
    for (const extra of [[], ['--force']]) {
      const refused = await sandbox.run(['sessions', 'export', id, '-o', link, ...extra]);
      expect(refused.code).toBe(64);
      expect(refused.stderr).toContain(link);
      expect(refused.stderr).toContain(real);
      expect(lstatSync(link).isSymbolicLink()).toBe(true);
      expect(readlinkSync(link)).toBe(real);
      expect(await readFile(real, 'utf8')).toBe('the real file\n');
    }
  });

  it('refuses a target that is not a regular file (a FIFO, a directory), with or without --force', async () => {
    const fifo = path.join(sandbox.workspace, 'pipe');
    mkfifo(fifo);
    for (const extra of [[], ['--force']]) {
      const refused = await sandbox.run(['sessions', 'export', id, '-o', fifo, ...extra]);
      expect(refused.code).toBe(64);
      expect(refused.stderr).toContain(`${fifo} is a named pipe (FIFO)`);
      expect(lstatSync(fifo).isFIFO()).toBe(true);
    }
    const directory = await sandbox.run(['sessions', 'export', id, '-o', sandbox.root, '--force']);
    expect(directory.code).toBe(64);
    expect(directory.stderr).toContain(`${sandbox.root} is a directory`);
  });

  it('types a missing folder (66) and a refused one (77), and writes to stdout with -o -', async () => {
    const missing = path.join(sandbox.workspace, 'no-such-folder', 'out.json');
    const notFound = await sandbox.run(['sessions', 'export', id, '-o', missing]);
    expect(notFound.code).toBe(66);
    expect(notFound.stderr).toContain(path.dirname(missing));
    // sysfs refuses new files to everyone, root included.
    const refused = await sandbox.run(['sessions', 'export', id, '-o', '/sys/conclave-export.json']);
    expect(refused.code).toBe(77);
    expect(refused.stderr).toContain('Permission denied');
    expect(refused.stderr).toContain('/sys');
    // A name near the limit of 255 bytes is written, its temporary file beside it included.
    const longName = path.join(sandbox.workspace, `${'n'.repeat(245)}.json`);
    const long = await sandbox.run(['sessions', 'export', id, '-o', longName]);
    expect(long.code, long.stderr).toBe(0);
    expect(statSync(longName).isFile()).toBe(true);
    const dash = await sandbox.run(['sessions', 'export', id, '--format', 'md', '-o', '-']);
    expect(dash.code, dash.stderr).toBe(0);
    expect(dash.stdout).toContain('Evaluate my idea');
    await expect(stat(path.join(sandbox.workspace, '-'))).rejects.toThrow();
  });
});

describe('conclave sessions export of a damaged session', () => {
  const sandbox = sandboxFixture();

  const damages: Record<string, (journal: string) => Promise<void>> = {
    'a changed byte near its end': async (journal) => {
      const bytes = await readFile(journal);
      bytes[bytes.length - 20] = 'X'.charCodeAt(0);
      await writeFile(journal, bytes);
    },
    'a cut tail of acknowledged records': async (journal) => {
      await truncate(journal, (await stat(journal)).size - 3000);
    },
    'its last newline removed': async (journal) => {
      await truncate(journal, (await stat(journal)).size - 1);
    },
    'an emptied journal': async (journal) => {
      await truncate(journal, 0);
    },
  };

  for (const [damage, apply] of Object.entries(damages)) {
    it(`refuses (65) with ${damage}, writes nothing, and after a repair says which events were lost`, async () => {
      const id = sessionIdFrom((await sandbox.run(['Evaluate my idea: durable agent sessions'])).stdout);
      const journal = path.join(sandbox.home, 'sessions', id, 'journal.jsonl');
      const { lastSeq } = await sandbox.json<{ lastSeq: number }>(['sessions', 'show', id]);
      await apply(journal);
      for (const format of ['json', 'md']) {
        const target = path.join(sandbox.workspace, `damaged.${format}`);
        const refused = await sandbox.run(['sessions', 'export', id, '--format', format, '-o', target]);
        expect(refused.code, `${format}: ${refused.stderr}`).toBe(65);
        expect(refused.stderr).toContain(`conclave sessions repair ${id}`);
        await expect(stat(target)).rejects.toThrow();
      }

      const repaired = await sandbox.run(['sessions', 'repair', id]);
      expect(repaired.code, repaired.stderr).toBe(0);
      const kept = /kept events 1\.\.(\d+)/.exec(repaired.stdout)?.[1];
      const lost = Number(kept) < lastSeq ? `events ${Number(kept) + 1}..${lastSeq}` : null;
      const target = path.join(sandbox.workspace, 'repaired.json');
      const exported = await sandbox.run(['sessions', 'export', id, '-o', target]);
      expect(exported.code, exported.stderr).toBe(0);
      const bundle = JSON.parse(await readFile(target, 'utf8')) as { lostInRepair?: unknown[] };
      const markdown = await sandbox.run(['sessions', 'export', id, '--format', 'md']);
      if (lost) {
        expect(exported.stderr).toContain(`${lost} were lost in a repair`);
        expect(bundle.lostInRepair).toEqual([
          expect.objectContaining({ first: Number(kept) + 1, last: lastSeq, keptSeq: Number(kept) }),
        ]);
        expect(markdown.stdout).toContain(`${lost} were lost in a repair`);
      } else {
        expect(exported.stderr).not.toContain('lost in a repair');
        expect(bundle.lostInRepair ?? []).toEqual([]);
      }
    });
  }
});

describe('conclave sessions import of files that are not bundles', () => {
  const sandbox = sandboxFixture('all');

  it('says a directory is a directory (64), and refuses a FIFO or an oversized file without reading it', async () => {
    const directory = await sandbox.run(['sessions', 'import', sandbox.root]);
    expect(directory.code).toBe(64);
    expect(directory.stderr).toContain(`${sandbox.root} is a directory`);
    expect(directory.stderr).not.toContain('no such file');

    const fifo = path.join(sandbox.workspace, 'bundle.fifo');
    mkfifo(fifo);
    const piped = await sandbox.run(['sessions', 'import', fifo]);
    expect(piped.code).toBe(64);
    expect(piped.stderr).toContain(`${fifo} is a named pipe (FIFO)`);

    // A reference that is a path goes through the same reader: a name too long is said so.
    const tooLong = await sandbox.run(['sessions', 'show', `./${'a'.repeat(300)}.json`]);
    expect(tooLong.code).toBe(64);
    expect(tooLong.stderr).toContain('The name of the export is too long');

    const huge = path.join(sandbox.workspace, 'huge.json');
    await writeFile(huge, '');
    truncateSync(huge, 300 * MiB); // sparse: nothing is written to disk
    const oversized = await sandbox.run(['sessions', 'import', huge]);
    expect(oversized.code).toBe(64);
    expect(oversized.stderr).toContain('300 MB, more than the 256 MB');
  });

  it('names an invalid sessionId as such (65), not as a newer format', async () => {
    const started = await sandbox.run(['Evaluate my idea: durable agent sessions']);
    const file = path.join(sandbox.workspace, 'export.json');
    expect((await sandbox.run(['sessions', 'export', sessionIdFrom(started.stdout), '-o', file])).code).toBe(0);
    const data = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    for (const sessionId of ['../x', 'a/b']) {
      const edited = path.join(sandbox.workspace, 'edited.json');
      await writeFile(edited, JSON.stringify({ ...data, sessionId }));
      const refused = await sandbox.run(['sessions', 'import', edited]);
      expect(refused.code).toBe(65);
      expect(refused.stderr).toContain('sessionId');
      expect(refused.stderr).toContain(edited);
      expect(refused.stderr).not.toContain('newer than this Conclave');
    }
  });

  it('says an unreadable bundle or spec is refused (77), not missing', async () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'conclave-unreadable-'));
    try {
      chmodSync(folder, 0o777);
      for (const [name, command] of [
        ['private.json', ['sessions', 'import']],
        ['private.yaml', ['run']],
      ] as const) {
        const file = path.join(folder, name);
        await writeFile(file, '{}');
        chmodSync(file, 0o000);
        const result = await sandbox.run([...command, file], {
          cwd: folder,
          env: { CONCLAVE_HOME: path.join(folder, 'home'), HOME: folder },
          ...asUserTheModesHold,
        });
        expect(result.code, result.stderr).toBe(77);
        expect(result.stderr).toContain(`Permission denied: cannot read ${file}`);
        expect(result.stderr).not.toContain('no such file');
      }
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('conclave run: specs, project, items and config files that are not regular files', () => {
  const sandbox = sandboxFixture();

  it('refuses a directory, a name too long, a FIFO, a device and a spec over 1 MiB, each by name', async () => {
    const directory = await sandbox.run(['run', sandbox.workspace]);
    expect(directory.code).toBe(64);
    expect(directory.stderr).toContain(`${sandbox.workspace} is a directory`);

    const long = `${'a'.repeat(300)}.yaml`;
    const tooLong = await sandbox.run(['run', long]);
    expect(tooLong.code).toBe(64);
    expect(tooLong.stderr).toContain('is too long');

    const fifo = path.join(sandbox.workspace, 'spec.yaml');
    mkfifo(fifo);
    const piped = await sandbox.run(['run', fifo]);
    expect(piped.code).toBe(64);
    expect(piped.stderr).toContain(`${fifo} is a named pipe (FIFO)`);

    const device = await sandbox.run(['run', '/dev/zero']);
    expect(device.code).toBe(64);
    expect(device.stderr).toContain('/dev/zero is a character device');

    const big = path.join(sandbox.workspace, 'big.yaml');
    await writeFile(big, '');
    truncateSync(big, 2 * MiB);
    const oversized = await sandbox.run(['run', big]);
    expect(oversized.code).toBe(64);
    expect(oversized.stderr).toContain('2.0 MB, more than the 1.0 MB');

    expect(await sandbox.json<unknown[]>(['sessions', 'list'])).toEqual([]);
  });

  it('refuses an iterative project that is a directory, a map step whose items file is a FIFO, and a config.yaml that is a directory', async () => {
    await mkdir(path.join(sandbox.workspace, 'notes'));
    const project = await sandbox.run(['--mode', 'iterative', '--project', 'notes', 'Fix the notes']);
    expect(project.code).toBe(64);
    expect(project.stderr).toContain(`${path.join(sandbox.workspace, 'notes')} is a directory`);

    mkfifo(path.join(sandbox.workspace, 'items.json'));
    await writeFile(
      path.join(sandbox.workspace, 'map.yaml'),
      [
        'name: items',
        'steps:',
        '  - id: each',
        '    map:',
        '      items: { file: items.json }',
        '      do:',
        '        - shell: "true"',
        '',
      ].join('\n'),
    );
    const items = await sandbox.run(['run', 'map.yaml']);
    expect(items.code).toBe(64);
    expect(items.stderr).toContain('items.json is a named pipe (FIFO)');

    await mkdir(path.join(sandbox.home, 'config.yaml'), { recursive: true });
    const config = await sandbox.run(['sessions', 'list']);
    expect(config.code).toBe(64);
    expect(config.stderr).toContain(`${path.join(sandbox.home, 'config.yaml')} is a directory`);
  });
});
