// End-to-end: a search sees at once what other processes changed since the index last looked,
// also when the index had seen the store settled (and skips the listing while nothing changes):
// an append by a writer that was already writing, a rename, a deletion and an import.
import { setTimeout as sleep } from 'node:timers/promises';
import { createEngine } from '@resume/core';
import { createFsStore } from '@resume/storage-fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from './run-cli.js';
import { sandboxFixture } from './sandbox-fixture.js';

const sessionIdFrom = (text: string) => /Session saved: ([0-9a-z]{22})/.exec(text)?.[1] ?? '';

/** Longer than the time the sessions folder must have kept still before a search trusts its stamp. */
const settle = () => sleep(2_100);

beforeAll(() => assertBuilt());

describe('sessions search after changes by other processes', () => {
  const sandbox = sandboxFixture('each');
  const found = async (words: string) =>
    Array.from(
      new Set((await sandbox.json<Array<{ id: string }>>(['sessions', 'search', words])).map((hit) => hit.id)),
    );

  it('sees an append by a writer that was writing when the index last looked', async () => {
    const engine = createEngine({ store: createFsStore({ dir: sandbox.home }) });
    try {
      const session = await engine.createSession({ title: 'Tea shop', mode: 'discussion' });
      session.addMessage({ role: 'user', content: 'Plan the opening of a tea shop.', speaker: null });
      await session.flush();
      await settle();
      expect(await found('tea')).toEqual([session.id]);
      expect(await found('quokka')).toEqual([]);
      session.addMessage({ role: 'assistant', content: 'Add a quokka corner to the shop.', speaker: 'critic' });
      await session.flush();
      expect(await found('quokka')).toEqual([session.id]);
      await session.complete();
      await session.close();
    } finally {
      await engine.close();
    }
  });

  it('sees a rename, a deletion and an import made by other commands', async () => {
    const id = sessionIdFrom((await sandbox.run(['Plan the opening of a tea shop'])).stdout);
    const exported = `${sandbox.root}/tea.json`;
    expect((await sandbox.run(['sessions', 'export', id, '-o', exported])).code).toBe(0);
    await settle();
    expect(await found('walrus')).toEqual([]);
    expect((await sandbox.run(['sessions', 'rename', id, 'walrus-plan'])).code).toBe(0);
    expect(await found('walrus')).toEqual([id]);

    await settle();
    expect(await found('tea')).toEqual([id]);
    expect((await sandbox.run(['sessions', 'delete', id, '--force'])).code).toBe(0);
    expect(await found('tea')).toEqual([]);
    expect((await sandbox.run(['sessions', 'restore', id])).code).toBe(0);
    await settle();
    expect(await found('tea')).toEqual([id]);
    expect((await sandbox.run(['sessions', 'delete', id, '--force', '--now'])).code).toBe(0);
    expect(await found('tea')).toEqual([]);

    await settle();
    expect(await found('tea')).toEqual([]);
    const imported = await sandbox.run(['sessions', 'import', exported]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(await found('tea')).toHaveLength(1);
  });
});
