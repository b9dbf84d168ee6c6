// SIGKILL of the `conclave` process alone while a shell step's command runs: the command is a
// process group of its own, so it outlives the process that started it. The step's command
// records its start and whether an earlier command of the same step is still alive when it
// starts. The run is killed while its command runs and resumed with
// `--on-uncertain rerun --yes`, again and again, then resumed to its end. Then:
// - no command ever started while an earlier one of the same step was alive (the resume stops
//   the old one first: SIGTERM to its group, SIGKILL after a grace period), and it says so;
// - each rerun's start records the command it stopped, and every start records its own
//   process (pid, process group, start time);
// - no command of the step is left running after the run completed.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createEngine } from '@resume/core';
import { createFsStore } from '@resume/storage-fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BundledWorker, bundleWorker, CONCLAVE_BIN, collect, exited, onLines } from '../support/child-process.js';
import { sized, sizedTimeout } from '../support/stress.js';
import { temporaryDirectory } from '../support/temporary-directory.js';

const KILLS = sized(20, 60);

// Alive: the pid recorded by the command before it still runs this very step's command line.
const COMMAND = [
  'old=$(cat running.pid 2>/dev/null)',
  'if [ -n "$old" ] && grep -q running.pid "/proc/$old/cmdline" 2>/dev/null; then echo "$old" >> overlaps.log; fi',
  'echo $$ > running.pid',
  'echo $$ >> starts.log',
  'sleep 4',
  'echo $$ >> finished.log',
].join('; ');

const SPEC = `name: orphan
steps:
  - id: long
    shell: '${COMMAND}'
  - shell: 'echo after > after.txt'
`;

let conclave: BundledWorker;
beforeAll(async () => {
  conclave = await bundleWorker('conclave', CONCLAVE_BIN);
}, 120_000);
afterAll(async () => {
  await conclave?.remove();
});

function lines(file: string): string[] {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

const alive = (pid: number) =>
  existsSync(`/proc/${pid}`) && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('running.pid');

describe('SIGKILL of conclave alone while a shell step runs', () => {
  it(
    `never starts a step's command while its earlier command is still running (${KILLS} kills)`,
    async () => {
      const root = temporaryDirectory();
      const home = path.join(root, 'home');
      const workspace = path.join(root, 'workspace');
      mkdirSync(workspace);
      mkdirSync(path.join(root, 'user-home'));
      writeFileSync(path.join(workspace, 'orphan.yaml'), SPEC);
      // Every kill here is at the same step on purpose: the limit on such crash loops is lifted.
      writeFileSync(path.join(workspace, '.conclave.yaml'), `resume:\n  maxRecoveries: ${KILLS + 1}\n`);
      const env = { CONCLAVE_HOME: home, HOME: path.join(root, 'user-home'), NO_COLOR: '1', LANG: 'C.UTF-8' };
      const starts = () => lines(path.join(workspace, 'starts.log'));

      let sessionId = null as string | null;
      let stopNotices = 0;
      for (let kill = 0; kill <= KILLS; kill += 1) {
        const argv =
          sessionId === null
            ? ['run', 'orphan.yaml']
            : ['run', '--resume', sessionId, '--on-uncertain', 'rerun', '--yes'];
        const child = conclave.spawn(argv, env, workspace);
        const stderr = collect(child.stderr);
        child.stdout.resume();
        const startsBefore = starts().length;
        onLines(child.stderr, (line) => {
          sessionId ??= /Started session (\S+)/.exec(line)?.[1] ?? null;
        });
        if (kill < KILLS) {
          // Killed (conclave only, not its command) once this run's command has started.
          const exit = exited(child);
          let ended = false;
          void exit.then(() => {
            ended = true;
          });
          while (!ended && starts().length === startsBefore) await new Promise((resolve) => setTimeout(resolve, 20));
          child.kill('SIGKILL');
          expect((await exit).signal, stderr()).toBe('SIGKILL');
        } else {
          const exit = await exited(child);
          expect(exit.code, stderr()).toBe(0);
        }
        if (kill > 0) {
          const said = stderr();
          if (said.includes('is still running (pid')) stopNotices += 1;
        }
      }

      expect(lines(path.join(workspace, 'overlaps.log'))).toEqual([]);
      expect(starts()).toHaveLength(KILLS + 1);
      // Every resume found the earlier command still running and stopped it first.
      expect(stopNotices).toBe(KILLS);
      expect(readFileSync(path.join(workspace, 'after.txt'), 'utf8')).toBe('after\n');
      for (const pid of starts().map(Number)) expect(alive(pid), `command ${pid} still running`).toBe(false);

      const engine = createEngine({ store: createFsStore({ dir: home }) });
      try {
        const events = [];
        for await (const event of engine.store.read(sessionId as string)) events.push(event);
        const startsOfLong = events.flatMap((event) =>
          event.type === 'step-started' && event.key === 'step[long]/shell' ? [event] : [],
        );
        expect(startsOfLong).toHaveLength(KILLS + 1);
        expect(startsOfLong.map((event) => event.process?.pid)).toEqual(starts().map(Number));
        for (const event of startsOfLong) expect(event.process?.processGroup).toBe(event.process?.pid);
        // Each rerun records the command it stopped: the one the run before started.
        expect(startsOfLong.slice(1).map((event) => event.stoppedProcess?.pid)).toEqual(
          starts().slice(0, -1).map(Number),
        );
      } finally {
        await engine.close();
      }
    },
    sizedTimeout(240_000, 900_000),
  );
});
