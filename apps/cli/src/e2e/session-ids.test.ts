// End-to-end: the short ids people read in listings and type back, for sessions created in
// the same second (whose first 10 characters are the same).
import { createEngine } from '@resume/core';
import { createFsStore } from '@resume/storage-fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from './run-cli.js';
import { sandboxFixture } from './sandbox-fixture.js';

beforeAll(() => assertBuilt());

describe('conclave: short ids of sessions created in the same second', () => {
  const sandbox = sandboxFixture('all');
  const ids: string[] = [];

  beforeAll(async () => {
    const sameSecond = new Date('2026-06-01T10:00:00.000Z');
    const engine = createEngine({ store: createFsStore({ dir: sandbox.home }), now: () => sameSecond });
    for (const title of ['first of the second', 'second of the second']) {
      const session = await engine.createSession({ title, mode: 'custom' });
      await session.checkpoint('started');
      ids.push(session.id);
      await session.close();
    }
  });

  it('lists each under a prefix that names only it, and that prefix opens it', async () => {
    expect(ids[0]?.slice(0, 10)).toBe(ids[1]?.slice(0, 10));
    const listed = await sandbox.run(['sessions', 'list']);
    expect(listed.code).toBe(0);
    const shown = listed.stdout
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/)[1])
      .filter((prefix): prefix is string => prefix !== undefined);
    expect(shown).toHaveLength(2);
    expect(new Set(shown).size).toBe(2);
    for (const prefix of shown) {
      const show = await sandbox.json<{ id: string }>(['sessions', 'show', prefix]);
      expect(show.id.startsWith(prefix)).toBe(true);
    }
  });

  it('names the session by an unambiguous prefix in the hints of show and checkpoints list', async () => {
    const [first, second] = ids;
    if (!first || !second) throw new Error('sessions were not created');
    const show = await sandbox.run(['sessions', 'show', first]);
    const hinted = /conclave checkpoints list (\S+)\)/.exec(show.stdout)?.[1] ?? '';
    expect(hinted.length).toBeGreaterThan(10);
    expect(first.startsWith(hinted)).toBe(true);
    expect(second.startsWith(hinted)).toBe(false);
    const checkpoints = await sandbox.run(['checkpoints', 'list', first]);
    const branchFrom = /--branch-from (\S+)/.exec(checkpoints.stderr + checkpoints.stdout)?.[1] ?? '';
    expect(branchFrom.length).toBeGreaterThan(10);
    expect(first.startsWith(branchFrom)).toBe(true);
    expect(second.startsWith(branchFrom)).toBe(false);
  });
});
