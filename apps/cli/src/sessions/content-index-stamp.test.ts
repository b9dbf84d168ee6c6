// The content index over a file store, as the CLI opens it: while the sessions folder keeps the
// stamp the index last saw, a search neither lists the store nor reads a journal (counted through
// the store's API), and what it shows (snippets, rounds, titles) comes from the index.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createEngine, type Engine } from '@resume/core';
import type { SessionStore } from '@resume/core/spec';
import { openContentIndex } from '@resume/runner/search';
import { createFsStore } from '@resume/storage-fs';
import { sessionsStamp } from '@resume/storage-fs/listing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const SETTLE_MS = 30;

let home: string;
let engine: Engine;
let store: SessionStore;

beforeEach(async () => {
  home = await mkdtemp(path.join(tmpdir(), 'conclave-content-stamp-'));
  store = createFsStore({ dir: home });
  engine = createEngine({ store });
});

afterEach(async () => {
  await engine.close();
  await rm(home, { recursive: true, force: true });
});

async function sessionSaying(title: string, content: string): Promise<string> {
  const session = await engine.createSession({ title, mode: 'discussion' });
  session.addMessage({ role: 'user', content: `Plan ${title}.`, speaker: null });
  session.addMessage({ role: 'assistant', content, speaker: 'critic', round: 1 });
  await session.complete();
  await session.close();
  return session.id;
}

/** The index as a fresh process opens it, with what it asks of the store counted. */
async function openCounted() {
  const counts = { lists: 0, reads: 0 };
  const index = await openContentIndex({
    file: path.join(home, 'index', 'content.sqlite'),
    store: {
      list: (query) => {
        counts.lists += 1;
        return store.list(query);
      },
      read: (sessionId, range) => {
        counts.reads += 1;
        return store.read(sessionId, range);
      },
    },
    storeStamp: (previous) => sessionsStamp(home, previous, Date.now(), SETTLE_MS),
  });
  return { index, counts };
}

describe('content index over a file store', () => {
  it('answers from the index alone while nothing changed, and looks again after a change', async () => {
    const ledger = await sessionSaying('billing', 'The ledger needs an idempotent replay of every invoice.');
    await sessionSaying('tea shop', 'Open in spring, with a quokka corner.');
    await sleep(SETTLE_MS * 3);

    const first = await openCounted();
    const expected = await first.index.search('idempot');
    first.index.close();
    expect(first.counts.lists).toBe(1);
    expect(first.counts.reads).toBe(2);
    expect(expected).toMatchObject([{ sessionId: ledger, field: 'message', round: 1, speaker: 'critic' }]);

    const again = await openCounted();
    expect(await again.index.search('idempot')).toEqual(expected);
    expect((await again.index.search('billing'))[0]).toMatchObject({ sessionId: ledger, field: 'title' });
    expect(again.index.summary(ledger)?.title).toBe('billing');
    expect(again.index.positions([ledger])).toEqual(new Map([[ledger, 2]]));
    expect(again.index.sessionIds()).toHaveLength(2);
    expect(again.index.sessionIds()[1]).toBe(ledger);
    // The usage ledger too: every session's summary, from the index.
    expect(Array.from((await again.index.usage()).sessions.keys()).sort()).toEqual(again.index.sessionIds().sort());
    again.index.close();
    expect(again.counts).toEqual({ lists: 0, reads: 0 });

    // A new session: the folder's times move, the store is listed again and only the new journal read.
    const third = await sessionSaying('garden', 'Plant idempotent tomatoes.');
    const after = await openCounted();
    expect((await after.index.search('idempot')).map((hit) => hit.sessionId).sort()).toEqual([ledger, third].sort());
    after.index.close();
    expect(after.counts).toEqual({ lists: 1, reads: 1 });
  });
});
