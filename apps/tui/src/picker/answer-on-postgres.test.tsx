// The picker answers a session waiting on the PostgreSQL store: a runner on one machine waits
// for the answer (its poll set far beyond the test's time limit), the picker on another (its
// own connection pool) answers it with `a`, and the store's notification wakes the runner,
// which goes on with the answer. The same engine backend and `engine.respond` as on any store.
import { createEngine, type Session } from '@resume/core';
import { createSessionId } from '@resume/core/spec';
import { createPostgresStore } from '@resume/storage-postgres';
import {
  announceSkip,
  findPostgres,
  type PostgresCluster,
  startPostgresCluster,
} from '@resume/storage-postgres/testing';
import { cleanup } from 'ink-testing-library';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createEngineBackend } from '../backend/engine-backend.js';
import { keys, renderWithProviders } from '../testing/render-with-providers.js';
import { SessionPicker } from './session-picker.js';
import type { PickedSession } from './use-session-picker.js';

const postgres = findPostgres();
const skipped = announceSkip(postgres);

describe.skipIf(!postgres.available)(`answering in the picker on the PostgreSQL store ${skipped}`, () => {
  let cluster: PostgresCluster | null = null;
  const closers: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    cluster = await startPostgresCluster(postgres);
  }, 120_000);
  afterEach(async () => {
    cleanup();
    for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
  });
  afterAll(async () => {
    await cluster?.stop();
  });
  const openStore = (schema: string) => {
    const store = createPostgresStore({ connectionString: cluster?.url ?? '', schema });
    closers.push(() => store.close());
    return store;
  };

  it('a wakes the runner waiting on another machine with the answer typed in the picker', {
    timeout: 60_000,
  }, async () => {
    const schema = `tui_answer_${process.pid}_${Date.now()}`;
    const runnerStore = openStore(schema);
    await runnerStore.migrate();
    const runner = createEngine({ store: runnerStore, holder: { pid: 101, host: 'runner-machine' } });
    const laptop = createEngine({ store: openStore(schema), holder: { pid: 202, host: 'laptop' } });

    const id = createSessionId();
    const job = runner.run({ id, title: 'Release 2.0.0' }, async (session: Session) => {
      const version = await session.step('build', () => '2.0.0');
      const approved = await session.waitFor('approval', {
        schema: z.boolean(),
        prompt: `Release ${version}?`,
        wait: { pollMs: 10 * 60_000 },
      });
      return approved ? `released ${version}` : 'held back';
    });
    for (let tries = 0; (await laptop.listSessions({ status: ['waiting'] })).length === 0; tries += 1) {
      if (tries > 400) throw new Error('the runner never started waiting');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }

    const picked: (PickedSession | null)[] = [];
    const view = renderWithProviders(
      <SessionPicker
        backend={createEngineBackend({ engine: laptop, answeredBy: 'ana@laptop' })}
        onDone={(answer) => picked.push(answer)}
        settleMs={0}
      />,
    );
    await view.waitForFrame((text) => text.includes('a answers it here'), 'the waiting session');
    await view.press('a');
    await view.waitForFrame((text) => text.includes('Expected: yes or no'), 'the answer box');
    await view.press('sure', keys.enter);
    await view.waitForFrame((text) => text.includes('✗ Invalid input'), 'the refused answer');
    expect((await laptop.readSession(id)).inputs[0]?.answer).toBeNull();
    await view.press('\u0015', 'yes', keys.enter);

    expect(await job).toBe('released 2.0.0');
    expect(picked).toMatchObject([{ action: 'resume', sessionId: id, answered: true }]);
    const state = await laptop.readSession(id);
    expect(state.status).toBe('completed');
    expect(state.inputs[0]?.answer).toMatchObject({ value: true, answeredBy: 'ana@laptop' });
  });
});
