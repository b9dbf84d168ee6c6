// The content index over a file store, as the CLI opens it: while the sessions folder keeps the
// stamp the index last saw, a search neither lists the store nor reads a journal (counted through
// the store's API), and what it shows (snippets, rounds, titles) comes from the index.
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createEngine, type Engine } from '@resume/core';
import { createSessionId, type JournalEvent, type SessionStore } from '@resume/core/spec';
import { createScriptedProvider } from '@resume/providers-scripted';
import { createRunner } from '@resume/runner';
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
    // The usage ledger too, from the index.
    expect(await again.index.usage()).toMatchObject({ entries: [], locked: { sessions: 0 } });
    again.index.close();
    expect(again.counts).toEqual({ lists: 0, reads: 0 });

    // A new session: the folder's times move, the store is listed again and only the new journal read.
    const third = await sessionSaying('garden', 'Plant idempotent tomatoes.');
    const after = await openCounted();
    expect((await after.index.search('idempot')).map((hit) => hit.sessionId).sort()).toEqual([ledger, third].sort());
    after.index.close();
    expect(after.counts).toEqual({ lists: 1, reads: 1 });
  });

  it("keeps what its hits show in less than a fifth of the sessions' bytes", async () => {
    // Real discussions on varied tasks, and copies of their journals under new ids, as a user's home fills up.
    const model = createScriptedProvider({ env: {} }).chatModel('scripted');
    const runner = createRunner({ engine, models: () => model, workspaceDir: home });
    const subjects = ['billing', 'search', 'onboarding', 'caching', 'pricing', 'logging', 'payments', 'routing'];
    const made: Array<{ events: JournalEvent[]; id: string }> = [];
    for (const [at, subject] of subjects.entries()) {
      const task = `Should we rewrite ${subject} with event sourcing? Ticket ${at}x${(at * 7919).toString(36)}`;
      const { sessionId } = await runner.start({ mode: 'discussion', task, options: { maxRounds: 2 } });
      const events: JournalEvent[] = [];
      for await (const event of store.read(sessionId)) events.push(event);
      made.push({ events, id: sessionId });
    }
    for (let copy = 0; copy < 250; copy += 1) {
      const { events, id: original } = made[copy % made.length] as (typeof made)[number];
      const summary = await store.getSummary(original);
      if (!summary) throw new Error(`no summary of ${original}`);
      const [created, ...rest] = events as [Extract<JournalEvent, { type: 'session-created' }>, ...JournalEvent[]];
      const id = createSessionId(Date.now() + copy);
      const header = { ...created.header, id, title: `${created.header.title} (take ${copy})` };
      await store.create(header);
      const lease = await store.acquireLease(id, { holder: { pid: process.pid, host: 'test' } });
      await store.append(id, {
        expectedSeq: 0,
        epoch: lease.epoch,
        events: [{ ...created, header }, ...rest],
        summary: { ...summary, id, title: header.title },
      });
      await lease.release();
    }
    const { index } = await openCounted();
    try {
      expect((await index.search('"event sourcing"')).length).toBeGreaterThan(0);
    } finally {
      index.close();
    }
    const sessionsBytes = async (directory: string): Promise<number> => {
      let total = 0;
      for (const entry of await readdir(directory, { withFileTypes: true })) {
        const full = path.join(directory, entry.name);
        total += entry.isDirectory() ? await sessionsBytes(full) : (await stat(full)).size;
      }
      return total;
    };
    const indexBytes = (await stat(path.join(home, 'index', 'content.sqlite'))).size;
    expect(indexBytes / (await sessionsBytes(path.join(home, 'sessions')))).toBeLessThan(0.2);
  }, 60_000);
});
