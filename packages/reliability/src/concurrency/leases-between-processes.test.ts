// Two real processes and one session: exactly one writes, the other is refused with
// the holder's pid and host (exit 75); a holder killed with SIGKILL is taken over at
// once, a live one never. The CLI gives the same answer (exit 75) when it is built.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEngine } from '@resume/core';
import { createFsStore } from '@resume/storage-fs';
import { describe, expect, it } from 'vitest';
import { useBundledWorker } from '../support/bundled-worker.js';
import { collect, exited, onLines, type WorkerProcess } from '../support/child-process.js';
import { sized } from '../support/stress.js';
import { temporaryDirectory } from '../support/temporary-directory.js';

const cli = fileURLToPath(new URL('../../../../apps/cli/dist/conclave.mjs', import.meta.url));

const worker = useBundledWorker('session-worker');

async function newSession(home: string): Promise<string> {
  const engine = createEngine({ store: createFsStore({ dir: home }) });
  const session = await engine.createSession({ title: 'contended', mode: 'custom' });
  session.addMessage({ role: 'user', content: 'who writes?' });
  await session.checkpoint();
  await session.close();
  await engine.close();
  return session.id;
}

interface Contender {
  child: WorkerProcess;
  /** Resolves true when it holds the lease, false when it exited without it. */
  holding: Promise<boolean>;
  stderr: () => string;
}

function contend(home: string, id: string): Contender {
  const child = worker.spawn(['hold', home, id]);
  const stderr = collect(child.stderr);
  const holding = new Promise<boolean>((resolve) => {
    onLines(child.stdout, (line) => {
      if (line.startsWith('holding ')) resolve(true);
    });
    child.once('exit', () => resolve(false));
  });
  return { child, holding, stderr };
}

describe('one writer per session across processes', () => {
  const rounds = sized(4, 40);
  it(`lets exactly one of two processes write, refuses the other with the holder, takes over a killed holder (${rounds} rounds)`, async () => {
    const home = temporaryDirectory();
    const id = await newSession(home);
    for (let round = 0; round < rounds; round += 1) {
      const contenders = [contend(home, id), contend(home, id)];
      const outcomes = await Promise.all(contenders.map((contender) => contender.holding));
      expect(outcomes.filter(Boolean)).toHaveLength(1);
      const winner = contenders[outcomes.indexOf(true)] as Contender;
      const loser = contenders[outcomes.indexOf(false)] as Contender;
      const loserExit = await exited(loser.child);
      expect(loserExit.code).toBe(75);
      expect(loser.stderr()).toContain(
        `error session-locked Session ${id} is in use by pid ${winner.child.pid} on host ${hostname()}`,
      );

      // A live holder is never taken over, however often it is asked.
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const late = contend(home, id);
        expect(await late.holding).toBe(false);
        expect((await exited(late.child)).code).toBe(75);
      }

      // Killed with SIGKILL, the holder leaves its lease behind; the next process takes it over at once.
      winner.child.kill('SIGKILL');
      await exited(winner.child);
      const next = contend(home, id);
      expect(await next.holding).toBe(true);
      next.child.kill('SIGKILL');
      await exited(next.child);
    }
    // After all that, the session is intact and writable.
    const engine = createEngine({ store: createFsStore({ dir: home }) });
    const session = await engine.openSession(id);
    expect(session.state.messages.map((message) => message.content)).toEqual(['who writes?']);
    await session.close();
    await engine.close();
  }, 120_000);

  it.skipIf(!existsSync(cli))(
    'the CLI exits 75 naming the holder while another process holds the session',
    async () => {
      const home = temporaryDirectory();
      const id = await newSession(home);
      const holder = contend(home, id);
      expect(await holder.holding).toBe(true);
      try {
        const result = await new Promise<{ code: number | null; output: string }>((resolve) => {
          execFile(
            process.execPath,
            [cli, 'sessions', 'delete', id, '--home', home],
            { env: { PATH: process.env.PATH ?? '', NO_COLOR: '1' } },
            (error, stdout, stderr) => resolve({ code: error ? (error.code as number) : 0, output: stdout + stderr }),
          );
        });
        expect(result.code).toBe(75);
        expect(result.output).toContain(String(holder.child.pid));
        expect(existsSync(path.join(home, 'sessions', id))).toBe(true);
      } finally {
        holder.child.kill('SIGKILL');
        await exited(holder.child);
      }
    },
    60_000,
  );
});
