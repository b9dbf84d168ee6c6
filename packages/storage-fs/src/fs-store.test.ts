import { appendFile, cp, mkdtemp, readdir, readFile, rm, stat, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  createSessionId,
  JournalCorruptedError,
  type JournalEvent,
  LeaseLostError,
  type ProcessProbe,
  SessionLockedError,
  SessionNotFoundError,
  StoreIoError,
} from '@resume/core/spec';
import { messageEvent, testHeader, testSummary } from '@resume/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createNodeFileSystem, type FileSystem } from './file-system/file-system.js';
import { createFsStore, type FsStore, type FsStoreOptions } from './fs-store.js';
import { encodeBatch } from './journal/journal-codec.js';

let dir: string;
const stores: FsStore[] = [];

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'conclave-fs-store-'));
});
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  await rm(dir, { recursive: true, force: true });
});

function open(options: Partial<FsStoreOptions> = {}): FsStore {
  const store = createFsStore({ dir, now: () => new Date('2025-06-01T12:00:00.000Z'), ...options });
  stores.push(store);
  return store;
}

async function sessionWith(store: FsStore, batches: number): Promise<string> {
  const header = testHeader();
  await store.create(header);
  for (let seq = 1; seq <= batches; seq += 1) {
    const batch = { expectedSeq: seq - 1, epoch: 0, events: [messageEvent(seq)], summary: testSummary(header, seq) };
    await store.append(header.id, batch);
  }
  return header.id;
}

async function seqs(store: FsStore, id: string): Promise<number[]> {
  const result: number[] = [];
  for await (const event of store.read(id)) result.push(event.seq);
  return result;
}

const journalPath = (id: string) => path.join(dir, 'sessions', id, 'journal.jsonl');

/** The real file system, counting the journal bytes read through it. */
function journalCounting(): { fileSystem: FileSystem; read: { bytes: number } } {
  const real = createNodeFileSystem();
  const read = { bytes: 0 };
  const count = (target: string, bytes: Buffer) => {
    if (target.endsWith('journal.jsonl')) read.bytes += bytes.length;
    return bytes;
  };
  return {
    fileSystem: {
      ...real,
      readFile: async (target) => count(target, await real.readFile(target)),
      readRange: async (target, position, length) => count(target, await real.readRange(target, position, length)),
    },
    read,
  };
}

describe('file store on disk', () => {
  it('reads only what was appended since a reader last read the journal to its end, and the whole journal when that end no longer fits', async () => {
    const writer = open();
    const id = await sessionWith(writer, 600);
    const { fileSystem: counting, read: journalRead } = journalCounting();
    const reader = open({ fileSystem: counting });
    expect(await seqs(reader, id)).toHaveLength(600);
    const whole = (await stat(journalPath(id))).size;
    expect(journalRead.bytes).toBeGreaterThanOrEqual(whole);

    const header = testHeader();
    for (const seq of [601, 602]) {
      await writer.append(id, {
        expectedSeq: seq - 1,
        epoch: 0,
        events: [messageEvent(seq)],
        summary: testSummary({ ...header, id }, seq),
      });
    }
    journalRead.bytes = 0;
    const appended: number[] = [];
    for await (const event of reader.read(id, { fromSeq: 601 })) appended.push(event.seq);
    expect(appended).toEqual([601, 602]);
    // The new records and a tail read to confirm the known end: the same for any length of journal.
    expect(journalRead.bytes).toBeLessThan(whole / 4);

    // Cut back to its first 150 records: the end the reader knew is gone, so it reads the whole journal.
    const lines = (await readFile(journalPath(id), 'utf8')).split('\n');
    await writeFile(journalPath(id), `${lines.slice(0, 150).join('\n')}\n`);
    const after: number[] = [];
    for await (const event of reader.read(id, { fromSeq: 140 })) after.push(event.seq);
    expect(after).toEqual(Array.from({ length: 11 }, (_, index) => 140 + index));
  });

  it('reads a range near the end of a long journal from the end, record by record, in a store that read nothing yet', async () => {
    const writer = open();
    const id = await sessionWith(writer, 600);
    const { fileSystem: counting, read: journalRead } = journalCounting();
    const whole = (await stat(journalPath(id))).size;
    const range = async (fromSeq: number, toSeq: number) => {
      const found: number[] = [];
      for await (const event of open({ fileSystem: counting }).read(id, { fromSeq, toSeq })) found.push(event.seq);
      return found;
    };
    expect(await range(590, 592)).toEqual([590, 591, 592]);
    expect(journalRead.bytes).toBeLessThan(whole / 4);

    // Damage inside the range is still found and named.
    const lines = (await readFile(journalPath(id), 'utf8')).split('\n');
    lines[594] = lines[594]!.replace('"seq":595', '"seq":596');
    await writeFile(journalPath(id), lines.join('\n'));
    const error = await (async () => {
      try {
        await range(593, 596);
      } catch (caught) {
        return caught;
      }
      return null;
    })();
    expect(JournalCorruptedError.isInstance(error)).toBe(true);

    // A torn tail: the whole journal is read, and the range still answered.
    lines[594] = lines[594]!.replace('"seq":596', '"seq":595');
    await writeFile(journalPath(id), `${lines.join('\n')}{"crc":"0000`);
    expect(await range(590, 592)).toEqual([590, 591, 592]);
  });

  it('reads the events after a snapshot from its recorded offset, and the whole journal when that offset no longer fits', async () => {
    const writer = open();
    const id = await sessionWith(writer, 5);
    await (await writer.acquireLease(id, { holder: { pid: process.pid, host: 'here' } })).release();
    const lease = await writer.acquireLease(id, { holder: { pid: process.pid, host: 'here' } });
    await writer.append(id, {
      expectedSeq: 5,
      epoch: lease.epoch,
      events: [messageEvent(6)],
      summary: testSummary(id, 6),
    });
    await writer.putSnapshot(id, { seq: 6, formatVersion: 1, state: { at: 6 } });
    for (let seq = 7; seq <= 9; seq += 1) {
      await writer.append(id, {
        expectedSeq: seq - 1,
        epoch: lease.epoch,
        events: [messageEvent(seq)],
        summary: testSummary(id, seq),
      });
    }
    await lease.release();

    const reader = open();
    expect((await reader.getSnapshot(id))?.seq).toBe(6);
    const after: number[] = [];
    for await (const event of reader.read(id, { fromSeq: 7 })) after.push(event.seq);
    expect(after).toEqual([7, 8, 9]);
    // From the snapshot's own event on, so a reader can confirm the journal still holds it.
    const including: number[] = [];
    for await (const event of reader.read(id, { fromSeq: 6 })) including.push(event.seq);
    expect(including).toEqual([6, 7, 8, 9]);

    // The journal is replaced out of band with other record boundaries: the offset is stale.
    const events = Array.from({ length: 8 }, (_, index) => messageEvent(index + 1));
    await writeFile(journalPath(id), encodeBatch({ epoch: lease.epoch, events, summary: testSummary(id, 8) }));
    const again: number[] = [];
    for await (const event of reader.read(id, { fromSeq: 7 })) again.push(event.seq);
    expect(again).toEqual([7, 8]);
  });

  it('reads the journal newest first, a batch at a time, each record checked and decoded when it is reached', async () => {
    const store = open();
    const header = testHeader();
    await store.create(header);
    const two = {
      expectedSeq: 0,
      epoch: 0,
      events: [messageEvent(1), messageEvent(2)],
      summary: testSummary(header, 2),
    };
    await store.append(header.id, two);
    await store.append(header.id, {
      expectedSeq: 2,
      epoch: 0,
      events: [messageEvent(3)],
      summary: testSummary(header, 3),
    });
    const batches = async (reader: FsStore, id: string) => {
      const seen: number[][] = [];
      for await (const batch of reader.readNewestFirst(id)) seen.push(batch.map((event) => event.seq));
      return seen;
    };
    const inOrder = async (reader: FsStore, id: string) => {
      const events: JournalEvent[] = [];
      for await (const event of reader.read(id)) events.push(event);
      return events;
    };
    const newestFirst = async (reader: FsStore, id: string) => {
      const events: JournalEvent[] = [];
      for await (const batch of reader.readNewestFirst(id)) events.unshift(...batch);
      return events;
    };
    expect(await batches(store, header.id)).toEqual([[3], [1, 2]]);
    expect(await newestFirst(store, header.id)).toEqual(await inOrder(store, header.id));
    // A torn last record (a crash during its write) was never acknowledged: it is left out.
    await appendFile(journalPath(header.id), '{"crc":"00000000","v":1,"epoch":0,"first":4,');
    expect(await batches(open(), header.id)).toEqual([[3], [1, 2]]);

    // A longer journal, one of its records a few megabytes long.
    const long = testHeader();
    await store.create(long);
    for (let seq = 1; seq <= 400; seq += 1) {
      const content = `${seq} `.repeat(seq === 200 ? 800_000 : 2_000);
      await store.append(long.id, {
        expectedSeq: seq - 1,
        epoch: 0,
        events: [messageEvent(seq, content)],
        summary: testSummary(long, seq),
      });
    }
    const longOrder = await inOrder(open(), long.id);
    expect(longOrder).toHaveLength(400);
    expect(await newestFirst(open(), long.id)).toEqual(longOrder);

    // A record that fails its schema behind a valid checksum is found when it is reached...
    const damaged = testHeader();
    await store.create(damaged);
    const invalid = { ...messageEvent(1), type: 'not-an-event' } as unknown as JournalEvent;
    const records = [
      encodeBatch({ epoch: 0, events: [invalid], summary: testSummary(damaged, 1) }),
      encodeBatch({ epoch: 0, events: [messageEvent(2)], summary: testSummary(damaged, 2) }),
      encodeBatch({ epoch: 0, events: [messageEvent(3)], summary: testSummary(damaged, 3) }),
    ];
    const failure = async (bytes: Buffer) => {
      await writeFile(journalPath(damaged.id), bytes);
      const given: number[][] = [];
      const error = await (async () => {
        for await (const batch of open().readNewestFirst(damaged.id)) given.push(batch.map((event) => event.seq));
      })().catch((caught: unknown) => caught);
      return { given, error: JournalCorruptedError.isInstance(error) ? error : null };
    };
    const schema = await failure(Buffer.concat(records));
    expect(schema.given).toEqual([[3], [2]]);
    expect(schema.error?.offset).toBe(0);
    // ...as is one whose checksum fails (not the last: that one is torn)...
    const flipped = Buffer.concat(records);
    const second = records[0]!.length;
    flipped[second + 40] = (flipped[second + 40] ?? 0) ^ 0x08;
    const checksum = await failure(flipped);
    expect(checksum.given).toEqual([[3]]);
    expect(checksum.error).toMatchObject({ problem: 'checksum mismatch', offset: second });
    // ...and a record missing from the middle.
    const gap = await failure(Buffer.concat([records[0]!, records[2]!]));
    expect(gap.given).toEqual([[3]]);
    expect(gap.error?.problem).toBe('record holds events 1..1 but 3 comes next');
  });

  it('keeps directories private (0700) and files private (0600)', async () => {
    const store = open();
    const id = await sessionWith(store, 2);
    await store.putSnapshot(id, { seq: 2, formatVersion: 1, state: {} });
    const blob = await store.putBlob(new TextEncoder().encode('secret-free content'));
    await (await store.acquireLease(id, { holder: { pid: process.pid, host: 'elsewhere' } })).release();
    await store.list();
    const walk = async (current: string): Promise<string[]> => {
      const entries = await readdir(current, { withFileTypes: true });
      const nested = await Promise.all(
        entries.filter((entry) => entry.isDirectory()).map((entry) => walk(path.join(current, entry.name))),
      );
      return [
        current,
        ...entries.filter((entry) => !entry.isDirectory()).map((e) => path.join(current, e.name)),
        ...nested.flat(),
      ];
    };
    const paths = await walk(dir);
    expect(paths.some((file) => file.endsWith(blob.slice(2)))).toBe(true);
    for (const file of paths) {
      const mode = (await stat(file)).mode & 0o777;
      if (file === dir) continue; // made by the test
      expect({ file, mode }).toEqual({ file, mode: (await stat(file)).isDirectory() ? 0o700 : 0o600 });
    }
  });

  it('never turns an invalid id into a path', async () => {
    const store = open();
    await writeFile(path.join(dir, 'outside.json'), '{}');
    for (const id of ['../outside', '..', 'a/b', '', '../../etc/passwd']) {
      expect(await store.getHeader(id)).toBeNull();
      expect(await store.getSummary(id)).toBeNull();
      expect(await store.delete(id)).toBe(false);
    }
    expect(await readFile(path.join(dir, 'outside.json'), 'utf8')).toBe('{}');
  });

  it('refuses a session directory that is a symlink out of the store', async () => {
    const store = open();
    const id = await sessionWith(store, 1);
    const elsewhere = await mkdtemp(path.join(tmpdir(), 'conclave-elsewhere-'));
    try {
      const other = createSessionId(1_760_000_000_000);
      await symlink(elsewhere, path.join(dir, 'sessions', other));
      await expect(store.getHeader(other)).rejects.toThrow(/symlink/);
      expect(await seqs(store, id)).toEqual([1]);
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  });

  it('follows a data home that is a symlink to a directory (the user chose it)', async () => {
    const store = open();
    const id = await sessionWith(store, 2);
    await store.close();
    const linkedHome = path.join(await mkdtemp(path.join(tmpdir(), 'conclave-linked-home-')), 'home');
    try {
      await symlink(dir, linkedHome);
      const linked = open({ dir: linkedHome });
      expect((await linked.list()).map((summary) => summary.id)).toEqual([id]);
      expect(await seqs(linked, id)).toEqual([1, 2]);
    } finally {
      await rm(path.dirname(linkedHome), { recursive: true, force: true });
    }
  });

  it('cuts a torn tail when the lease is taken, keeping the cut bytes aside', async () => {
    const store = open();
    const id = await sessionWith(store, 3);
    await store.close();
    const full = await readFile(journalPath(id));
    await truncate(journalPath(id), full.length - 10);
    const reopened = open();
    expect(await seqs(reopened, id)).toEqual([1, 2]); // readers skip the torn record without touching the file
    const lease = await reopened.acquireLease(id, { holder: { pid: process.pid, host: 'test' } });
    const aside = (await readdir(path.join(dir, 'sessions', id))).filter((name) => name.includes('.torn-'));
    expect(aside).toHaveLength(1);
    const kept = await readFile(journalPath(id));
    const cut = await readFile(path.join(dir, 'sessions', id, aside[0] ?? ''));
    expect(Buffer.concat([kept, cut])).toEqual(full.subarray(0, full.length - 10));
    await reopened.append(id, {
      expectedSeq: 2,
      epoch: lease.epoch,
      events: [messageEvent(3)],
      summary: testSummary(id, 3),
    });
    expect(await seqs(reopened, id)).toEqual([1, 2, 3]);
    await lease.release();
  });

  it('reports damage in the middle with file and offset, and repair salvages the valid prefix', async () => {
    const store = open();
    const id = await sessionWith(store, 4);
    const bytes = await readFile(journalPath(id));
    const secondLine = bytes.indexOf(0x0a) + 1;
    const damaged = Buffer.from(bytes);
    damaged[secondLine + 40] = (damaged[secondLine + 40] ?? 0) ^ 0x08;
    await writeFile(journalPath(id), damaged);
    const reopened = open();
    const error = await seqs(reopened, id).catch((caught: unknown) => caught);
    expect(JournalCorruptedError.isInstance(error)).toBe(true);
    if (JournalCorruptedError.isInstance(error)) {
      expect(error.file).toBe(journalPath(id));
      expect(error.offset).toBe(secondLine);
      expect(error.sessionId).toBe(id);
    }
    const report = await reopened.repair(id);
    expect(report).toMatchObject({ sessionId: id, keptSeq: 1, removedBytes: bytes.length - secondLine });
    // The whole journal as it was is kept aside before anything is removed.
    expect(await readFile(report.savedTo ?? '')).toEqual(damaged);
    expect(await seqs(reopened, id)).toEqual([1]);
    expect((await reopened.repair(id)).removedBytes).toBe(0);
    // The repair held the lease while it worked: a writer from before it is fenced off, a new one appends.
    const stale = reopened.append(id, {
      expectedSeq: 1,
      epoch: 0,
      events: [messageEvent(2)],
      summary: testSummary(id, 2),
    });
    await expect(stale).rejects.toThrow(/taken over/);
    const lease = await reopened.acquireLease(id, { holder: { pid: process.pid, host: 'here' } });
    await reopened.append(id, {
      expectedSeq: 1,
      epoch: lease.epoch,
      events: [messageEvent(2)],
      summary: testSummary(id, 2),
    });
    await lease.release();
    expect(await seqs(reopened, id)).toEqual([1, 2]);
  });

  it('repairs a journal emptied under a snapshot that kept no listing summary: the state stays, listed from its header', async () => {
    const id = await sessionWith(open(), 4);
    const store = open();
    const header = await store.getHeader(id);
    // Taken by a store that did not write the journal's last batch, as snapshots were before they kept a summary.
    await store.putSnapshot(id, { seq: 4, formatVersion: 5, state: { header, lastSeq: 4, messages: [] } });
    await writeFile(journalPath(id), '');
    const report = await store.repair(id);
    expect(report).toMatchObject({ keptSeq: 4, droppedEvents: null, savedTo: null });
    expect(report.actions).toContainEqual(
      expect.stringContaining('events 2..3 themselves are recorded as lost, event 4 as restored from the snapshot'),
    );
    expect(report.actions).toContainEqual(expect.stringContaining('the snapshot kept no listing summary'));
    expect((await store.verify(id)).problems).toEqual([]);
    expect(await store.getSummary(id)).toMatchObject({ id, title: header?.title, lastSeq: 4 });
    const fromSnapshot = [];
    for await (const event of store.read(id, { fromSeq: 4 })) fromSnapshot.push(event);
    expect(fromSnapshot).toEqual([expect.objectContaining({ seq: 4, type: 'data-set', key: 'restoredFromSnapshot' })]);
    // Reading the lost events themselves is refused, never guessed.
    await expect(seqs(store, id)).rejects.toThrow(/events 2\.\.3 were lost to damage/);
  });

  it('archives with gzip, reads transparently, and un-archives on append', async () => {
    const store = open();
    const id = await sessionWith(store, 3);
    await store.putSnapshot(id, { seq: 3, formatVersion: 1, state: { done: true } });
    await store.archive(id);
    const files = await readdir(path.join(dir, 'sessions', id));
    expect(files).toContain('journal.jsonl.gz');
    expect(files).not.toContain('journal.jsonl');
    expect(files).toContain('snapshot.bin.gz');
    const reopened = open();
    expect(await seqs(reopened, id)).toEqual([1, 2, 3]);
    expect(await reopened.getSnapshot(id)).toEqual({ seq: 3, formatVersion: 1, state: { done: true } });
    expect((await reopened.getSummary(id))?.archived).toBe(true);
    expect((await reopened.list())[0]).toMatchObject({ id, archived: true });
    await reopened.append(id, { expectedSeq: 3, epoch: 0, events: [messageEvent(4)], summary: testSummary(id, 4) });
    expect(await readdir(path.join(dir, 'sessions', id))).toContain('journal.jsonl');
    expect(await seqs(reopened, id)).toEqual([1, 2, 3, 4]);
    expect((await reopened.getSummary(id))?.archived).toBe(false);
  });

  it('stops writing for good after an fsync fails', async () => {
    const real = createNodeFileSystem();
    let failSync = false;
    const failing: FileSystem = {
      ...real,
      async openAppend(target) {
        const file = await real.openAppend(target);
        const eio = () => Promise.reject(Object.assign(new Error('EIO'), { code: 'EIO' }));
        // Journals are written durably (O_DSYNC): a failed flush shows up on the write itself.
        return {
          ...file,
          write: (data: Uint8Array) => (failSync && file.durableWrites ? eio() : file.write(data)),
          writeNow: (data: Uint8Array) => {
            if (failSync && file.durableWrites) throw Object.assign(new Error('EIO'), { code: 'EIO' });
            file.writeNow?.(data);
          },
          datasync: () => (failSync ? eio() : file.datasync()),
        };
      },
    };
    const store = open({ fileSystem: failing });
    const id = await sessionWith(store, 1);
    failSync = true;
    const append = (seq: number) =>
      store.append(id, { expectedSeq: seq - 1, epoch: 0, events: [messageEvent(seq)], summary: testSummary(id, seq) });
    const first = await append(2).catch((error: unknown) => error);
    expect(StoreIoError.isInstance(first)).toBe(true);
    failSync = false;
    for (const attempt of [append(2), append(3), store.putBlob(new Uint8Array([1])), sessionWith(store, 0)]) {
      expect(StoreIoError.isInstance(await attempt.catch((error: unknown) => error))).toBe(true);
    }
  });

  it('lists from its index without reading journals, and rebuilds a lost or damaged index', async () => {
    const store = open();
    const ids = [await sessionWith(store, 2), await sessionWith(store, 3)];
    await store.close();
    const real = createNodeFileSystem();
    const journalReads: string[] = [];
    const counting: FileSystem = {
      ...real,
      readFile: (target) => {
        if (target.includes('journal')) journalReads.push(target);
        return real.readFile(target);
      },
      readRange: (target, position, length) => {
        if (target.includes('journal')) journalReads.push(target);
        return real.readRange(target, position, length);
      },
    };
    const listing = open({ fileSystem: counting });
    expect((await listing.list()).map((item) => item.lastSeq).sort()).toEqual([2, 3]);
    expect(journalReads).toEqual([]);

    await writeFile(path.join(dir, 'index', 'summaries.json'), 'garbage');
    expect((await open().list()).map((item) => item.id).sort()).toEqual([...ids].sort());
    await rm(path.join(dir, 'index', 'summaries.json'));
    await appendFile(journalPath(ids[0] ?? ''), '{"crc":"torn');
    const rebuilt = await open().list();
    expect(rebuilt.find((item) => item.id === ids[0])?.lastSeq).toBe(2);
    expect(rebuilt).toHaveLength(2);
  });

  it('lists with one status call per session (its journal), and still never lists a linked folder', async () => {
    const store = open();
    const ids = [await sessionWith(store, 2), await sessionWith(store, 3)];
    await store.close();
    const outside = await mkdtemp(path.join(tmpdir(), 'conclave-outside-'));
    await cp(path.join(dir, 'sessions', ids[1] ?? ''), path.join(outside, 'copy'), { recursive: true });
    const linkedId = '0001zzzzzzzzzzzzzzzzzz';
    await symlink(path.join(outside, 'copy'), path.join(dir, 'sessions', linkedId));
    const real = createNodeFileSystem();
    const statuses: string[] = [];
    const counting: FileSystem = {
      ...real,
      status: (target) => {
        statuses.push(target);
        return real.status(target);
      },
      statusNow: (target) => {
        statuses.push(target);
        return real.statusNow?.(target) ?? null;
      },
    };
    const listing = open({ fileSystem: counting });
    await listing.list();
    statuses.length = 0;
    const listed = await listing.list();
    expect(listed.map((item) => item.id).sort()).toEqual([...ids].sort());
    expect(statuses.filter((target) => target.includes(`${path.sep}sessions${path.sep}`)).sort()).toEqual(
      ids.map((id) => path.join(dir, 'sessions', id, 'journal.jsonl')).sort(),
    );
    await rm(outside, { recursive: true, force: true });
  });

  it('sees a session appended by another store instance', async () => {
    const writer = open();
    const lister = open();
    const id = await sessionWith(writer, 1);
    expect((await lister.list()).map((item) => item.id)).toEqual([id]);
    await writer.append(id, { expectedSeq: 1, epoch: 0, events: [messageEvent(2)], summary: testSummary(id, 2) });
    expect((await lister.getSummary(id))?.lastSeq).toBe(2);
    expect((await lister.list())[0]?.lastSeq).toBe(2);
    // The other instance's cached writer notices the journal moved on.
    await lister.append(id, { expectedSeq: 2, epoch: 0, events: [messageEvent(3)], summary: testSummary(id, 3) });
    await writer.append(id, { expectedSeq: 3, epoch: 0, events: [messageEvent(4)], summary: testSummary(id, 4) });
    expect(await seqs(writer, id)).toEqual([1, 2, 3, 4]);
  });
});

describe('file store leases', () => {
  const probe = (overrides: Partial<ProcessProbe>): ProcessProbe => ({
    hostname: 'this-host',
    bootId: 'boot-1',
    isRunning: () => true,
    startTime: () => '100',
    ...overrides,
  });

  it('answers not found when the session is removed while its lease is being taken', async () => {
    const real = createNodeFileSystem();
    let removeFirst: string | null = null;
    // Another process removes the session between this store's look at it and its lease file.
    const racing: FileSystem = {
      ...real,
      link: async (from, to) => {
        if (removeFirst) await rm(removeFirst, { recursive: true, force: true });
        return real.link(from, to);
      },
    };
    const store = open({ fileSystem: racing });
    const id = await sessionWith(store, 1);
    removeFirst = path.join(dir, 'sessions', id);
    const refusal = await store
      .acquireLease(id, { holder: { pid: process.pid, host: 'this-host' } })
      .catch((error) => error);
    expect(SessionNotFoundError.isInstance(refusal)).toBe(true);
  });

  it('takes over a holder whose process is gone, and fences it', async () => {
    let running = true;
    const store = open({ processProbe: probe({ isRunning: () => running }) });
    const id = await sessionWith(store, 1);
    const dead = await store.acquireLease(id, { holder: { pid: 4242, host: 'this-host' } });
    await expect(store.acquireLease(id, { holder: { pid: 5151, host: 'this-host' } })).rejects.toThrow(
      /in use by pid 4242 on host this-host since 2025-06-01T12:00:00.000Z/,
    );
    running = false;
    expect(await store.inspectLease(id)).toBeNull();
    const next = await store.acquireLease(id, { holder: { pid: 5151, host: 'this-host' } });
    expect(next.epoch).toBe(dead.epoch + 1);
    const stale = store.append(id, {
      expectedSeq: 1,
      epoch: dead.epoch,
      events: [messageEvent(2)],
      summary: testSummary(id, 2),
    });
    expect(LeaseLostError.isInstance(await stale.catch((error: unknown) => error))).toBe(true);
  });

  it('takes over a holder whose pid now belongs to another process, or that ran before a reboot', async () => {
    let startTime = '100';
    let bootId = 'boot-1';
    const store = open({
      processProbe: {
        ...probe({}),
        startTime: () => startTime,
        get bootId() {
          return bootId;
        },
      },
    });
    const id = await sessionWith(store, 1);
    await store.acquireLease(id, { holder: { pid: 4242, host: 'this-host' } });
    startTime = '200';
    const second = await store.acquireLease(id, { holder: { pid: 4242, host: 'this-host' } });
    bootId = 'boot-2';
    const third = await store.acquireLease(id, { holder: { pid: 4242, host: 'this-host' } });
    expect(third.epoch).toBe(second.epoch + 1);
  });

  it('never takes over a live holder, nor one on another host', async () => {
    const store = open({ processProbe: probe({ isRunning: () => false }) });
    const id = await sessionWith(store, 1);
    await store.acquireLease(id, { holder: { pid: 4242, host: 'other-host' } });
    const error = await store
      .acquireLease(id, { holder: { pid: 1, host: 'this-host' } })
      .catch((caught: unknown) => caught);
    expect(SessionLockedError.isInstance(error)).toBe(true);
    expect(await store.inspectLease(id)).toMatchObject({ pid: 4242, host: 'other-host' });
  });
});
