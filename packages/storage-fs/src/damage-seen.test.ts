// Damage a reader finds in the middle of a journal (a changed byte: its size, and so the
// listing index, do not change) is recorded for listings: the session lists as damaged, in
// the store's listing and in the quick one, from the first read that found it until a repair.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { JournalCorruptedError } from '@resume/core/spec';
import { messageEvent, testHeader, testSummary } from '@resume/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFsStore, type FsStore } from './fs-store.js';
import { readStampedListing } from './listing.js';

let dir: string;
const stores: FsStore[] = [];

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'conclave-damage-seen-'));
});
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  await rm(dir, { recursive: true, force: true });
});

function open(): FsStore {
  const store = createFsStore({ dir, now: () => new Date('2025-06-01T12:00:00.000Z') });
  stores.push(store);
  return store;
}

/** A session of five batches, closed, with one byte changed in the middle of its journal. */
async function damagedInTheMiddle(): Promise<{ id: string; journal: string }> {
  const store = open();
  const header = testHeader();
  await store.create(header);
  for (let seq = 1; seq <= 5; seq += 1) {
    const batch = { expectedSeq: seq - 1, epoch: 0, events: [messageEvent(seq)], summary: testSummary(header, seq) };
    await store.append(header.id, batch);
  }
  expect((await store.list())[0]?.damage).toBeUndefined();
  await store.close();
  const journal = path.join(dir, 'sessions', header.id, 'journal.jsonl');
  const bytes = await readFile(journal);
  const middle = bytes.indexOf('message', Math.floor(bytes.length / 2));
  bytes[middle] = 'M'.charCodeAt(0);
  await writeFile(journal, bytes);
  return { id: header.id, journal };
}

async function readAll(store: FsStore, id: string): Promise<unknown> {
  try {
    for await (const _ of store.read(id));
    return null;
  } catch (error) {
    return error;
  }
}

describe('damage found by a reader', () => {
  it('lists the session as damaged after a read failed on it, until a repair', async () => {
    const { id, journal } = await damagedInTheMiddle();
    expect((await open().list())[0]?.damage).toBeUndefined();

    expect(JournalCorruptedError.isInstance(await readAll(open(), id))).toBe(true);
    const listed = (await open().list())[0];
    expect(listed?.damage?.file).toBe(journal);
    expect(listed?.damage?.problem).toMatch(/^checksum mismatch at byte \d+$/);
    expect(readStampedListing(dir)?.[0]?.damage).toEqual(listed?.damage);

    await open().repair(id);
    expect((await open().list())[0]?.damage).toBeUndefined();
    expect(readStampedListing(dir)?.[0]?.damage).toBeUndefined();
  });

  it('lists the session as damaged after verify found the damage', async () => {
    const { id, journal } = await damagedInTheMiddle();
    const report = await open().verify(id);
    expect(report.problems.length).toBeGreaterThan(0);
    const [first] = report.problems;
    expect(first?.file).toBe(journal);
    expect((await open().list())[0]?.damage).toEqual({
      problem: `${first?.problem} at byte ${first?.offset}`,
      file: journal,
    });
  });
});
