import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rename, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generateDataKey } from '@resume/core/encryption';
import type { JournalEvent } from '@resume/core/spec';
import { testHeader, testSummary } from '@resume/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createNodeFileSystem, type FileSystem } from '../file-system/file-system.js';
import { createFsStore, type FsStore, type FsStoreOptions } from '../fs-store.js';
import { measureHome } from '../usage/home-usage.js';

let dir: string;
const stores: FsStore[] = [];

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'conclave-blob-collection-'));
});
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  await rm(dir, { recursive: true, force: true });
});

function open(options: Partial<FsStoreOptions> = {}): FsStore {
  const store = createFsStore({ dir, ...options });
  stores.push(store);
  return store;
}

/** A session whose workspace tool snapshotted `content` (as the runner records it). */
async function sessionSnapshotting(store: FsStore, content: Uint8Array): Promise<string> {
  const header = testHeader();
  await store.create(header);
  const blob = await store.putBlob(content);
  const event: JournalEvent = {
    seq: 1,
    at: '2025-06-01T12:00:00.000Z',
    type: 'file-snapshot-taken',
    path: 'notes.md',
    hash: blob,
    size: content.byteLength,
    blob,
    access: 'write',
  };
  await store.append(header.id, { expectedSeq: 0, epoch: 0, events: [event], summary: testSummary(header, 1) });
  return header.id;
}

describe('file snapshots shared between sessions', () => {
  it('keeps one blob for two sessions snapshotting the same 1 MB file, until the last of them is deleted for good', async () => {
    const store = open();
    const content = randomBytes(1024 * 1024);
    const empty = measureHome(dir).bytes;
    const first = await sessionSnapshotting(store, content);
    const afterFirst = measureHome(dir);
    const second = await sessionSnapshotting(store, content);
    const afterSecond = measureHome(dir);
    expect(afterFirst.blobs.count).toBe(1);
    expect(afterSecond.blobs.count).toBe(1);
    expect(afterFirst.bytes - empty).toBeGreaterThan(1024 * 1024);
    expect(afterSecond.bytes - afterFirst.bytes).toBeLessThan(64 * 1024);

    const hash = (await store.putBlob(content)) as string;
    await store.delete(first);
    expect(Buffer.from((await store.getBlob(hash)) ?? [])).toEqual(content);
    expect(measureHome(dir).blobs.count).toBe(1);

    await store.delete(second);
    expect(await store.getBlob(hash)).toBeNull();
    expect(measureHome(dir).blobs).toEqual({ count: 0, bytes: 0 });
  });

  it('stores a blob again when a new session snapshots it after its last session was deleted', async () => {
    const store = open();
    const content = randomBytes(4096);
    const only = await sessionSnapshotting(store, content);
    const hash = await store.putBlob(content);
    await store.delete(only);
    expect(await store.getBlob(hash)).toBeNull();
    // Put again (a new session snapshotting the same file): stored again, readable.
    const again = await sessionSnapshotting(open(), content);
    expect(Buffer.from((await store.getBlob(hash)) ?? [])).toEqual(content);
    expect(await store.getHeader(again)).not.toBeNull();
  });

  it('shares a blob per key on an encrypted home, and keeps it while a session whose key is not loaded may name it', async () => {
    const key = generateDataKey();
    const other = generateDataKey();
    const content = randomBytes(4096);
    const sealed = open({ encryption: { keys: { [key.id]: key.key }, current: key.id } });
    const first = await sessionSnapshotting(sealed, content);
    const second = await sessionSnapshotting(sealed, content);
    const hash = await sealed.putBlob(content);
    expect(measureHome(dir).blobs.count).toBe(1);
    // Under another key the same content is another blob: sessions share blobs per key.
    const otherStore = open({ encryption: { keys: { [other.id]: other.key }, current: other.id } });
    const third = await sessionSnapshotting(otherStore, content);
    expect(measureHome(dir).blobs.count).toBe(2);

    // The store with only the other key cannot read the first two sessions: it keeps their blob.
    await otherStore.delete(first);
    expect(await sealed.getBlob(hash)).not.toBeNull();
    await sealed.delete(third);
    expect(measureHome(dir).blobs.count).toBe(2);
    await sealed.delete(second);
    expect(await sealed.getBlob(hash)).toBeNull();
  });

  it('reads each journal once over a run of deletions, however many sessions it deletes', async () => {
    const real = createNodeFileSystem();
    let journalReads = 0;
    const counting: FileSystem = {
      ...real,
      readFile: async (target) => {
        if (target.endsWith('journal.jsonl')) journalReads += 1;
        return real.readFile(target);
      },
    };
    const store = open({ fileSystem: counting });
    const ids: string[] = [];
    for (let index = 0; index < 6; index += 1) ids.push(await sessionSnapshotting(store, randomBytes(4096)));
    journalReads = 0;
    for (const id of ids.slice(0, 5)) await store.delete(id);
    expect(journalReads).toBe(6);
    expect(measureHome(dir).blobs.count).toBe(1);
  });

  it('never removes a file through a blob folder replaced by a symlink', async () => {
    const store = open();
    const content = randomBytes(4096);
    const only = await sessionSnapshotting(store, content);
    const hash = await store.putBlob(content);
    const folder = path.join(dir, 'blobs', hash.slice(0, 2));
    const outside = path.join(dir, 'outside');
    await rename(folder, outside);
    await symlink(outside, folder);
    await store.delete(only);
    expect((await readdir(outside)).length).toBe(1);
  });
});
