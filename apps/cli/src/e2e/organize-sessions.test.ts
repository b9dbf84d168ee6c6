// End-to-end: organizing many sessions. A name found again wherever an id is accepted,
// tags, pins and the archive, kept in the journal so they travel with an export.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, createSandbox, type Sandbox } from './run-cli.js';

const sessionIdFrom = (text: string) => /Session saved: ([0-9a-z]{22})/.exec(text)?.[1] ?? '';

interface Listed {
  index: number;
  id: string;
  name: string | null;
  tags: string[];
  pinned: boolean;
  archivedAt: string | null;
}

beforeAll(() => assertBuilt());

describe('conclave sessions rename, tag, pin, archive', () => {
  let sandbox: Sandbox;
  let other: Sandbox;
  let first = '';
  let second = '';
  beforeAll(async () => {
    sandbox = await createSandbox();
    other = await createSandbox();
    first = sessionIdFrom((await sandbox.run(['Evaluate my idea: durable agent sessions'])).stdout);
    second = sessionIdFrom((await sandbox.run(['Evaluate my idea: a tea shop'])).stdout);
    expect(first).not.toBe('');
    expect(second).not.toBe('');
  });
  afterAll(async () => {
    await sandbox.remove();
    await other.remove();
  });

  it('names a session, finds it by its name, and refuses the name for another one, naming its holder', async () => {
    const renamed = await sandbox.run(['sessions', 'rename', first, 'release notes']);
    expect(renamed.code, renamed.stderr).toBe(0);
    expect(renamed.stdout + renamed.stderr).toContain('now named "release notes"');

    const shown = await sandbox.json<{ id: string; name: string | null }>(['sessions', 'show', 'Release Notes']);
    expect(shown).toMatchObject({ id: first, name: 'release notes' });
    const human = await sandbox.run(['sessions', 'show', 'release notes']);
    expect(human.stdout).toMatch(/name:\s+release notes/);

    const taken = await sandbox.run(['sessions', 'rename', second, 'Release notes']);
    expect(taken.code).toBe(64);
    expect(taken.stderr).toContain(`taken by session ${first}`);
    expect(taken.stderr).toContain('conclave sessions rename');

    const badName = await sandbox.run(['sessions', 'rename', second, '42']);
    expect(badName.code).toBe(64);
    expect(badName.stderr).toContain('"42" cannot name a session');

    const listed = await sandbox.json<Listed[]>(['sessions', 'list']);
    expect(listed.find((entry) => entry.id === first)?.name).toBe('release notes');
    expect(listed.find((entry) => entry.id === second)?.name).toBeNull();
  });

  it('continues and branches a session given by its name', async () => {
    const continued = await sandbox.run(['--resume', 'release notes', 'What about scale?']);
    expect(continued.code, continued.stderr).toBe(0);
    const child = sessionIdFrom(continued.stdout);
    expect(child).not.toBe('');
    expect(await sandbox.json<{ parentId: string }>(['sessions', 'show', child])).toMatchObject({ parentId: first });
    const branched = await sandbox.run(['--branch-from', 'release notes', '--at-round', '1']);
    expect(branched.code, branched.stderr).toBe(0);
  });

  it('adds and removes tags, pins, archives, and lists by them', async () => {
    expect((await sandbox.run(['sessions', 'tag', first, '+work', '+Q3', '+draft'])).code).toBe(0);
    const untagged = await sandbox.run(['sessions', 'tag', first, '-draft']);
    expect(untagged.code, untagged.stderr).toBe(0);
    expect(untagged.stdout + untagged.stderr).toContain('tags: q3, work');
    const badTag = await sandbox.run(['sessions', 'tag', first, '+no way']);
    expect(badTag.code).toBe(64);
    expect(badTag.stderr).toContain('"no way" cannot be a tag');
    const noSign = await sandbox.run(['sessions', 'tag', first, 'work']);
    expect(noSign.code).toBe(64);
    expect(noSign.stderr).toContain('+work');

    expect((await sandbox.run(['sessions', 'pin', first])).code).toBe(0);
    expect((await sandbox.run(['sessions', 'archive', second])).code).toBe(0);

    const visible = await sandbox.json<Listed[]>(['sessions', 'list']);
    expect(visible.map((entry) => entry.id)).toContain(first);
    expect(visible.map((entry) => entry.id)).not.toContain(second);
    expect(visible.find((entry) => entry.id === first)).toMatchObject({ tags: ['q3', 'work'], pinned: true });

    const work = await sandbox.json<Listed[]>(['sessions', 'list', '--tag', 'work', '--pinned']);
    expect(work.map((entry) => entry.id)).toEqual([first]);
    const archived = await sandbox.json<Listed[]>(['sessions', 'list', '--archived']);
    expect(archived.map((entry) => entry.id)).toEqual([second]);
    expect(archived[0]?.archivedAt).toMatch(/^\d{4}-/);

    const table = await sandbox.run(['sessions', 'list']);
    expect(table.stdout).toContain('release notes');
    expect(table.stdout).toContain('#work');
    expect(table.stderr + table.stdout).toContain('1 archived session not shown (--archived lists them)');

    expect((await sandbox.run(['sessions', 'unarchive', second])).code).toBe(0);
    expect((await sandbox.run(['sessions', 'unpin', first])).code).toBe(0);
    const after = await sandbox.json<Listed[]>(['sessions', 'list']);
    expect(after.map((entry) => entry.id)).toContain(second);
    expect(after.find((entry) => entry.id === first)?.pinned).toBe(false);
  });

  it('keeps name, tags and pin through an export and an import', async () => {
    expect((await sandbox.run(['sessions', 'pin', 'release notes'])).code).toBe(0);
    const file = path.join(sandbox.root, 'named.json');
    expect((await sandbox.run(['sessions', 'export', 'release notes', '-o', file])).code).toBe(0);
    const imported = await other.run(['sessions', 'import', file]);
    expect(imported.code, imported.stderr).toBe(0);
    const listed = await other.json<Listed[]>(['sessions', 'list']);
    expect(listed.find((entry) => entry.id === first)).toMatchObject({
      name: 'release notes',
      tags: ['q3', 'work'],
      pinned: true,
    });
  });

  it('never lets retention delete a pinned session', async () => {
    const cleaned = await sandbox.run(['sessions', 'cleanup', '--older-than', '0d', '--status', 'completed']);
    expect(cleaned.code, cleaned.stderr).toBe(0);
    const left = await sandbox.json<Listed[]>(['sessions', 'list']);
    expect(left.map((entry) => entry.id)).toEqual([first]);
    expect(cleaned.stdout + cleaned.stderr).toContain('pinned');
  });
});
