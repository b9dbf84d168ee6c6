// Encryption at rest in the file store: what reaches the disk, what a store without the key
// can still tell, and tampering handled as damage (docs/encryption.md).
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { createEngine, EncryptionKeyUnavailableError, JournalCorruptedError } from '@resume/core';
import { createKeyring, generateDataKey } from '@resume/core/encryption';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFsStore, type FsStore, type FsStoreOptions } from './fs-store.js';
import { readStampedListing } from './listing.js';

const key = generateDataKey();
const keys = { keys: { [key.id]: key.key }, current: key.id };
const secrets = ['Operation Nightingale', 'The launch code is 0451', 'quartz-harbor-tool-output'];

let dir: string;
const stores: FsStore[] = [];

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'conclave-encrypted-'));
});
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  await rm(dir, { recursive: true, force: true });
});

function open(options: Partial<FsStoreOptions> = {}): FsStore {
  const store = createFsStore({ dir, listingSettleMs: 20, ...options });
  stores.push(store);
  return store;
}

/** A session with a title, a task, messages, a large step output (a blob) and snapshots. */
async function writeSession(store: FsStore, title = secrets[0] as string, snapshotEvery = 2): Promise<string> {
  const engine = createEngine({ store, snapshotEvery, blobThreshold: 64 });
  const session = await engine.createSession({ title, mode: 'custom' });
  session.addMessage({ role: 'user', content: secrets[1] as string });
  await session.checkpoint('asked');
  await session.step('tool', async () => `${secrets[2]} ${'x'.repeat(200)}`);
  for (let round = 1; round <= 4; round += 1) {
    session.addMessage({ role: 'assistant', content: `${secrets[1]} (round ${round})` });
    await session.checkpoint(`round ${round}`);
  }
  await session.close();
  return session.id;
}

async function everyFile(root: string): Promise<string[]> {
  const entries = await readdir(root, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
}

/** The files under the home holding `text` (as UTF-8, or as JSON escapes it). */
async function filesHolding(text: string): Promise<string[]> {
  const found: string[] = [];
  for (const file of await everyFile(dir)) {
    if ((await readFile(file)).includes(text)) found.push(path.relative(dir, file));
  }
  return found;
}

const journalOf = (id: string) => path.join(dir, 'sessions', id, 'journal.jsonl');

/** Rewrites the journal's lines with `change`, each line's crc made to fit again (as a forger would). */
async function forgeJournal(id: string, change: (records: Record<string, unknown>[]) => void): Promise<void> {
  const lines = (await readFile(journalOf(id), 'utf8')).trimEnd().split('\n');
  const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  change(records);
  const framed = records.map(({ crc: _crc, ...record }) => {
    const body = JSON.stringify(record).slice(1);
    return `{"crc":"${crc32(Buffer.from(body)).toString(16).padStart(8, '0')}",${body}`;
  });
  await writeFile(journalOf(id), `${framed.join('\n')}\n`);
}

async function contentOf(store: FsStore, id: string): Promise<string[]> {
  const state = await createEngine({ store }).readSession(id);
  return state.messages.map((message) => message.content);
}

describe('an encrypted file store', () => {
  it('writes no title, task, message or tool output in the clear, and reads them all back with the key', async () => {
    const id = await writeSession(open({ encryption: keys }));
    await stores.splice(0)[0]?.close();
    for (const secret of secrets) expect(await filesHolding(secret)).toEqual([]);

    const store = open({ encryption: keys });
    expect(await contentOf(store, id)).toContain(secrets[1]);
    const inOrder: unknown[] = [];
    for await (const event of store.read(id)) inOrder.push(event);
    const newestFirst: unknown[] = [];
    for await (const batch of store.readNewestFirst(id)) newestFirst.unshift(...batch);
    expect(newestFirst).toEqual(inOrder);
    const [listed] = await store.list();
    expect(listed).toMatchObject({ id, title: secrets[0], task: secrets[1] });
    const header = await store.getHeader(id);
    expect(header?.title).toBe(secrets[0]);
    const [blob] = (await everyFile(path.join(dir, 'blobs'))).map(
      (file) => path.basename(path.dirname(file)) + path.basename(file),
    );
    expect(Buffer.from((await store.getBlob(blob ?? '')) ?? []).toString('utf8')).toContain(secrets[2]);
  });

  it('every record names its key, and an older key still reads after a new one became current', async () => {
    const id = await writeSession(open({ encryption: keys }));
    for (const line of (await readFile(journalOf(id), 'utf8')).trimEnd().split('\n')) {
      expect(JSON.parse(line)).toMatchObject({ key: key.id, sealed: expect.any(String) });
    }
    const next = generateDataKey();
    const rotated = open({ encryption: { keys: { [key.id]: key.key, [next.id]: next.key }, current: next.id } });
    const later = await writeSession(rotated, 'after the rotation');
    expect(await contentOf(rotated, id)).toContain(secrets[1]);
    expect(JSON.parse((await readFile(journalOf(later), 'utf8')).split('\n')[0] ?? '')).toMatchObject({ key: next.id });
  });

  it('one store whose keyring rotates seals the next record with the new key at once, and no longer opens with a retired one', async () => {
    // A keyring over a secrets manager: the current key changes under a running store.
    const next = generateDataKey();
    const held = new Map([[key.id, { id: key.id, key: key.key }]]);
    let current = key.id;
    const store = open({ encryption: { current: () => held.get(current) ?? null, get: (id) => held.get(id) ?? null } });
    const engine = createEngine({ store });
    const session = await engine.createSession({ title: secrets[0] as string, mode: 'custom' });
    session.addMessage({ role: 'user', content: 'before the rotation' });
    await session.checkpoint('before');
    held.set(next.id, { id: next.id, key: next.key });
    current = next.id;
    session.addMessage({ role: 'user', content: 'after the rotation' });
    await session.checkpoint('after');
    await session.close();
    const records = (await readFile(journalOf(session.id), 'utf8'))
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { key: string });
    expect(records[0]?.key).toBe(key.id);
    expect(records.at(-1)?.key).toBe(next.id);
    expect(await contentOf(store, session.id)).toContain('after the rotation');

    held.delete(key.id);
    const refused = await contentOf(store, session.id).catch((error: unknown) => error);
    expect(EncryptionKeyUnavailableError.isInstance(refused)).toBe(true);
    expect(String(refused)).toContain(key.id);
  });

  it('a large snapshot opens back whole, and one with a changed byte is ignored for the journal', async () => {
    const store = open({ encryption: keys });
    const engine = createEngine({ store, snapshotEvery: 50 });
    const session = await engine.createSession({ title: 'large', mode: 'custom' });
    for (let index = 0; index < 100; index += 1) {
      session.addMessage({ role: 'assistant', content: `message ${index} ${'quartz '.repeat(2_000)}` });
      await session.checkpoint();
    }
    await session.close();
    const snapshot = path.join(dir, 'sessions', session.id, 'snapshot.bin');
    const expected = await contentOf(open({ encryption: keys }), session.id);
    expect(expected).toHaveLength(100);
    expect(expected.at(-1)).toMatch(/^message 99 quartz/);

    const bytes = await readFile(snapshot);
    expect(bytes.length).toBeGreaterThan(1_000_000);
    expect(bytes.includes('quartz')).toBe(false);
    const at = bytes.length - 100_000;
    bytes.writeUInt8((bytes.readUInt8(at) ^ 1) & 0xff, at);
    await writeFile(snapshot, bytes);
    expect(await contentOf(open({ encryption: keys }), session.id)).toEqual(expected);
  });

  it('without the key a session lists as encrypted with its id and dates, and reading it names the key; nothing changes', async () => {
    const id = await writeSession(open({ encryption: keys }));
    await stores.splice(0)[0]?.close();
    const contents = async () => {
      const files = await everyFile(path.join(dir, 'sessions'));
      return Object.fromEntries(
        await Promise.all(files.map(async (file) => [file, (await readFile(file)).toString('base64')])),
      );
    };
    const before = await contents();

    const keyless = open();
    const [listed] = await keyless.list();
    expect(listed).toMatchObject({ id, locked: { key: key.id }, createdAt: expect.any(String) });
    expect(JSON.stringify(listed)).not.toContain(secrets[0]);
    const refused = await contentOf(keyless, id).catch((error: unknown) => error);
    expect(EncryptionKeyUnavailableError.isInstance(refused)).toBe(true);
    expect((refused as Error).message).toContain(key.id);
    await expect(keyless.getHeader(id)).rejects.toThrow(key.id);
    await expect(keyless.repair(id)).rejects.toThrow(key.id);
    expect(await contents()).toEqual(before);

    await keyless.close();
    const [withKey] = await open({ encryption: keys }).list();
    expect(withKey).toMatchObject({ id, title: secrets[0] });
    expect(withKey?.locked).toBeUndefined();
  });

  it('a changed byte in a sealed record is damage: reported with file and offset, repaired to the longest valid prefix', async () => {
    // No snapshot: nothing but the journal holds the events after the damage.
    const id = await writeSession(open({ encryption: keys }), secrets[0], 1000);
    await forgeJournal(id, (records) => {
      const record = records[2] as { sealed: string };
      const bytes = Buffer.from(record.sealed, 'base64');
      bytes[20] = (bytes[20] as number) ^ 0x01;
      record.sealed = bytes.toString('base64');
    });
    const store = open({ encryption: keys });
    const damaged = await contentOf(store, id).catch((error: unknown) => error);
    expect(JournalCorruptedError.isInstance(damaged)).toBe(true);
    expect(damaged).toMatchObject({ file: journalOf(id), problem: expect.stringMatching(/failed its authentication/) });
    expect((damaged as JournalCorruptedError).offset).toBeGreaterThan(0);
    const report = await store.verify(id);
    expect(report.problems[0]).toMatchObject({
      file: journalOf(id),
      problem: expect.stringMatching(/failed its authentication/),
    });
    expect(report.problems[0]?.offset).toBeGreaterThan(0);
    await store.repair(id);
    expect((await store.verify(id)).problems).toEqual([]);
    expect(await contentOf(store, id)).toEqual([secrets[1]]);
  });

  it('a record moved from another session, or two records swapped, fail as damage', async () => {
    const store = open({ encryption: keys });
    const first = await writeSession(store);
    const second = await writeSession(store, 'another');
    const secondRecords = (await readFile(journalOf(second), 'utf8'))
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    await forgeJournal(first, (records) => {
      // Same seq range, same key: only the session differs.
      records[1] = { ...secondRecords[1] };
    });
    expect((await store.verify(first)).problems[0]?.problem).toMatch(/failed its authentication/);

    const third = await writeSession(store, 'a third');
    await forgeJournal(third, (records) => {
      const [a, b] = [records[3] as Record<string, unknown>, records[4] as Record<string, unknown>];
      [a.sealed, b.sealed] = [b.sealed, a.sealed];
    });
    const swapped = await contentOf(store, third).catch((error: unknown) => error);
    expect(JournalCorruptedError.isInstance(swapped)).toBe(true);
  });

  it('the quick listing leaves a sealed listing index to the store, which holds the key', async () => {
    const id = await writeSession(open({ encryption: keys }));
    const store = open({ encryption: keys });
    await store.list();
    await store.close();
    expect(await filesHolding(secrets[0] as string)).toEqual([]);
    expect(readStampedListing(dir)).toBeNull();
    const reopened = open({ encryption: keys });
    expect((await reopened.list()).map((summary) => [summary.id, summary.title])).toEqual([[id, secrets[0]]]);
    await reopened.close();
  });

  it('sessions written in the clear stay readable in an encrypted store', async () => {
    const id = await writeSession(open());
    expect(await contentOf(open({ encryption: keys }), id)).toContain(secrets[1]);
  });

  it('a keyring kept only for reading writes new sessions in the clear; an encrypted one goes on encrypted', async () => {
    const sealed = await writeSession(open({ encryption: keys }));
    const reading = open({ encryption: createKeyring({ keys: keys.keys }) });
    expect(await contentOf(reading, sealed)).toContain(secrets[1]);
    const engine = createEngine({ store: reading });
    const resumed = await engine.openSession(sealed, { replay: 'keyed' });
    resumed.addMessage({ role: 'user', content: 'a follow-up after encryption was turned off' });
    await resumed.close();
    expect(await filesHolding('a follow-up after encryption')).toEqual([]);
    expect(await contentOf(reading, sealed)).toContain('a follow-up after encryption was turned off');
    const plain = await writeSession(reading, 'written in the clear');
    expect((await filesHolding('written in the clear')).some((file) => file.includes(plain))).toBe(true);
  });

  it('sessions encrypt seals a session written in the clear; --rekey moves one to the current key; both read the same', async () => {
    const id = await writeSession(open());
    const before = await contentOf(open(), id);
    const store = open({ encryption: keys });
    expect(await store.keysOf(id)).toEqual([]);
    const report = await store.encrypt(id);
    expect(report).toMatchObject({ key: key.id, header: true, snapshot: true });
    expect(report.records).toBeGreaterThan(3);
    expect(await store.keysOf(id)).toEqual([key.id]);
    for (const secret of secrets.slice(0, 2)) {
      expect((await filesHolding(secret as string)).filter((file) => !file.startsWith('blobs'))).toEqual([]);
    }
    const reopened = open({ encryption: keys });
    expect(await contentOf(reopened, id)).toEqual(before);
    expect((await reopened.verify(id)).problems).toEqual([]);
    expect((await reopened.encrypt(id)).records).toBe(0);

    const next = generateDataKey();
    const rotated = open({ encryption: { keys: { [key.id]: key.key, [next.id]: next.key }, current: next.id } });
    expect((await rotated.encrypt(id)).records).toBe(0);
    expect(await rotated.keysOf(id)).toEqual([key.id]);
    await rotated.encrypt(id, { rekey: true });
    expect(await rotated.keysOf(id)).toEqual([next.id]);
    expect(await contentOf(open({ encryption: { keys: { [next.id]: next.key } } }), id)).toEqual(before);
  });
});
