// End-to-end: content search on a home encrypted at rest. The index keeps the words as keyed
// hashes and no text: a search finds a session by a word of a message while no file of the
// home, the index included, holds that word; without the key the search names what is missing.
import { readdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from './run-cli.js';
import { sandboxFixture } from './sandbox-fixture.js';

beforeAll(() => assertBuilt());

const sandbox = sandboxFixture();

async function filesHolding(text: string): Promise<string[]> {
  const entries = await readdir(sandbox.home, { withFileTypes: true, recursive: true });
  const found: string[] = [];
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    if ((await readFile(file)).toString('latin1').toLowerCase().includes(text.toLowerCase())) found.push(file);
  }
  return found;
}

describe('sessions search on an encrypted home', () => {
  it('finds a session by a word of a message, with no file of the home holding the word; without the key it says so', async () => {
    expect((await sandbox.run(['keys', 'init'])).code).toBe(0);
    await writeFile(path.join(sandbox.home, 'config.yaml'), 'encryption: on\n');
    const run = await sandbox.run(['Evaluate my idea: a vault for the Nightingale launch codes']);
    expect(run.code, run.stderr).toBe(0);
    const [session] = await sandbox.json<Array<{ id: string }>>(['sessions', 'list']);

    const found = await sandbox.run(['sessions', 'search', 'nightingale', '--json']);
    expect(found.code, found.stderr).toBe(0);
    const hits = JSON.parse(found.stdout) as Array<{ id: string; snippet: string }>;
    expect(hits.map((hit) => hit.id)).toContain(session?.id);
    expect(hits[0]?.snippet).toContain('Nightingale');
    const listed = await sandbox.json<Array<{ id: string }>>(['sessions', 'list', '--search', 'nightingale']);
    expect(listed.map((item) => item.id)).toEqual([session?.id]);
    expect(await sandbox.json<unknown[]>(['sessions', 'search', 'marmalade', '--json'])).toEqual([]);
    expect(await filesHolding('nightingale')).toEqual([]);

    await rename(path.join(sandbox.home, 'keys'), path.join(sandbox.root, 'keys-elsewhere'));
    const refused = await sandbox.run(['sessions', 'search', 'nightingale', '--json']);
    expect(refused.code).toBe(64);
    expect(refused.stderr).toContain('no key');
    expect(refused.stderr).toContain('CONCLAVE_ENCRYPTION_KEY');
  });
});
