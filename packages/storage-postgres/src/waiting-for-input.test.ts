// Durable human input across machines: a runner waits for an answer (`waitFor` with `wait`)
// on one connection pool, the answer is given through another, and the store's `watch`
// (LISTEN/NOTIFY) wakes the runner: its poll is set far beyond the test's time limit.
import { createEngine, WaitingForInputError } from '@resume/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { announceSkip } from './testing/postgres-cluster.js';
import { postgres, useTestDatabase } from './testing/test-database.js';

const skipped = announceSkip(postgres);

describe.skipIf(!postgres.available)(`waitFor on the PostgreSQL store ${skipped}`, () => {
  const database = useTestDatabase();

  it('wakes a waiting runner when another machine answers', async () => {
    const runnerStore = database.openStore();
    await runnerStore.migrate();
    const answerStore = database.openStore({ schema: runnerStore.schema });
    const runner = createEngine({ store: runnerStore, holder: { pid: 101, host: 'runner-machine' } });
    const answerer = createEngine({ store: answerStore, holder: { pid: 202, host: 'laptop' } });

    const { createSessionId } = await import('@resume/core');
    const id = createSessionId();
    const job = runner.run({ id, title: 'release' }, async (session) => {
      const version = await session.step('build', () => '2.0.0');
      const approved = await session.waitFor('approval', {
        schema: z.boolean(),
        prompt: `Release ${version}?`,
        wait: { pollMs: 10 * 60_000 },
      });
      return approved ? `released ${version}` : 'held back';
    });

    for (let tries = 0; ; tries += 1) {
      const [waiting] = await answerer.listSessions({ status: ['waiting'] });
      if (waiting) {
        expect(waiting.waitingFor).toEqual({ key: 'approval', prompt: 'Release 2.0.0?' });
        break;
      }
      if (tries > 200) throw new Error('the runner never started waiting');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    await expect(answerer.respond(id, 'approval', 'yes')).rejects.toThrow(/not accepted/);
    await answerer.respond(id, 'approval', true, { answeredBy: 'ana@laptop' });

    expect(await job).toBe('released 2.0.0');
    const state = await answerer.readSession(id);
    expect(state.status).toBe('completed');
    expect(state.inputs[0]?.answer).toMatchObject({ value: true, answeredBy: 'ana@laptop' });
  });

  it('ends the run waiting by default, and the answer from elsewhere lets it continue', async () => {
    const store = database.openStore();
    await store.migrate();
    const engine = createEngine({ store });
    const job = (session: import('@resume/core').Session) =>
      session.waitFor('name', { schema: z.string().min(1), prompt: 'Name the release' });
    const { createSessionId } = await import('@resume/core');
    const id = createSessionId();
    await expect(engine.run({ id, title: 'name it' }, job)).rejects.toThrow(WaitingForInputError);
    const other = createEngine({ store: database.openStore({ schema: store.schema }), holder: { pid: 7, host: 'b' } });
    await other.respond(id, 'name', 'Aurora');
    expect(await engine.run(id, job)).toBe('Aurora');
  });
});
