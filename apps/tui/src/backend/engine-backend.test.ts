import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createEngine } from '@resume/core';
import { createSessionId } from '@resume/core/spec';
import { createMemoryStore } from '@resume/core/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createEngineBackend } from './engine-backend.js';

async function seed() {
  let tick = 0;
  const engine = createEngine({ store: createMemoryStore(), now: () => new Date(Date.UTC(2026, 2, 1, 10, 0, tick++)) });
  const root = await engine.createSession({ title: 'Evaluate AI brain idea', mode: 'discussion' });
  root.addMessage({ role: 'user', content: 'Is the idea sound?' });
  root.addMessage({ role: 'assistant', speaker: 'critic', content: 'It will not scale past one kubernetes cluster.' });
  const checkpoint = await root.checkpoint('round 1');
  await root.complete();
  // The branch appends its own work after the copied history (the runner's keyed model).
  const child = await root.fork({ at: checkpoint, title: 'What about cost?', replay: 'keyed' });
  await child.step('analyze', async () => 'done');
  await child.checkpoint('step analyze');
  await child.interrupt('test');
  await child.close();
  await root.close();
  return { engine, rootId: root.id, childId: child.id };
}

describe('createEngineBackend', () => {
  it('lists, searches content, and shows lineage, checkpoints and a resume plan', async () => {
    const { engine, rootId, childId } = await seed();
    const backend = createEngineBackend({ engine });
    const sessions = await backend.listSessions();
    expect(sessions.map((session) => session.id)).toEqual([childId, rootId]);

    const matches = [];
    for await (const match of backend.searchContent('kubernetes', [rootId], new AbortController().signal)) {
      matches.push(match);
    }
    expect(matches).toHaveLength(1);
    expect(matches[0]?.speaker).toBe('critic');

    const details = await backend.loadDetails(childId);
    expect(details.lineage.map((entry) => [entry.title, entry.depth, entry.current])).toEqual([
      ['Evaluate AI brain idea', 0, false],
      ['What about cost?', 1, true],
    ]);
    expect(details.checkpoints.map((checkpoint) => checkpoint.label)).toContain('step analyze');
    expect(details.plan?.skipped).toEqual(['analyze']);
    expect((await backend.loadDetails(rootId)).plan).toBeNull();

    // A planner that plans anything (as the runner does) is not asked about a completed session.
    const planning = createEngineBackend({
      engine,
      planResume: async () => ({ position: 'round 3 of 4', skipped: [], uncertain: [], next: [], warnings: [] }),
    });
    expect((await planning.loadDetails(rootId)).plan).toBeNull();
    expect((await planning.loadDetails(childId)).plan?.position).toBe('round 3 of 4');

    await backend.deleteSession(childId);
    expect((await backend.listSessions()).map((session) => session.id)).toEqual([rootId]);
    expect((await engine.listTrash()).map((session) => session.id)).toEqual([childId]);
    await engine.close();
  });

  it('searches content through the content index, without folding a session', async () => {
    const { engine } = await seed();
    const directory = await mkdtemp(path.join(tmpdir(), 'conclave-picker-index-'));
    try {
      let folded = 0;
      const backend = createEngineBackend({
        engine: {
          ...engine,
          readSession: (...args) => {
            folded += 1;
            return engine.readSession(...args);
          },
        },
        contentIndex: { file: path.join(directory, 'content.sqlite'), store: engine.store },
      });
      const ids = (await backend.listSessions()).map((session) => session.id);
      const matches = [];
      for await (const match of backend.searchContent('kube', ids, new AbortController().signal)) matches.push(match);
      // The branch copied the root's messages: both sessions said it.
      expect(matches.map((match) => match.sessionId).sort()).toEqual(ids.sort());
      expect(matches[0]).toMatchObject({ speaker: 'critic' });
      expect(matches[0]?.snippet.slice(matches[0].matchStart, matches[0].matchEnd)).toBe('kube');
      expect(folded).toBe(0);
    } finally {
      await rm(directory, { recursive: true, force: true });
      await engine.close();
    }
  });

  it('answers a waiting session: the question with its hint, a misfit refused with nothing written, then journaled', async () => {
    const store = createMemoryStore();
    const engine = createEngine({ store });
    const job = async (session: Parameters<Parameters<typeof engine.run>[1]>[0]) =>
      session.waitFor('approval', { schema: z.boolean(), prompt: 'Deploy v2 now?' });
    const target = { id: createSessionId(), title: 'Deploy v2' };
    const id = target.id;
    await engine.run(target, job).catch(() => undefined);
    const backend = createEngineBackend({ engine, answeredBy: 'ana@laptop' });

    expect(await backend.loadQuestion(id)).toEqual({
      sessionId: id,
      key: 'approval',
      prompt: 'Deploy v2 now?',
      hint: 'yes or no',
      choices: ['yes', 'no'],
    });
    const before = (await engine.readSession(id)).lastSeq;
    const refused = await backend.answerQuestion(id, 'approval', 'maybe');
    expect(refused).toEqual({ accepted: false, problem: 'Invalid input: expected boolean, received string' });
    expect((await engine.readSession(id)).lastSeq).toBe(before);

    expect(await backend.answerQuestion(id, 'approval', 'yes')).toEqual({ accepted: true });
    const answered = await engine.readSession(id);
    expect(answered.inputs.at(-1)?.answer).toMatchObject({ value: true, answeredBy: 'ana@laptop' });
    expect(await backend.loadQuestion(id)).toBeNull();
    // Running the job again returns the answer.
    expect(await engine.run(target, job)).toBe(true);
  });

  it('says where a session a program wrote goes on, in a runner mode too, and leaves a recorded run to the run', async () => {
    const store = createMemoryStore();
    const engine = createEngine({ store });
    const thread = await engine.createSession({
      title: 'LangGraph thread ticket-42',
      mode: 'langgraph',
      options: { threadId: 'ticket-42' },
    });
    await thread.close();
    const library = await engine.createSession({ title: 'an app of its own', mode: 'custom' });
    await library.close();
    const unrecorded = await engine.createSession({ title: 'a discussion an app wrote', mode: 'discussion' });
    await unrecorded.close();
    const run = await engine.createSession({
      title: 'a discussion',
      mode: 'discussion',
      options: { run: { mode: 'discussion' } },
    });
    await run.close();
    const backend = createEngineBackend({ engine });
    // Answered from the headers: no journal is read (a long thread's would hold the picker up).
    const readJournal = store.read.bind(store);
    let journalsRead = 0;
    store.read = (...args) => {
      journalsRead += 1;
      return readJournal(...args);
    };

    expect(await backend.whyNotRunnable?.(thread.id)).toBe(
      'Continue it from your app: run the graph again with thread_id "ticket-42" and the same checkpointer store.',
    );
    expect(await backend.whyNotRunnable?.(library.id)).toBe(
      'The program that wrote it continues it; conclave run cannot, with --force or without.',
    );
    expect(await backend.whyNotRunnable?.(unrecorded.id)).toBe(
      'The program that wrote it continues it; conclave run cannot, with --force or without.',
    );
    expect(await backend.whyNotRunnable?.(run.id)).toBeNull();
    expect(journalsRead).toBe(0);
    // A session gone meanwhile is the caller's to report, as a failed read is.
    expect(await backend.whyNotRunnable?.(createSessionId())).toBeNull();
  });
});
