// A program with three registered jobs (a five-step ETL, a billing job with an unsafe charge, a
// reminder that sleeps) is SIGKILLed at random moments and started again, each time recovering
// with `engine.recover()`. Every session completes; a step function runs again only when it was
// the one in flight for its session at a kill; the unsafe charge runs again only after the
// job's consent (its `onUncertain`) was asked for.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createEngine, createSessionId } from '@resume/core';
import { createFsStore } from '@resume/storage-fs';
import { describe, expect, it } from 'vitest';
import { useBundledWorker } from '../support/bundled-worker.js';
import { collect, exited, onLines } from '../support/child-process.js';
import { randomInteger, seededRandom } from '../support/seeded-random.js';
import { sized, sizedTimeout } from '../support/stress.js';
import { temporaryDirectory } from '../support/temporary-directory.js';

const KILLS = sized(30, 300);
const SEED = Number(process.env.CONCLAVE_CRASH_SEED ?? 20_261_126);
const JOBS = ['etl', 'billing', 'reminder'] as const;
const STEPS: Record<(typeof JOBS)[number], string[]> = {
  etl: ['extract', 'clean', 'transform', 'aggregate', 'load'],
  billing: ['quote', 'charge', 'receipt'],
  reminder: ['schedule', 'remind'],
};

const worker = useBundledWorker('registered-jobs-worker');

/** Runs the program once; kills it `killAfterMs` after it started unless it is done first. Returns its pid. */
async function runOnce(args: string[], killAfterMs: number | null): Promise<{ pid: number; done: boolean }> {
  const child = worker.spawn(args);
  const stderr = collect(child.stderr);
  let done = false;
  onLines(child.stdout, (line) => {
    if (line === 'done') done = true;
  });
  const timer = killAfterMs === null ? undefined : setTimeout(() => child.kill('SIGKILL'), killAfterMs);
  const exit = await exited(child);
  clearTimeout(timer);
  if (exit.signal !== 'SIGKILL' && exit.code !== 0)
    throw new Error(`the program failed (exit ${exit.code}): ${stderr()}`);
  return { pid: child.pid as number, done };
}

interface LogLine {
  kind: 'run' | 'consent';
  job: string;
  id: string;
  step: string;
  pid: number;
}

function readLog(file: string): LogLine[] {
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => {
      const [kind, job, id, step, pid] = line.split(' ');
      return { kind: kind as LogLine['kind'], job: job ?? '', id: id ?? '', step: step ?? '', pid: Number(pid) };
    });
}

describe('registered jobs recover themselves after SIGKILL', () => {
  it(
    `every session completes across ${KILLS} kills, each step running again only when it was in flight, the charge only with consent`,
    async () => {
      const home = temporaryDirectory();
      const random = seededRandom(SEED);
      let kills = 0;
      let batches = 0;
      let reruns = 0;
      let consents = 0;
      while (kills < KILLS) {
        batches += 1;
        const log = path.join(home, `calls-${batches}.log`);
        writeFileSync(log, '');
        const sessions = JOBS.flatMap((job) => [createSessionId(), createSessionId()].map((id) => ({ id, job })));
        const sessionsFile = path.join(home, `sessions-${batches}.json`);
        writeFileSync(sessionsFile, JSON.stringify(sessions));
        const killed = new Set<number>();
        for (;;) {
          const killing = kills < KILLS;
          const outcome = await runOnce([home, log, sessionsFile], killing ? randomInteger(random, 150, 900) : null);
          if (outcome.done) break;
          killed.add(outcome.pid);
          kills += 1;
        }

        const engine = createEngine({ store: createFsStore({ dir: home }) });
        try {
          for (const { id } of sessions) expect((await engine.readSession(id)).status).toBe('completed');
        } finally {
          await engine.close();
        }
        const lines = readLog(log);
        reruns +=
          lines.filter((line) => line.kind === 'run').length -
          sessions.reduce((sum, { job }) => sum + STEPS[job].length, 0);
        consents += lines.filter((line) => line.kind === 'consent').length;
        for (const { id, job } of sessions) {
          const mine = lines.filter((line) => line.id === id);
          for (const step of STEPS[job]) {
            const runs = mine.filter((line) => line.kind === 'run' && line.step === step);
            expect(runs.length, `${job} ${step} of ${id} ran`).toBeGreaterThanOrEqual(1);
            // Every run but the last was cut short by a kill while it was this session's latest step.
            for (const earlier of runs.slice(0, -1)) {
              expect(
                killed.has(earlier.pid),
                `${job} ${step} ran again after pid ${earlier.pid}, which was not killed`,
              ).toBe(true);
              const lastOfThatProcess = mine.filter((line) => line.kind === 'run' && line.pid === earlier.pid).at(-1);
              expect(lastOfThatProcess).toEqual(earlier);
            }
          }
          if (job === 'billing') {
            // A charge runs again only right after the job's consent, in the same process.
            const charges = mine.filter((line) => line.step === 'charge');
            charges.forEach((line, index) => {
              if (line.kind !== 'run' || index === 0) return;
              expect(charges[index - 1], `the charge of ${id} ran again without consent`).toMatchObject({
                kind: 'consent',
                pid: line.pid,
              });
            });
            // A kill after the charge was journaled as started but before it logged leaves it uncertain:
            // then the first line is the consent, with the run right after it in the same process.
            if (charges[0]?.kind === 'consent') expect(charges[1]).toMatchObject({ kind: 'run', pid: charges[0].pid });
            else expect(charges[0]?.kind).toBe('run');
          }
        }
      }
      process.stderr.write(
        `registered jobs: ${kills} kills over ${batches} batches of ${JOBS.length * 2} sessions, ${reruns} step runs repeated, ${consents} charges consented (seed ${SEED})\n`,
      );
    },
    sizedTimeout(120_000, 1_800_000),
  );
});
