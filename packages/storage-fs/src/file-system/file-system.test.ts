import { createHook } from 'node:async_hooks';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createNodeFileSystem, DIRECT_READ_LIMIT } from './file-system.js';

/** The thread-pool requests (fs callbacks, promises, file handles) `work` made, by type. */
async function poolRequests(work: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const hook = createHook({
    init(_id, type) {
      if (type.startsWith('FSREQ') || type.startsWith('FILEHANDLE')) seen.push(type);
    },
  });
  hook.enable();
  try {
    await work();
  } finally {
    hook.disable();
  }
  return seen;
}

describe('the Node file system', () => {
  let directory: string;
  const fileSystem = createNodeFileSystem();
  beforeEach(() => {
    directory = mkdtempSync(path.join(tmpdir(), 'conclave-file-system-'));
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it('answers the reads of opening a session (small files, status, a lease folder) without the thread pool', async () => {
    const file = path.join(directory, 'journal.jsonl');
    writeFileSync(file, 'x'.repeat(10_000));
    const requests = await poolRequests(async () => {
      expect((await fileSystem.readFile(file)).length).toBe(10_000);
      expect((await fileSystem.readRange(file, 9_990, 64)).toString()).toBe('x'.repeat(10));
      expect((await fileSystem.status(file))?.size).toBe(10_000);
      expect(await fileSystem.status(path.join(directory, 'absent'))).toBeNull();
      expect(await fileSystem.readDirectory(directory)).toEqual(['journal.jsonl']);
      await fileSystem.makeDirectory(path.join(directory, 'lease'));
    });
    expect(requests).toEqual([]);
  });

  it('reads a file larger than the direct limit through the thread pool, whole', async () => {
    const file = path.join(directory, 'snapshot.bin');
    const content = Buffer.alloc(DIRECT_READ_LIMIT + 4096, 7);
    writeFileSync(file, content);
    let read: Buffer | undefined;
    const requests = await poolRequests(async () => {
      read = await fileSystem.readFile(file);
    });
    expect(read?.equals(content)).toBe(true);
    expect(requests.length).toBeGreaterThan(0);
    const range = await fileSystem.readRange(file, 10, DIRECT_READ_LIMIT + 100);
    expect(range.length).toBe(DIRECT_READ_LIMIT + 100);
  });

  it('keeps the errors of the reads it now makes directly: absent files, symlinks, an existing folder', async () => {
    const target = path.join(directory, 'target');
    writeFileSync(target, 'secret');
    const link = path.join(directory, 'link');
    symlinkSync(target, link);
    await expect(fileSystem.readFile(path.join(directory, 'absent'))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(fileSystem.readFile(link)).rejects.toMatchObject({ code: 'ELOOP' });
    await expect(fileSystem.readRange(link, 0, 4)).rejects.toMatchObject({ code: 'ELOOP' });
    expect((await fileSystem.status(link))?.isSymbolicLink).toBe(true);
    await expect(fileSystem.makeDirectory(directory)).rejects.toMatchObject({ code: 'EEXIST' });
    await expect(fileSystem.readDirectory(path.join(directory, 'absent'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('reads what is there when a range runs past the end of the file', async () => {
    const file = path.join(directory, 'tail');
    writeFileSync(file, 'abcdef');
    expect((await fileSystem.readRange(file, 4, 100)).toString()).toBe('ef');
    expect((await fileSystem.readRange(file, 10, 100)).length).toBe(0);
  });
});
