// End-to-end: the space a home takes. `sessions du` shows the biggest sessions and what in them
// takes the space (journal, snapshots, file snapshots, other blobs) and the home's total, the
// trash and the index included. Space limits (limits.maxHomeBytes, limits.maxSessionBytes) stop a
// run at a checkpoint, exit 74, and the session resumes once the limit is raised.
import { lstatSync, readdirSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createEngine } from '@resume/core';
import { createFsStore } from '@resume/storage-fs';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assertBuilt, createSandbox, type Sandbox } from './run-cli.js';

const sessionIdFrom = (text: string) => /Session saved: ([0-9a-z]{22})/.exec(text)?.[1] ?? '';
const MEGABYTE = 1024 * 1024;

interface Usage {
  home: string;
  bytes: number;
  sessions: { count: number; bytes: number };
  trash: { count: number; bytes: number };
  blobs: { count: number; bytes: number };
  index: number;
  top: {
    id: string;
    title: string;
    trashed: boolean;
    bytes: number;
    journal: number;
    snapshots: number;
    fileSnapshots: { count: number; bytes: number } | null;
    blobs: { count: number; bytes: number } | null;
    shared: { count: number; bytes: number } | null;
  }[];
}

/** Every regular file's size under `directory`, as `du --apparent-size` would add them up. */
function bytesUnder(directory: string): number {
  let total = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const target = path.join(directory, entry.name);
    if (entry.isDirectory()) total += bytesUnder(target);
    else if (entry.isFile()) total += lstatSync(target).size;
  }
  return total;
}

/** A session that snapshotted a 1 MB workspace file, written through the library. */
async function sessionWithFileSnapshot(sandbox: Sandbox, content: string): Promise<string> {
  const store = createFsStore({ dir: sandbox.home });
  const engine = createEngine({ store });
  const session = await engine.createSession({ title: 'reads a big file', mode: 'custom' });
  const bytes = Buffer.from(content);
  const blob = await store.putBlob(bytes);
  session.record({
    type: 'file-snapshot-taken',
    path: 'data.bin',
    hash: blob,
    size: bytes.length,
    blob,
    access: 'read',
  });
  await session.checkpoint('read');
  await session.complete();
  await session.close();
  await engine.close();
  return session.id;
}

beforeAll(() => assertBuilt());

describe('conclave sessions du', () => {
  let sandbox: Sandbox;
  beforeEach(async () => {
    sandbox = await createSandbox();
  });
  afterEach(() => sandbox.remove());

  it('shows the biggest sessions, what in them takes the space, and the home total with the trash and index', async () => {
    const big = await sessionWithFileSnapshot(sandbox, 'x'.repeat(MEGABYTE));
    const small = sessionIdFrom((await sandbox.run(['Evaluate my idea: a tea shop'])).stdout);
    const trashed = sessionIdFrom((await sandbox.run(['Evaluate my idea: a bike shop'])).stdout);
    expect((await sandbox.run(['sessions', 'delete', trashed])).code).toBe(0);

    const usage = await sandbox.json<Usage>(['sessions', 'du']);
    expect(usage.bytes).toBe(bytesUnder(sandbox.home));
    expect(usage.sessions.count).toBe(3);
    expect(usage.trash.count).toBe(1);
    expect(usage.trash.bytes).toBe(bytesUnder(path.join(sandbox.home, 'sessions', trashed)));
    expect(usage.index).toBe(bytesUnder(path.join(sandbox.home, 'index')));
    expect(usage.blobs.bytes).toBeGreaterThanOrEqual(MEGABYTE);
    const first = usage.top[0];
    expect(first?.id).toBe(big);
    expect(first?.fileSnapshots).toEqual({ count: 1, bytes: MEGABYTE });
    expect(first?.journal).toBe(lstatSync(path.join(sandbox.home, 'sessions', big, 'journal.jsonl')).size);
    expect(usage.top.map((entry) => entry.id).sort()).toEqual([big, small, trashed].sort());
    expect(usage.top.find((entry) => entry.id === trashed)?.trashed).toBe(true);

    const topOne = await sandbox.json<Usage>(['sessions', 'du', '--top', '1']);
    expect(topOne.top.map((entry) => entry.id)).toEqual([big]);

    const human = await sandbox.run(['sessions', 'du', '--top', '2']);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain('reads a big file');
    expect(human.stdout).toMatch(/FILE SNAPSHOTS/);
    expect(human.stdout).toMatch(/1\.0 MB/);
    expect(human.stdout).toMatch(/Total/);
    expect(human.stdout).toMatch(/trash/i);
    expect(human.stderr).toContain('conclave sessions trash --empty');

    const badTop = await sandbox.run(['sessions', 'du', '--top', 'many']);
    expect(badTop.code).toBe(64);
    expect(badTop.stderr).toContain('--top');
  });
});

describe('file snapshots shared between sessions', () => {
  let sandbox: Sandbox;
  beforeEach(async () => {
    sandbox = await createSandbox();
  });
  afterEach(() => sandbox.remove());

  it('stores one blob for two sessions snapshotting the same file, says it is shared, and removes it with the last session', async () => {
    const content = 'y'.repeat(MEGABYTE);
    const first = await sessionWithFileSnapshot(sandbox, content);
    const alone = bytesUnder(sandbox.home);
    const second = await sessionWithFileSnapshot(sandbox, content);
    expect(bytesUnder(sandbox.home) - alone).toBeLessThan(MEGABYTE / 4);

    const usage = await sandbox.json<Usage & { sharedBlobs: { count: number; bytes: number } }>(['sessions', 'du']);
    expect(usage.blobs.count).toBe(1);
    expect(usage.sharedBlobs).toEqual({ count: 1, bytes: MEGABYTE });
    expect(usage.bytes).toBe(bytesUnder(sandbox.home));
    for (const id of [first, second]) {
      const entry = usage.top.find((session) => session.id === id);
      expect(entry?.shared).toEqual({ count: 1, bytes: MEGABYTE });
      // What deleting the session frees: not the shared megabyte.
      expect(entry?.bytes).toBeLessThan(MEGABYTE / 4);
    }
    const human = await sandbox.run(['sessions', 'du']);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/SHARED/);
    expect(human.stdout).toMatch(/1\.0 MB \(1\)/);
    expect(human.stdout).toContain('1.0 MB of them shared by several sessions, counted once');

    expect((await sandbox.run(['sessions', 'delete', first, '--now'])).code).toBe(0);
    const afterOne = await sandbox.json<Usage>(['sessions', 'du']);
    expect(afterOne.blobs.count).toBe(1);
    const kept = afterOne.top.find((session) => session.id === second);
    expect(kept?.shared).toEqual({ count: 0, bytes: 0 });
    expect(kept?.bytes).toBeGreaterThan(MEGABYTE);

    expect((await sandbox.run(['sessions', 'delete', second])).code).toBe(0);
    expect((await sandbox.json<Usage>(['sessions', 'du'])).blobs.count).toBe(1);
    const emptied = await sandbox.run(['sessions', 'trash', '--empty']);
    expect(emptied.code, emptied.stderr).toBe(0);
    const afterBoth = await sandbox.json<Usage>(['sessions', 'du']);
    expect(afterBoth.blobs).toEqual({ count: 0, bytes: 0 });
    expect(afterBoth.bytes).toBeLessThan(MEGABYTE / 4);
  });
});

describe('space limits', () => {
  let sandbox: Sandbox;
  beforeEach(async () => {
    sandbox = await createSandbox();
    await mkdir(sandbox.home, { recursive: true });
  });
  afterEach(() => sandbox.remove());

  it('stops a run at a checkpoint when its session would pass limits.maxSessionBytes, and resumes once raised', async () => {
    const config = path.join(sandbox.home, 'config.yaml');
    await writeFile(config, 'limits:\n  maxSessionBytes: 10KB\n');
    const stopped = await sandbox.run(['Evaluate my idea: a tea shop']);
    expect(stopped.code, stopped.stderr).toBe(74);
    const id = /Session ([0-9a-z]{22}) holds/.exec(stopped.stderr)?.[1] ?? '';
    expect(id).not.toBe('');
    expect(stopped.stderr).toContain('would pass limits.maxSessionBytes (10 KB)');
    expect(stopped.stderr).toMatch(/journal \d/);
    expect(stopped.stderr).toContain('conclave sessions du');
    expect(stopped.stderr).toContain('conclave sessions trash --empty');
    expect(stopped.stderr).toContain(`conclave --resume ${id}`);
    const listed = await sandbox.json<{ id: string; status: string }[]>(['sessions', 'list']);
    expect(listed.find((entry) => entry.id === id)?.status).toBe('interrupted');
    expect(lstatSync(path.join(sandbox.home, 'sessions', id, 'journal.jsonl')).size).toBeLessThanOrEqual(10 * 1024);

    await writeFile(config, 'limits:\n  maxSessionBytes: 1MB\n');
    const resumed = await sandbox.run(['--resume', id, '--yes']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const after = await sandbox.json<{ id: string; status: string }[]>(['sessions', 'list']);
    expect(after.find((entry) => entry.id === id)?.status).toBe('completed');
  });

  it('refuses a limit that is not a size, naming the file and the key', async () => {
    await writeFile(path.join(sandbox.home, 'config.yaml'), 'limits:\n  maxHomeBytes: 20 gigs\n');
    const refused = await sandbox.run(['sessions', 'du']);
    expect(refused.code).toBe(64);
    expect(refused.stderr).toContain(`${path.join(sandbox.home, 'config.yaml')} at limits.maxHomeBytes`);
    expect(refused.stderr).toContain('500MB, 20GB');
  });
});
