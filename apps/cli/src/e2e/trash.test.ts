// End-to-end: deleting with undo. `sessions delete` and retention move sessions to a trash
// that keeps them for a while; `sessions restore` brings one back with its lineage, `sessions
// trash --empty` (or an age) frees the space; `delete --now` skips the trash. Retention says what
// it will move before it first runs on its own.
import { existsSync } from 'node:fs';
import { utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createEngine } from '@resume/core';
import { createFsStore } from '@resume/storage-fs';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assertBuilt, createSandbox, type Sandbox } from './run-cli.js';

const sessionIdFrom = (text: string) => /Session saved: ([0-9a-z]{22})/.exec(text)?.[1] ?? '';
const DAY_MS = 24 * 60 * 60 * 1000;

interface Listed {
  id: string;
  title: string;
}
interface Trashed {
  id: string;
  title: string;
  trashedAt: string;
  expiresAt: string | null;
}
interface Shown {
  id: string;
  lineage: { id: string; exists: boolean }[];
}

beforeAll(() => assertBuilt());

describe('conclave sessions delete, trash and restore', () => {
  let sandbox: Sandbox;
  beforeEach(async () => {
    sandbox = await createSandbox();
  });
  afterEach(() => sandbox.remove());

  it('moves a deleted session to the trash, and restore brings it back with its lineage', async () => {
    const parent = sessionIdFrom((await sandbox.run(['Evaluate my idea: durable agent sessions'])).stdout);
    const child = sessionIdFrom((await sandbox.run(['--resume', parent, 'What about scale?'])).stdout);
    expect(child).not.toBe('');

    const deleted = await sandbox.run(['sessions', 'delete', parent]);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stdout).toContain('to the trash');
    expect(deleted.stdout).toContain(`conclave sessions restore ${parent}`);
    expect((await sandbox.json<Listed[]>(['sessions', 'list'])).map((entry) => entry.id)).toEqual([child]);
    const trash = await sandbox.json<Trashed[]>(['sessions', 'trash']);
    expect(trash.map((entry) => entry.id)).toEqual([parent]);
    expect(Date.parse(trash[0]?.expiresAt ?? '') - Date.parse(trash[0]?.trashedAt ?? '')).toBe(7 * DAY_MS);
    const human = await sandbox.run(['sessions', 'trash']);
    expect(human.stdout).toContain('Evaluate my idea');

    const restored = await sandbox.run(['sessions', 'restore', parent]);
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout).toContain('Restored');
    expect((await sandbox.json<Listed[]>(['sessions', 'list'])).map((entry) => entry.id).sort()).toEqual(
      [parent, child].sort(),
    );
    expect(await sandbox.json<Trashed[]>(['sessions', 'trash'])).toEqual([]);
    const shown = await sandbox.json<Shown>(['sessions', 'show', child]);
    expect(shown.lineage.find((entry) => entry.id === parent)?.exists).toBe(true);

    const notTrashed = await sandbox.run(['sessions', 'restore', parent]);
    expect(notTrashed.code).toBe(64);
    expect(notTrashed.stderr).toContain('is not in the trash');
  });

  it('deletes for good with --now, and frees the trash with --empty or an age', async () => {
    const first = sessionIdFrom((await sandbox.run(['Evaluate my idea: a tea shop'])).stdout);
    const now = await sandbox.run(['sessions', 'delete', first, '--now']);
    expect(now.code, now.stderr).toBe(0);
    expect(now.stdout).toContain('for good');
    expect(existsSync(path.join(sandbox.home, 'sessions', first))).toBe(false);
    expect(await sandbox.json<Trashed[]>(['sessions', 'trash'])).toEqual([]);

    // Two sessions in the trash: one just now, one put there ten days ago (after the last run,
    // which would have emptied it of that one: the trash keeps them 7 days).
    const recent = sessionIdFrom((await sandbox.run(['Evaluate my idea: a bike repair van'])).stdout);
    expect((await sandbox.run(['sessions', 'delete', recent])).code).toBe(0);
    const tenDaysAgo = new Date(Date.now() - 10 * DAY_MS);
    const engine = createEngine({ store: createFsStore({ dir: sandbox.home }), now: () => tenDaysAgo });
    const old = await engine.createSession({ title: 'Old idea', mode: 'discussion' });
    await old.complete();
    await old.close();
    await engine.changeMetadata(old.id, { trashed: true });
    await engine.close();

    const aged = await sandbox.run(['sessions', 'trash', '--older-than', '3d']);
    expect(aged.code, aged.stderr).toBe(0);
    expect(aged.stdout).toContain('Deleted 1 session from the trash for good');
    expect((await sandbox.json<Trashed[]>(['sessions', 'trash'])).map((entry) => entry.id)).toEqual([recent]);
    expect(existsSync(path.join(sandbox.home, 'sessions', old.id))).toBe(false);

    const emptied = await sandbox.run(['sessions', 'trash', '--empty']);
    expect(emptied.code, emptied.stderr).toBe(0);
    expect(await sandbox.json<Trashed[]>(['sessions', 'trash'])).toEqual([]);
    expect(existsSync(path.join(sandbox.home, 'sessions', recent))).toBe(false);
  });

  it('says what automatic retention will move before its first run, then moves it to the trash', async () => {
    const kept = sessionIdFrom((await sandbox.run(['Evaluate my idea: keep me'])).stdout);
    expect((await sandbox.run(['sessions', 'pin', kept])).code).toBe(0);
    const older = sessionIdFrom((await sandbox.run(['Evaluate my idea: an older one'])).stdout);
    await writeFile(
      path.join(sandbox.home, 'config.yaml'),
      ['retention:', '  automatic: true', '  maxSessions: 1', '  minKeep: 0', 'trash:', '  keepDays: 3', ''].join('\n'),
    );
    const first = await sandbox.run(['Evaluate my idea: the newest']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain('Retention will move 1 session to the trash');
    expect(first.stderr).toContain(older.slice(0, 10));
    expect(await sandbox.json<Trashed[]>(['sessions', 'trash'])).toEqual([]);

    const second = await sandbox.run(['Evaluate my idea: one more']);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/Retention: moved \d+ old sessions? to the trash/);
    const trash = await sandbox.json<Trashed[]>(['sessions', 'trash']);
    expect(trash.map((entry) => entry.id)).toContain(older);
    expect(trash.map((entry) => entry.id)).not.toContain(kept);
    expect(Date.parse(trash[0]?.expiresAt ?? '') - Date.parse(trash[0]?.trashedAt ?? '')).toBe(3 * DAY_MS);
  });

  it('emptying the trash also removes the stored files a writer put and stopped without naming', async () => {
    const store = createFsStore({ dir: sandbox.home });
    const engine = createEngine({ store });
    const session = await engine.createSession({ title: 'reads a file', mode: 'custom' });
    const named = await store.putBlob(Buffer.from('kept: a session names it'));
    session.record({ type: 'file-snapshot-taken', path: 'a.txt', hash: named, size: 24, blob: named, access: 'read' });
    await session.checkpoint('read');
    await session.complete();
    await session.close();
    // A writer put this snapshot a minute ago and stopped before journaling the event naming it.
    const orphan = await store.putBlob(Buffer.from('never named'));
    const aMinuteAgo = new Date(Date.now() - 60_000);
    await utimes(path.join(sandbox.home, 'blobs', orphan.slice(0, 2), orphan.slice(2)), aMinuteAgo, aMinuteAgo);
    await engine.close();

    const emptied = await sandbox.json<{ deleted: string[]; blobsRemoved: number }>(['sessions', 'trash', '--empty']);
    expect(emptied).toMatchObject({ deleted: [], blobsRemoved: 1 });
    const reader = createFsStore({ dir: sandbox.home });
    expect(await reader.getBlob(orphan)).toBeNull();
    expect(Buffer.from((await reader.getBlob(named)) ?? []).toString()).toBe('kept: a session names it');
    await reader.close();
  });
});
