// A home sealed by an earlier release (`__fixtures__/sealed-home-v1`, written with a fixed key)
// reads unchanged: its journal records, header, snapshot, blob and listing index open, and a
// session written on top of it reads back too. The seal's format is a promise to every home.
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEngine } from '@resume/core';
import { keyIdFor } from '@resume/core/encryption';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createFsStore, type FsStore } from './fs-store.js';

const fixture = fileURLToPath(new URL('./__fixtures__/sealed-home-v1', import.meta.url));
const key = Buffer.from('000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f', 'hex');
const keyId = keyIdFor(key);
const sessionId = '0001m8cm4vyk1wdyq6b11v';

let dir: string;
let store: FsStore | undefined;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'conclave-sealed-v1-'));
  await cp(fixture, dir, { recursive: true });
});
afterEach(async () => {
  await store?.close();
  await rm(dir, { recursive: true, force: true });
});

it('reads a home sealed by an earlier release: messages, title, the step output blob, the listing', async () => {
  expect(keyId).toBe('9681d99ee617');
  store = createFsStore({ dir, encryption: { keys: { [keyId]: key }, current: keyId }, listingSettleMs: 20 });
  expect(await store.verify(sessionId)).toMatchObject({ problems: [] });
  const engine = createEngine({ store });
  const state = await engine.readSession(sessionId);
  expect(state.header.title).toBe('Sealed before the cipher was reworked');
  expect(state.messages.map((message) => message.content)).toEqual([
    'What does the lighthouse keeper log?',
    'Round 1: the keeper logs the weather.',
    'Round 2: the keeper logs the weather.',
    'Round 3: the keeper logs the weather.',
  ]);
  const [blobFolder] = await readdir(path.join(dir, 'blobs'));
  const [blobFile] = await readdir(path.join(dir, 'blobs', blobFolder ?? ''));
  const blob = await store.getBlob(`${blobFolder}${blobFile}`);
  expect(Buffer.from(blob ?? []).toString('utf8')).toContain('lighthouse log');
  expect(await store.list()).toMatchObject([{ id: sessionId, title: 'Sealed before the cipher was reworked' }]);

  await engine.changeMetadata(sessionId, { addTags: ['written-now'] });
  const reread = await createEngine({ store }).readSession(sessionId);
  expect(reread.messages).toHaveLength(4);
  expect(await store.list()).toMatchObject([{ id: sessionId, tags: ['written-now'] }]);
  expect(await store.verify(sessionId)).toMatchObject({ problems: [] });
});
