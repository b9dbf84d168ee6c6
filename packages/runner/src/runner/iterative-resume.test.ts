import { readFile, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { runnerFixture } from '../testing/runner-fixture.js';
import { createFakeModels, createTestStore, transcriptOf } from './test-kit.js';

const fixture = runnerFixture({
  name: 'iterative',
  files: { 'book.txt': 'Chapter one.\n\nChapter two.\n\nChapter three.\n' },
});

const agents = [{ name: 'reader' }, { name: 'editor' }];
const start = {
  mode: 'iterative' as const,
  task: 'Fix the typos',
  agents,
  options: { project: 'book.txt', chunkSize: 16 },
};

describe('iterative mode', () => {
  it('works chunk by chunk, keeps notes and a shared output, and writes them as files', async () => {
    const { engine } = createTestStore();
    const models = createFakeModels();
    const result = await fixture.runner({ engine: engine(), models: models.resolve }).start(start);
    expect(result.status).toBe('completed');
    expect(models.calls.map((call) => `${call.round}/${call.agent}`)).toEqual([
      '1/reader',
      '1/editor',
      '2/reader',
      '2/editor',
      '3/reader',
      '3/editor',
    ]);
    expect(models.calls[2]?.lastMessage).toContain('Chapter two.');
    const state = await engine().readSession(result.sessionId);
    expect(state.checkpoints.map((checkpoint) => checkpoint.label)).toContain('chunk 2/3');
    const output = await readFile(fixture.path(`conclave-output/${result.sessionId}/shared-output.md`), 'utf8');
    expect(output.trim()).toBe(result.conclusion);
    const notes = await readFile(fixture.path(`conclave-output/${result.sessionId}/notes/reader.md`), 'utf8');
    expect(notes).toContain('## Chunk 3');
  });

  it('refuses an agent name that would write outside the workspace before any model call', async () => {
    const { engine } = createTestStore();
    const models = createFakeModels();
    const runner = fixture.runner({ engine: engine(), models: models.resolve });
    const outcome = await runner
      .start({ ...start, agents: [{ name: 'reader' }, { name: '../../../../x' }] })
      .then((result) => ({ result, error: null }))
      .catch((error: unknown) => ({ result: null, error }));
    expect(models.calls).toEqual([]);
    const failed = outcome.error ?? outcome.result;
    expect(JSON.stringify(failed instanceof Error ? failed.message : failed)).toMatch(/outside|\.\./);
  });

  it('resumes at the next chunk after an interrupt with the same transcript', async () => {
    const reference = createTestStore();
    const referenceResult = await fixture
      .runner({ engine: reference.engine(), models: createFakeModels().resolve })
      .start(start);
    const referenceState = await reference.engine().readSession(referenceResult.sessionId);

    const { engine } = createTestStore();
    const models = createFakeModels();
    const runner = fixture.runnerInterruptedAt('chunk 1/3', {
      engine: engine(),
      models: models.resolve,
    });
    const first = await runner.start(start);
    expect(first.status).toBe('interrupted');
    const plan = await runner.plan(first.sessionId);
    expect(plan.next).toBe('chunk 2 of 3');
    const resumed = await runner.resume(first.sessionId);
    expect(resumed.status).toBe('completed');
    expect(models.calls.map((call) => `${call.round}/${call.agent}`)).toEqual([
      '1/reader',
      '1/editor',
      '2/reader',
      '2/editor',
      '3/reader',
      '3/editor',
    ]);
    const state = await engine().readSession(first.sessionId);
    expect(transcriptOf(state.messages)).toEqual(transcriptOf(referenceState.messages));
    expect(resumed.conclusion).toBe(referenceResult.conclusion);
  });

  it('starts at a given chunk', async () => {
    const { engine } = createTestStore();
    const models = createFakeModels();
    await fixture.runner({ engine: engine(), models: models.resolve }).start({
      ...start,
      options: { ...start.options, startChunk: 3 },
    });
    expect(models.calls.map((call) => call.round)).toEqual([3, 3]);
  });

  it('honours --start-chunk on a resume: the plan and the run say which chunks are skipped, and a later resume keeps the skip', async () => {
    await writeFile(fixture.path('book.txt'), 'Chapter one.\n\nChapter two.\n\nChapter three.\n\nChapter four.\n');
    const { engine } = createTestStore();
    const models = createFakeModels();
    const notices: string[] = [];
    const runner = fixture.runnerInterruptedAt('chunk 1/4', {
      engine: engine(),
      models: models.resolve,
      onEvent: (event) => {
        if (event.type === 'notice') notices.push(event.text);
      },
    });
    const first = await runner.start(start);
    expect(first.status).toBe('interrupted');
    const plan = await runner.plan(first.sessionId, { startChunk: 4 });
    expect(plan.next).toBe('chunk 4 of 4 (chunks 2–3 skipped by --start-chunk)');
    const resumed = await runner.resume(first.sessionId, { startChunk: 4 });
    expect(resumed.status).toBe('completed');
    expect(models.calls.map((call) => call.round)).toEqual([1, 1, 4, 4]);
    expect(notices).toEqual(
      expect.arrayContaining(['chunk 2 of 4 skipped (--start-chunk 4)', 'chunk 3 of 4 skipped (--start-chunk 4)']),
    );
    const state = await engine().readSession(first.sessionId);
    expect(state.data.iterativeSkipped).toEqual([2, 3]);
  });

  it('skips the chunk it was interrupted in when --start-chunk is past it, and plans only the chunks that run', async () => {
    await writeFile(
      fixture.path('book.txt'),
      'Chapter one.\n\nChapter two.\n\nChapter three.\n\nChapter four.\n\nChapter five.\n',
    );
    const { engine } = createTestStore();
    let runner: ReturnType<typeof fixture.runner> | null = null;
    // Interrupted while chunk 2's second agent is answering: chunk 2 ran in part.
    const interrupted = createFakeModels({
      intercept: (_call, index) => (index === 3 ? 'interrupt' : undefined),
      onHang: () => void runner?.interrupt(),
    });
    runner = fixture.runner({ engine: engine(), models: interrupted.resolve });
    const first = await runner.start(start);
    expect(first.status).toBe('interrupted');

    const models = createFakeModels();
    const resumer = fixture.runner({ engine: engine(), models: models.resolve });
    const plan = await resumer.plan(first.sessionId, { startChunk: 4 });
    expect(plan.next).toBe('chunk 4 of 5 (chunks 2–3 skipped by --start-chunk)');
    expect(plan.remaining?.calls).toBe(4);
    expect([...plan.uncertain, ...plan.retrying, ...plan.rerun].map((step) => step.key)).toEqual([]);
    const resumed = await resumer.resume(first.sessionId, { startChunk: 4 });
    expect(resumed.status, JSON.stringify(resumed.error)).toBe('completed');
    expect(models.calls.map((call) => `${call.round}/${call.agent}`)).toEqual([
      '4/reader',
      '4/editor',
      '5/reader',
      '5/editor',
    ]);
    const state = await engine().readSession(first.sessionId);
    expect(state.data.iterativeSkipped).toEqual([2, 3]);
    expect(state.messages.filter((message) => message.round === 2).map((message) => message.speaker)).not.toContain(
      'editor',
    );
    const later = await resumer.plan(first.sessionId);
    expect(later.uncertain).toEqual([]);
  });

  it('refuses a --start-chunk that would redo a finished chunk, or any in a discussion', async () => {
    const { engine } = createTestStore();
    const models = createFakeModels();
    const runner = fixture.runnerInterruptedAt('chunk 2/3', {
      engine: engine(),
      models: models.resolve,
    });
    const first = await runner.start(start);
    await expect(runner.resume(first.sessionId, { startChunk: 2 })).rejects.toThrow(/chunks 1–2 are already done/);
    await expect(runner.plan(first.sessionId, { startChunk: 9 })).rejects.toThrow(/has 3 chunks/);
    const discussion = await fixture
      .runnerInterruptedAt('round 1, judge', {
        engine: engine(),
        models: createFakeModels().resolve,
      })
      .start({ mode: 'discussion', task: 'Evaluate my idea' });
    await expect(runner.resume(discussion.sessionId, { startChunk: 2 })).rejects.toMatchObject({
      code: 'usage',
      message: expect.stringContaining('A start chunk applies to iterative sessions'),
    });
  });
});
