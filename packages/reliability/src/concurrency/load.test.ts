// Many writers at once: 100 sessions written concurrently in one process, and four
// processes in parallel on the same data home. Afterwards every session holds exactly
// its own messages in order (nothing lost, nothing interleaved), and listing and
// opening agree with what was written.
import { createEngine, type Engine } from '@resume/core';
import { createFsStore } from '@resume/storage-fs';
import { describe, expect, it } from 'vitest';
import { useBundledWorker } from '../support/bundled-worker.js';
import { collect, exited, onLines } from '../support/child-process.js';
import { sized, sizedTimeout } from '../support/stress.js';
import { temporaryDirectory } from '../support/temporary-directory.js';

const worker = useBundledWorker('session-worker');

/** Checks one session holds exactly `checkpoints` messages of its own, in order, and is completed. */
async function expectIntact(engine: Engine, id: string, checkpoints: number): Promise<void> {
  const state = await engine.readSession(id);
  expect(state.status).toBe('completed');
  expect(state.messages.map((message) => message.content)).toEqual(
    Array.from({ length: checkpoints }, (_, index) => `${id} message ${index + 1}`),
  );
  expect(state.checkpoints.map((checkpoint) => checkpoint.label)).toEqual(
    Array.from({ length: checkpoints }, (_, index) => `checkpoint ${index + 1}`),
  );
}

describe('load', () => {
  const sessions = 100;
  const checkpoints = sized(10, 1_000);
  it(
    `keeps ${sessions} sessions written concurrently in one process intact (${checkpoints} checkpoints each)`,
    async () => {
      const home = temporaryDirectory();
      const engine = createEngine({ store: createFsStore({ dir: home }), snapshotEvery: 250 });
      const ids = await Promise.all(
        Array.from({ length: sessions }, async (_, index) => {
          const session = await engine.createSession({ title: `load ${index}`, mode: 'custom' });
          for (let number = 1; number <= checkpoints; number += 1) {
            session.addMessage({ role: 'user', content: `${session.id} message ${number}` });
            await session.checkpoint(`checkpoint ${number}`);
          }
          await session.complete();
          await session.close();
          return session.id;
        }),
      );
      await engine.close();

      // A fresh process's view: the listing index and every journal agree.
      const reader = createEngine({ store: createFsStore({ dir: home }) });
      const listed = await reader.listSessions();
      expect(listed.map((summary) => summary.id).sort()).toEqual([...ids].sort());
      for (const summary of listed) expect(summary.messageCount).toBe(checkpoints);
      for (const id of ids) await expectIntact(reader, id, checkpoints);
      const reopened = await reader.openSession(ids[0] as string);
      await reopened.close();
      await reader.close();
    },
    sizedTimeout(60_000, 1_200_000),
  );

  const processes = 4;
  const perProcessSessions = sized(5, 10);
  const perSessionCheckpoints = sized(20, 100);
  it(
    `keeps the sessions of ${processes} processes writing in parallel intact (${perProcessSessions * perSessionCheckpoints} checkpoints per process)`,
    async () => {
      const home = temporaryDirectory();
      const runs = Array.from({ length: processes }, () => {
        const child = worker.spawn(['load', home, String(perProcessSessions), String(perSessionCheckpoints)]);
        const ids: string[] = [];
        const stderr = collect(child.stderr);
        onLines(child.stdout, (line) => {
          if (line.startsWith('session ')) ids.push(line.slice('session '.length));
        });
        return exited(child).then((exit) => ({ exit, ids, stderr: stderr() }));
      });
      const results = await Promise.all(runs);
      for (const result of results) {
        expect(result.exit, result.stderr).toEqual({ code: 0, signal: null });
        expect(result.ids).toHaveLength(perProcessSessions);
      }
      const ids = results.flatMap((result) => result.ids);
      const reader = createEngine({ store: createFsStore({ dir: home }) });
      const listed = await reader.listSessions();
      expect(listed.map((summary) => summary.id).sort()).toEqual([...ids].sort());
      for (const id of ids) await expectIntact(reader, id, perSessionCheckpoints);
      await reader.close();
    },
    sizedTimeout(120_000, 1_200_000),
  );
});
