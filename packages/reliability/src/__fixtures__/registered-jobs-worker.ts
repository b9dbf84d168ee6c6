// A process of a program built on registered jobs (bundled and spawned by the registered-jobs
// crash test): it registers three jobs, starts (or resumes) the sessions it is given, then calls `engine.recover()` until every one of them has completed, and prints `done`.
//
//   registered-jobs-worker <home> <log> <sessions.json>
//
// sessions.json: [{ "id": "...", "job": "etl" | "billing" | "reminder" }]. Every step function
// appends `run <job> <id> <step> <pid>` to <log> when it starts, and billing's unsafe `charge`
// step, found uncertain, appends `consent billing <id> charge <pid>` before it is run again.
import { appendFileSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { createEngine, type Session } from '@resume/core';
import { createFsStore } from '@resume/storage-fs';
import { exitWithError } from './exit-with-error.js';

const [home, log, sessionsFile] = process.argv.slice(2);
if (!home || !log || !sessionsFile) throw new Error('usage: registered-jobs-worker <home> <log> <sessions.json>');

const pause = () => new Promise((resolve) => setTimeout(resolve, 5 + Math.floor(Math.random() * 25)));

/** A step function that logs that it runs, then takes a moment (a kill may land in it). */
function work(job: string, session: Session, step: string) {
  return async () => {
    appendFileSync(log as string, `run ${job} ${session.id} ${step} ${process.pid}\n`);
    await pause();
    return step;
  };
}

async function etl(session: Session): Promise<string> {
  for (const step of ['extract', 'clean', 'transform', 'aggregate', 'load']) {
    await session.step(step, work('etl', session, step));
  }
  return 'loaded';
}

async function billing(session: Session): Promise<string> {
  await session.step('quote', work('billing', session, 'quote'));
  await session.step('charge', work('billing', session, 'charge'), {
    safety: 'unsafe',
    // The job's decision for a charge a crash left uncertain: recorded, then run again.
    onUncertain: () => {
      appendFileSync(log as string, `consent billing ${session.id} charge ${process.pid}\n`);
      return 'rerun';
    },
  });
  await session.step('receipt', work('billing', session, 'receipt'));
  return 'billed';
}

async function reminder(session: Session): Promise<string> {
  await session.step('schedule', work('reminder', session, 'schedule'));
  await session.sleep(150);
  await session.step('remind', work('reminder', session, 'remind'));
  return 'reminded';
}

async function main(): Promise<void> {
  const wanted = JSON.parse(readFileSync(sessionsFile as string, 'utf8')) as { id: string; job: string }[];
  const store = createFsStore({ dir: home as string });
  const engine = createEngine({ store, holder: { pid: process.pid, host: hostname() } });
  engine.register('etl', etl, { version: '1' });
  engine.register('billing', billing, { version: '1' });
  engine.register('reminder', reminder, { version: '1' });

  // `start` with an id creates the session, or resumes it when an earlier process started it
  // (one whose creation a kill cut short is created again); then `recover` takes what is left.
  const starts: Promise<unknown>[] = [];
  for (const { id, job } of wanted) {
    if ((await store.getSummary(id).catch(() => null))?.status === 'completed') continue;
    starts.push(engine.start(job, null, { id, maxRecoveries: 1_000_000 }).catch((error: unknown) => error));
  }
  await Promise.all(starts);
  for (let round = 0; ; round += 1) {
    const report = await engine.recover({ maxRecoveries: 1_000_000 });
    const states = await Promise.all(wanted.map(({ id }) => engine.readSession(id)));
    if (states.every((state) => state.status === 'completed')) break;
    const stuck = report.recovered.filter((entry) => entry.status !== 'completed' && entry.status !== 'sleeping');
    if (stuck.length > 0 || round > 100) {
      throw new Error(
        `recover left sessions unfinished: ${JSON.stringify({ report, statuses: states.map((state) => state.status) })}`,
      );
    }
    const wait = report.nextWakeAt ? Math.max(0, Date.parse(report.nextWakeAt) - Date.now()) : 20;
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
  process.stdout.write('done\n');
  await engine.close();
}

main().catch(exitWithError);
