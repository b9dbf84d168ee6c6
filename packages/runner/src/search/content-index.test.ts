// The content index as a library user sees it: hits with snippets and rounds, kept up with
// appends, renames and deletions, rebuilt when its file is gone, and keeping no word with indexTexts off.
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createEngine, type Engine } from '@resume/core';
import { createMemoryStore } from '@resume/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openContentIndex } from './content-index.js';

let directory: string;
let engine: Engine;
let file: string;

beforeEach(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'conclave-content-index-'));
  engine = createEngine({ store: createMemoryStore() });
  file = path.join(directory, 'index', 'content.sqlite');
});

afterEach(async () => {
  await engine.close();
  await rm(directory, { recursive: true, force: true });
});

async function sessionWith(
  title: string,
  messages: Array<{ role: 'user' | 'assistant'; content: string; round?: number }>,
  { finished = true } = {},
) {
  const session = await engine.createSession({ title, mode: 'discussion' });
  for (const message of messages)
    session.addMessage({ ...message, speaker: message.role === 'assistant' ? 'critic' : null });
  if (finished) await session.complete();
  else await session.interrupt();
  await session.close();
  return session.id;
}

describe('content index', () => {
  it('finds a word in a message with a snippet around it, the round and the speaker', async () => {
    const id = await sessionWith('Billing', [
      { role: 'user', content: 'Should we move billing to event sourcing?' },
      {
        role: 'assistant',
        content: 'The ledger would need an idempotent replay of every invoice, said nobody.',
        round: 2,
      },
    ]);
    await sessionWith('Other', [{ role: 'user', content: 'Plan the offsite.' }]);
    const index = await openContentIndex({ file, store: engine.store });
    try {
      const hits = await index.search('idempot');
      expect(hits).toHaveLength(1);
      const [hit] = hits;
      expect(hit).toMatchObject({ sessionId: id, field: 'message', round: 2, speaker: 'critic', role: 'assistant' });
      expect(hit?.snippet).toContain('idempotent replay');
      expect(hit?.snippet.slice(hit.matchStart, hit.matchEnd).toLowerCase()).toBe('idempot');
    } finally {
      index.close();
    }
  });

  it('needs every word of the query, in any order, and a quoted phrase as written', async () => {
    const both = await sessionWith('A', [{ role: 'user', content: 'Retry the flaky upload with backoff.' }]);
    await sessionWith('B', [{ role: 'user', content: 'The upload is fine.' }]);
    const index = await openContentIndex({ file, store: engine.store });
    try {
      expect((await index.search('backoff upload')).map((hit) => hit.sessionId)).toEqual([both]);
      expect(await index.search('"upload flaky"')).toEqual([]);
      expect((await index.search('"flaky upload"')).map((hit) => hit.sessionId)).toEqual([both]);
      expect(await index.search('   ')).toEqual([]);
      expect(await index.search('"*(")')).toEqual([]);
    } finally {
      index.close();
    }
  });

  it('matches titles, names, tags and the task, and says which', async () => {
    const id = await sessionWith('Quarterly roadmap', [{ role: 'user', content: 'Draft the plan.' }]);
    await engine.changeMetadata(id, { name: 'q3-planning', addTags: ['strategy'] });
    const index = await openContentIndex({ file, store: engine.store });
    try {
      expect((await index.search('roadmap'))[0]).toMatchObject({ sessionId: id, field: 'title' });
      expect((await index.search('strategy'))[0]).toMatchObject({ sessionId: id, field: 'tags' });
      expect((await index.search('planning'))[0]).toMatchObject({ sessionId: id, field: 'name' });
      expect((await index.search('draft'))[0]).toMatchObject({ sessionId: id, field: 'task' });
    } finally {
      index.close();
    }
  });

  it('sees what was appended, renamed and deleted since the last search', async () => {
    const id = await sessionWith('First', [{ role: 'user', content: 'alpha' }], { finished: false });
    const gone = await sessionWith('Second', [{ role: 'user', content: 'alpha too' }]);
    const index = await openContentIndex({ file, store: engine.store });
    try {
      expect(await index.search('alpha')).toHaveLength(2);
      const session = await engine.openSession(id, { replay: 'keyed' });
      session.addMessage({ role: 'assistant', content: 'omega arrives later', round: 1 });
      await session.complete();
      await session.close();
      await engine.changeMetadata(id, { name: 'renamed-later' });
      await engine.deleteSession(gone);
      expect((await index.search('omega')).map((hit) => hit.sessionId)).toEqual([id]);
      expect((await index.search('renamed')).map((hit) => hit.sessionId)).toEqual([id]);
      expect((await index.search('alpha')).map((hit) => hit.sessionId)).toEqual([id]);
    } finally {
      index.close();
    }
  });

  it('leaves out the sessions in the trash, and finds them again once restored', async () => {
    const id = await sessionWith('Binned', [{ role: 'user', content: 'quokka' }]);
    const index = await openContentIndex({ file, store: engine.store });
    try {
      await engine.changeMetadata(id, { trashed: true });
      expect(await index.search('quokka')).toEqual([]);
      await engine.changeMetadata(id, { trashed: false });
      expect((await index.search('quokka')).map((hit) => hit.sessionId)).toEqual([id]);
    } finally {
      index.close();
    }
  });

  it('is rebuilt when its file is removed, and only its owner reads it', async () => {
    const id = await sessionWith('Secretive', [{ role: 'user', content: 'the zanzibarian protocol' }]);
    const first = await openContentIndex({ file, store: engine.store });
    expect(await first.search('zanzibarian')).toHaveLength(1);
    first.close();
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    await rm(file);
    const second = await openContentIndex({ file, store: engine.store });
    try {
      expect((await second.search('zanzibarian')).map((hit) => hit.sessionId)).toEqual([id]);
    } finally {
      second.close();
    }
  });

  it('gives the matching sessions, and one hit per session, its first, in the order asked', async () => {
    const first = await sessionWith('One', [{ role: 'user', content: 'kiwi' }]);
    const second = await sessionWith('Two', [
      { role: 'user', content: 'apple' },
      { role: 'assistant', content: 'a kiwi, not an apple', round: 1 },
      { role: 'assistant', content: 'kiwi again', round: 2 },
    ]);
    const third = await sessionWith('Three', [{ role: 'user', content: 'pear' }]);
    const index = await openContentIndex({ file, store: engine.store });
    try {
      const hits = [];
      for await (const hit of index.sessionHits('kiwi', { sessionIds: [third, second, first] })) hits.push(hit);
      expect(hits.map((hit) => [hit.sessionId, hit.round])).toEqual([
        [second, 1],
        [first, null],
      ]);
      expect(await index.matchingSessions('kiwi')).toEqual(new Set([first, second]));
    } finally {
      index.close();
    }
  });

  it('keeps no words with indexTexts off (a home encrypted at rest), and still counts the calls', async () => {
    const session = await engine.createSession({ title: 'Sealed', mode: 'discussion' });
    session.addMessage({ role: 'user', content: 'the zanzibarian protocol' });
    session.record({
      type: 'usage-recorded',
      provider: 'openai',
      model: 'gpt-4o',
      agent: null,
      round: null,
      stepKey: null,
      inputTokens: 10,
      outputTokens: 5,
      costUsd: 0.5,
    });
    await session.complete();
    await session.close();
    const index = await openContentIndex({ file, store: engine.store, indexTexts: false });
    try {
      expect(await index.search('zanzibarian')).toEqual([]);
      expect((await index.usage()).entries.map((entry) => entry.costUsd)).toEqual([0.5]);
    } finally {
      index.close();
    }
    expect((await readFile(file)).includes(Buffer.from('zanzibarian'))).toBe(false);
  });

  it('under a word key keeps no word or text of the sessions, finds words whole, and is built again under another key', async () => {
    const id = await sessionWith('Vault plans', [
      { role: 'user', content: 'Guard the zanzibarian launch codes.' },
      { role: 'assistant', content: 'Keep the codes in two vaults, said the critic.', round: 1 },
    ]);
    const first = await openContentIndex({
      file,
      store: engine.store,
      wordKey: { id: 'one', key: new Uint8Array(32).fill(1) },
    });
    try {
      expect((await first.search('zanzibarian')).map((hit) => [hit.sessionId, hit.field])).toEqual([[id, 'task']]);
      expect((await first.search('"two vaults"'))[0]).toMatchObject({ sessionId: id, round: 1, speaker: 'critic' });
      expect(await first.search('"vaults two"')).toEqual([]);
      expect(await first.search('zanzib')).toEqual([]);
      expect(await first.matchingSessions('vault')).toEqual(new Set([id]));
    } finally {
      first.close();
    }
    const kept = (await readFile(file)).toString('latin1').toLowerCase();
    for (const word of ['zanzibarian', 'vaults', 'launch', 'guard']) expect(kept).not.toContain(word);

    const other = await openContentIndex({
      file,
      store: engine.store,
      wordKey: { id: 'two', key: new Uint8Array(32).fill(2) },
    });
    try {
      expect((await other.search('zanzibarian')).map((hit) => hit.sessionId)).toEqual([id]);
    } finally {
      other.close();
    }
  });
});
