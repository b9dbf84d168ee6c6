// A durable AI SDK session with encryption at rest, on the file store and on PostgreSQL: what
// the store keeps (the home's files, `pg_dump` of the database) holds none of the responses,
// tool results or the title in clear (prompts are journaled as their hash only), and a re-run
// after a SIGKILL returns the recorded responses from the sealed journal, calling the provider
// only for what was not durable yet.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEngine, createSessionId } from '@resume/core';
import { type DataKey, generateDataKey } from '@resume/core/encryption';
import type { SessionStore } from '@resume/core/spec';
import { createFsStore } from '@resume/storage-fs';
import { createPostgresStore } from '@resume/storage-postgres';
import {
  announceSkip,
  dumpData,
  findPostgres,
  type PostgresCluster,
  startPostgresCluster,
} from '@resume/storage-postgres/testing';
import { bundleForNode } from '@resume/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Outcome, runWorker } from './__fixtures__/worker-runs.js';

const CALLS = 6;
const postgres = findPostgres();
const skipped = announceSkip(postgres);

let directory: string;
let worker: string;
let cluster: PostgresCluster | null = null;
/** The same code in the clear, run once: what its journal holds, and the result to expect. */
let reference: { text: string; outcome: Outcome };
beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'conclave-ai-sdk-sealed-'));
  worker = path.join(directory, 'worker.mjs');
  await bundleForNode(fileURLToPath(new URL('./__fixtures__/durable-calls-worker.ts', import.meta.url)), worker);
  if (postgres.available) cluster = await startPostgresCluster(postgres);
  const home = path.join(directory, 'plain');
  const callLog = path.join(directory, 'plain.log');
  await writeFile(callLog, '');
  const outcome = await runWorker({ worker, home, id: createSessionId(), callLog, calls: CALLS }, null);
  reference = { text: await homeText(home), outcome };
}, 120_000);
afterAll(async () => {
  await cluster?.stop();
  await rm(directory, { recursive: true, force: true });
});

/** Every file under `home`, as one text. */
async function homeText(home: string): Promise<string> {
  const entries = await readdir(home, { withFileTypes: true, recursive: true });
  const files = entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
  return (await Promise.all(files.map((file) => readFile(file, 'latin1')))).join('\n');
}

const lines = async (file: string) => (await readFile(file, 'utf8')).split('\n').filter(Boolean);

/** Where the session is kept: the worker's store argument, what the store wrote, and the store itself. */
interface StoreUnderTest {
  home: string;
  schema?: string;
  storedText(): Promise<string>;
  open(key: DataKey): SessionStore;
}

/** Runs the session encrypted, kills it in its fourth call, runs it again, and checks what is kept. */
async function provesSealed(store: StoreUnderTest): Promise<void> {
  const words = ['answer-1-', 'answer-5-', 'noted ', 'durable AI SDK calls'];
  for (const word of words) expect({ word, inClear: reference.text.includes(word) }).toEqual({ word, inClear: true });

  const key = generateDataKey();
  const callLog = path.join(directory, `sealed-${randomBytes(4).toString('hex')}.log`);
  await writeFile(callLog, '');
  const run = {
    worker,
    home: store.home,
    ...(store.schema ? { schema: store.schema } : {}),
    id: createSessionId(),
    callLog,
    calls: CALLS,
    dataKey: Buffer.from(key.key).toString('hex'),
  };
  // Each call starts a model call, then the tool: the 7th start is the fourth call's model call.
  const killed = await runWorker(run, { afterStarts: 7, delayMs: 0 });
  expect(killed.killed).toBe(true);
  expect(killed.acked.length).toBeGreaterThanOrEqual(3);
  const before = (await lines(callLog)).length;

  const finished = await runWorker(run, null);
  expect(finished.done).toBe(reference.outcome.done);
  // The calls acknowledged before the kill came from the sealed journal, not from the provider.
  const made = (await lines(callLog)).slice(before);
  for (const call of killed.acked) expect(made.some((line) => line.startsWith(`model ${call} `))).toBe(false);

  const sealed = await store.storedText();
  for (const word of words) expect({ word, inClear: sealed.includes(word) }).toEqual({ word, inClear: false });
  // Every answer, generated or streamed (a stream's deltas are journaled as "-<hash>" parts).
  for (const answer of JSON.parse(finished.done ?? '[]') as string[]) {
    const text = answer.split('|')[0] ?? '';
    const hash = text.split('-').at(-1) ?? '';
    expect(reference.text.includes(text) || reference.text.includes(`-${hash}"`)).toBe(true);
    expect({ text, inClear: sealed.includes(text) || sealed.includes(`-${hash}"`) }).toEqual({ text, inClear: false });
  }

  const engine = createEngine({ store: store.open(key) });
  const state = await engine.readSession(run.id);
  await engine.close();
  expect(state.status).toBe('completed');
  expect(state.usageRecords).toHaveLength(CALLS);
}

const keyringOf = (key: DataKey) => ({ keys: { [key.id]: key.key }, current: key.id });

describe('a durable AI SDK session with encryption at rest', () => {
  it('on the file store: no response or tool result in clear; a re-run after SIGKILL replays the recorded responses', {
    timeout: 120_000,
  }, async () => {
    const home = path.join(directory, 'sealed');
    await provesSealed({
      home,
      storedText: () => homeText(home),
      open: (key) => createFsStore({ dir: home, encryption: keyringOf(key) }),
    });
  });

  it.skipIf(!postgres.available)(
    `on PostgreSQL: the same, in pg_dump of the database ${skipped}`,
    {
      timeout: 120_000,
    },
    async () => {
      const url = cluster?.url ?? '';
      const schema = `ai_sdk_${randomBytes(4).toString('hex')}`;
      await provesSealed({
        home: url,
        schema,
        storedText: () => dumpData(postgres, url, schema),
        open: (key) => createPostgresStore({ connectionString: url, schema, encryption: keyringOf(key) }),
      });
    },
  );
});
