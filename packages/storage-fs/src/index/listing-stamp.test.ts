// The listing index trusted by its stamp: a listing of a sessions folder that has not changed
// since the index was checked makes no status call per session, and still never shows a
// summary older than the journal: writers announce themselves in the sessions folder.
// The stores here stamp a folder unchanged for 50 ms (`listingSettleMs`, more than the file
// clock's tick), where a user's listing waits for it to settle for 2 s (the last test).
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { messageEvent, testHeader, testSummary } from '@resume/core/testing';
import { untilChangeIsOlderThan } from '@resume/test-support';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createNodeFileSystem, type FileSystem } from '../file-system/file-system.js';
import { createFsStore, type FsStore } from '../fs-store.js';

let dir: string;
const stores: FsStore[] = [];

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'conclave-listing-stamp-'));
});
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  await rm(dir, { recursive: true, force: true });
});

const SETTLE_MS = 50;

/**
 * A store whose status calls inside the sessions folder are recorded in `statuses`; it stamps the
 * folder once unchanged for SETTLE_MS, or for the default settle time (null).
 */
function open(statuses: string[] = [], listingSettleMs: number | null = SETTLE_MS): FsStore {
  const real = createNodeFileSystem();
  const inSessions = (target: string) => target.startsWith(path.join(dir, 'sessions') + path.sep);
  const counting: FileSystem = {
    ...real,
    status: (target) => {
      if (inSessions(target)) statuses.push(target);
      return real.status(target);
    },
    statusNow: (target) => {
      if (inSessions(target)) statuses.push(target);
      return real.statusNow?.(target) ?? null;
    },
  };
  const store = createFsStore({
    dir,
    fileSystem: counting,
    ...(listingSettleMs === null ? {} : { listingSettleMs }),
  });
  stores.push(store);
  return store;
}

const holder = { pid: process.pid, host: 'here' };

async function createSession(store: FsStore, events: number): Promise<string> {
  const header = testHeader();
  await store.create(header);
  const lease = await store.acquireLease(header.id, { holder });
  for (let seq = 1; seq <= events; seq += 1) {
    await store.append(header.id, {
      expectedSeq: seq - 1,
      epoch: lease.epoch,
      events: [messageEvent(seq)],
      summary: testSummary(header, seq),
    });
  }
  await lease.release();
  return header.id;
}

/** Waits until the sessions folder's last change is old enough to be stamped. */
const settle = () => untilChangeIsOlderThan(path.join(dir, 'sessions'), SETTLE_MS);

const lastSeqs = async (store: FsStore) =>
  Object.fromEntries((await store.list()).map((summary) => [summary.id, summary.lastSeq]));

describe('listing index stamp', () => {
  it('lists an unchanged store without a status call per session, and sees what a writer did since', async () => {
    const setup = open();
    const ids = [await createSession(setup, 2), await createSession(setup, 3), await createSession(setup, 1)];
    await setup.close();
    await settle();
    // The first listing checks every session and stamps the index.
    await open().list();

    const statuses: string[] = [];
    expect(await lastSeqs(open(statuses))).toEqual({ [ids[0] ?? '']: 2, [ids[1] ?? '']: 3, [ids[2] ?? '']: 1 });
    expect(statuses).toEqual([]);

    // Another instance writes a session (as another process would): every later listing shows it.
    const writer = open();
    const id = ids[1] ?? '';
    const lease = await writer.acquireLease(id, { holder });
    await writer.append(id, {
      expectedSeq: 3,
      epoch: lease.epoch,
      events: [messageEvent(4)],
      summary: testSummary(id, 4),
    });
    expect((await lastSeqs(open()))[id]).toBe(4);
    await writer.append(id, {
      expectedSeq: 4,
      epoch: lease.epoch,
      events: [messageEvent(5)],
      summary: testSummary(id, 5),
    });
    expect((await lastSeqs(open()))[id]).toBe(5);
    await lease.release();
    expect((await lastSeqs(open()))[id]).toBe(5);
    // A new session and a deleted one are seen at once, stamp or not.
    const added = await createSession(writer, 1);
    await writer.delete(ids[0] ?? '');
    expect(Object.keys(await lastSeqs(open())).sort()).toEqual([added, ids[1], ids[2]].sort());
  });

  it('checks again, on every listing, a session whose writer was at work when the index was stamped', async () => {
    const setup = open();
    const [quiet, busy] = [await createSession(setup, 1), await createSession(setup, 1)];
    const lease = await setup.acquireLease(busy ?? '', { holder });
    await setup.append(busy ?? '', {
      expectedSeq: 1,
      epoch: lease.epoch,
      events: [messageEvent(2)],
      summary: testSummary(busy ?? '', 2),
    });
    await settle();
    expect((await lastSeqs(open()))[busy ?? '']).toBe(2);

    // The writer goes on without touching the sessions folder: only its session is checked again.
    await setup.append(busy ?? '', {
      expectedSeq: 2,
      epoch: lease.epoch,
      events: [messageEvent(3)],
      summary: testSummary(busy ?? '', 3),
    });
    const statuses: string[] = [];
    expect(await lastSeqs(open(statuses))).toEqual({ [quiet ?? '']: 1, [busy ?? '']: 3 });
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.every((target) => target.includes(busy ?? ''))).toBe(true);
    await lease.release();
    expect((await readdir(path.join(dir, 'sessions'))).filter((name) => name.startsWith('.'))).toEqual([]);
  });

  it('falls back to checking every session when the index is damaged or from another build, and stamps it again', async () => {
    const setup = open();
    const ids = [await createSession(setup, 2), await createSession(setup, 1)];
    await setup.close();
    await settle();
    await open().list();
    const indexFile = path.join(dir, 'index', 'summaries.json');
    const stamped = await readFile(indexFile, 'utf8');
    expect(stamped).toContain('"stamp":{');

    // Damaged: rebuilt from the journals, every session checked, and stamped again.
    await writeFile(indexFile, stamped.replace('"lastSeq":2', '"lastSeq":7'));
    const statuses: string[] = [];
    expect(await lastSeqs(open(statuses))).toEqual({ [ids[0] ?? '']: 2, [ids[1] ?? '']: 1 });
    expect(statuses.length).toBeGreaterThanOrEqual(2);
    expect(await readFile(indexFile, 'utf8')).toContain('"stamp":{');

    // An index without a stamp (an earlier build's) is checked session by session.
    await writeFile(indexFile, 'garbage');
    const again: string[] = [];
    expect(await lastSeqs(open(again))).toEqual({ [ids[0] ?? '']: 2, [ids[1] ?? '']: 1 });
    expect(again.length).toBeGreaterThanOrEqual(2);
    const trusted: string[] = [];
    expect(await lastSeqs(open(trusted))).toEqual({ [ids[0] ?? '']: 2, [ids[1] ?? '']: 1 });
    expect(trusted).toEqual([]);
  });

  it('never stamps a sessions folder that changed less than 2 s before the check', async () => {
    const setup = open();
    const id = await createSession(setup, 1);
    await setup.close();
    await settle();
    await open([], null).list();
    const statuses: string[] = [];
    await open(statuses, null).list();
    // Still checked session by session: the folder's time could hide a change in the same tick.
    expect(statuses).toContain(path.join(dir, 'sessions', id, 'journal.jsonl'));
  });
});
