// `sessions encrypt` killed at random moments by a real SIGKILL: the session always reads back,
// whole, in its old form or its new one (docs/encryption.md#rotation).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createEngine } from '@resume/core';
import { generateDataKey } from '@resume/core/encryption';
import { type BundledChild, bundleChild, exited, onLines } from '@resume/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFsStore } from './fs-store.js';

const KILLS = process.env.CONCLAVE_STRESS === '1' ? 200 : 16;

let runner: BundledChild;
let dir: string;
const key = generateDataKey();
const keyring = { keys: { [key.id]: key.key }, current: key.id };

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'conclave-encrypt-crash-'));
  runner = await bundleChild(new URL('./__fixtures__/encrypt-runner.ts', import.meta.url));
});
afterAll(async () => {
  await Promise.all([runner?.remove(), rm(dir, { recursive: true, force: true })]);
});

async function plainSession(): Promise<{ id: string; messages: string[] }> {
  const store = createFsStore({ dir });
  const engine = createEngine({ store, snapshotEvery: 40 });
  const session = await engine.createSession({ title: 'to be sealed', mode: 'custom' });
  for (let index = 0; index < 120; index += 1) {
    session.addMessage({ role: 'user', content: `message ${index} ${'text '.repeat(40)}` });
    if (index % 3 === 0) await session.checkpoint();
  }
  await session.close();
  const messages = (await engine.readSession(session.id)).messages.map((message) => message.content);
  await engine.close();
  return { id: session.id, messages };
}

describe('sessions encrypt under SIGKILL', () => {
  it(`leaves every session readable, whole, across ${KILLS} kills at random moments`, {
    timeout: 300_000,
  }, async () => {
    let completed = 0;
    for (let kill = 0; kill < KILLS; kill += 1) {
      const { id, messages } = await plainSession();
      const child = runner.spawn([dir, id, Buffer.from(key.key).toString('base64')]);
      let done = false;
      await new Promise<void>((resolve) => {
        onLines(child.stdout, (line) => {
          if (line === 'ready') setTimeout(resolve, Math.random() * 40);
          if (line === 'done') done = true;
        });
        child.once('exit', () => resolve());
      });
      child.kill('SIGKILL');
      await exited(child);
      if (done) completed += 1;
      const store = createFsStore({ dir, encryption: keyring });
      const engine = createEngine({ store });
      expect((await engine.readSession(id)).messages.map((message) => message.content)).toEqual(messages);
      expect((await store.verify(id)).problems).toEqual([]);
      // A conversion cut short is finished by running it again.
      await store.encrypt(id);
      expect(await store.keysOf(id)).toEqual([key.id]);
      expect((await engine.readSession(id)).messages.map((message) => message.content)).toEqual(messages);
      await engine.close();
    }
    expect(completed).toBeLessThan(KILLS);
  });
});
