// Queued map items from the command line, on a real PostgreSQL server: `conclave run --queue`
// with a map step puts the map's items on the queue, and three `conclave worker` processes run
// them, each item once, the run's output joined in the items' order. A worker SIGKILLed while
// items run loses nothing: another worker takes its items and runs again only those in flight.
import { readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import {
  announceSkip,
  findPostgres,
  type PostgresCluster,
  startPostgresCluster,
} from '@resume/storage-postgres/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, type RunningCli } from './run-cli.js';
import { sandboxFixture } from './sandbox-fixture.js';

const postgres = findPostgres();
const skipped = announceSkip(postgres);
const ITEMS = 60;
const CONCURRENCY = 4;

const spec = (log: string, seconds: number) =>
  [
    'name: queued map',
    'steps:',
    '  - id: each',
    '    map:',
    '      items: { file: items.json }',
    '      parallel: 16',
    '      do:',
    `        - shell: 'sleep ${seconds}; echo "$CONCLAVE_ITEM_ID $PPID" >> ${log}; echo "item $CONCLAVE_ITEM_ID"'`,
    '      reduce:',
    '        shell: |',
    `          cat > ${log}.results <<'EOF'`,
    '          {{ map.results }}',
    '          EOF',
    '',
  ].join('\n');

describe.skipIf(!postgres.available || postgres.externalUrl !== null)(
  `queued map items from the CLI ${skipped}`,
  () => {
    let cluster: PostgresCluster;
    beforeAll(async () => {
      assertBuilt();
      cluster = await startPostgresCluster(postgres);
    }, 120_000);
    afterAll(async () => {
      await cluster?.stop();
    });
    const sandbox = sandboxFixture();
    let queues = 0;
    /** A queue of its own for each test: one test's workers never take another's items. */
    const freshQueue = () => {
      queues += 1;
      return { env: { CONCLAVE_STORE_URL: cluster.url }, queue: `maps${queues}` };
    };
    const startWorker = (env: Record<string, string>, queue: string) => {
      const worker = sandbox.start(
        ['worker', '--queue', queue, '--concurrency', String(CONCURRENCY), '--on-uncertain', 'rerun'],
        { env },
      );
      let stdout = '';
      worker.child.stdout?.on('data', (chunk: string) => {
        stdout += chunk;
      });
      return { ...worker, stdout: () => stdout };
    };
    const logLines = (file: string) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => line.split(' ') as [string, string]);
    const until = async (
      what: string,
      condition: () => Promise<boolean> | boolean,
      workers: Array<RunningCli & { stdout?: () => string }>,
    ) => {
      const deadline = Date.now() + 240_000;
      while (!(await condition())) {
        if (Date.now() > deadline) {
          for (const worker of workers) worker.child.kill('SIGKILL');
          const output = await Promise.all(
            workers.map(async (worker) => `${worker.stdout?.() ?? ''}${(await worker.done).stderr}`),
          );
          throw new Error(`timed out waiting for ${what}; workers said:\n${output.join('\n---\n')}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };
    const queueRun = async (env: Record<string, string>, queue: string, log: string, seconds: number) => {
      writeFileSync(path.join(sandbox.workspace, log), '');
      writeFileSync(
        path.join(sandbox.workspace, 'items.json'),
        JSON.stringify(Array.from({ length: ITEMS }, (_, item) => `i${item}`)),
      );
      writeFileSync(path.join(sandbox.workspace, 'flow.yaml'), spec(log, seconds));
      const queued = await sandbox.run(['run', 'flow.yaml', '--queue', queue], { env });
      expect(queued.code, queued.stderr).toBe(0);
      return /^Queued: (\S+)$/m.exec(queued.stdout)?.[1] ?? '';
    };
    /** The session's status; null before a worker started it. */
    const status = async (env: Record<string, string>, id: string) => {
      const shown = await sandbox.run(['sessions', 'show', id, '--json'], { env });
      return shown.code === 0 ? (JSON.parse(shown.stdout) as { status: string }).status : null;
    };
    /** The run completed, its reduce step saw every item's output in the list's order, and its journal verifies. */
    const expectJoinedInOrder = async (env: Record<string, string>, id: string, log: string) => {
      expect(await status(env, id)).toBe('completed');
      const results = JSON.parse(readFileSync(path.join(sandbox.workspace, `${log}.results`), 'utf8')) as Array<{
        id: string;
        status: string;
        output: string;
      }>;
      expect(results.map((each) => `${each.id} ${each.status} ${each.output.trim()}`)).toEqual(
        Array.from({ length: ITEMS }, (_, item) => `i${item} completed item i${item}`),
      );
      const verify = await sandbox.run(['sessions', 'verify', id], { env });
      expect(verify.code, verify.stdout + verify.stderr).toBe(0);
    };

    it('three workers share the items of a queued map; each runs once and the run joins their outputs in order', async () => {
      const { env, queue } = freshQueue();
      const workers = [startWorker(env, queue), startWorker(env, queue), startWorker(env, queue)];
      try {
        const id = await queueRun(env, queue, 'items.log', 0.2);
        await until('the run to complete', async () => (await status(env, id)) === 'completed', workers);
        const lines = logLines(path.join(sandbox.workspace, 'items.log'));
        const ids = lines.map(([item]) => item).sort();
        expect(ids).toEqual(Array.from({ length: ITEMS }, (_, item) => `i${item}`).sort());
        const pids = new Set(lines.map(([, pid]) => Number(pid)));
        expect(pids.size).toBeGreaterThan(1);
        for (const pid of pids) expect(workers.map((worker) => worker.child.pid)).toContain(pid);
        await expectJoinedInOrder(env, id, 'items.log');
      } finally {
        for (const worker of workers) worker.child.kill('SIGTERM');
        await Promise.all(workers.map((worker) => worker.done));
      }
    }, 300_000);

    it('a worker SIGKILLed mid-run loses no item; only its items in flight run again', async () => {
      const { env, queue } = freshQueue();
      const workers = [startWorker(env, queue), startWorker(env, queue), startWorker(env, queue)];
      const log = path.join(sandbox.workspace, 'kill.log');
      try {
        const id = await queueRun(env, queue, 'kill.log', 0.5);
        const victim = workers[0] as (typeof workers)[number];
        // Killed once a third of the items ran, while it runs some of its own.
        await until(
          'a third of the items to run',
          () => {
            const lines = logLines(log);
            return lines.length >= ITEMS / 3 && lines.some(([, pid]) => Number(pid) === victim.child.pid);
          },
          workers,
        );
        victim.child.kill('SIGKILL');
        await victim.done;
        workers.push(startWorker(env, queue));
        await until('the run to complete', async () => (await status(env, id)) === 'completed', workers.slice(1));

        const runs = new Map<string, number[]>();
        for (const [item, pid] of logLines(log)) runs.set(item, [...(runs.get(item) ?? []), Number(pid)]);
        expect([...runs.keys()].sort()).toEqual(Array.from({ length: ITEMS }, (_, item) => `i${item}`).sort());
        const repeated = [...runs.entries()].filter(([, pids]) => pids.length > 1);
        for (const [item, pids] of repeated) {
          expect(pids, `item ${item} ran again`).toHaveLength(2);
          expect(pids[0], `item ${item}'s first run`).toBe(victim.child.pid);
        }
        expect(repeated.length).toBeLessThanOrEqual(CONCURRENCY);
        process.stderr.write(`queued map from the CLI: ${repeated.length} items ran again after the kill\n`);
        await expectJoinedInOrder(env, id, 'kill.log');
      } finally {
        for (const worker of workers) worker.child.kill('SIGTERM');
        await Promise.all(workers.map((worker) => worker.done));
      }
    }, 420_000);

    it("sessions show lists a queued run's items by state, and the worker running each running item", async () => {
      const { env, queue } = freshQueue();
      writeFileSync(path.join(sandbox.workspace, 'items.json'), JSON.stringify(['a', 'b', 'c', 'd', 'e', 'f']));
      writeFileSync(
        path.join(sandbox.workspace, 'show.yaml'),
        [
          'name: shown map',
          'steps:',
          '  - id: each',
          '    map:',
          '      items: { file: items.json }',
          '      parallel: 3',
          "      do: [{ shell: 'sleep 2; echo done' }]",
          '',
        ].join('\n'),
      );
      const queued = await sandbox.run(['run', 'show.yaml', '--queue', queue], { env });
      const id = /^Queued: (\S+)$/m.exec(queued.stdout)?.[1] ?? '';
      const worker = sandbox.start(['worker', '--queue', queue, '--concurrency', '2'], { env });
      type Shown = {
        queuedItems?: Array<{
          stepId: string;
          counts: Record<string, number>;
          items: Array<{
            id: string;
            state: string;
            sessionId: string | null;
            worker: { host: string; pid: number } | null;
          }>;
        }>;
      };
      const queuedItems = async () => {
        const shown = await sandbox.run(['sessions', 'show', id, '--json'], { env });
        return shown.code === 0 ? ((JSON.parse(shown.stdout) as Shown).queuedItems ?? []) : [];
      };
      try {
        await until('two items to run', async () => (await queuedItems())[0]?.counts.running === 2, [worker]);
        const [map] = await queuedItems();
        expect(map?.stepId).toBe('each');
        for (const item of map?.items.filter((each) => each.state === 'running') ?? []) {
          expect(item.worker).toEqual({ host: hostname(), pid: worker.child.pid });
          expect(item.sessionId).toMatch(/\S/);
        }
        expect(map?.items.filter((item) => item.state === 'waiting').map((item) => item.id)).toEqual(['d', 'e', 'f']);
        const text = await sandbox.run(['sessions', 'show', id], { env });
        expect(text.stdout).toMatch(/queued items: map step "each", 6 in all: \d running, .*\d waiting/);
        expect(text.stdout).toMatch(
          new RegExp(`\\n {4}[a-c] +running on ${hostname()}:${worker.child.pid} {2}\\(session \\S+\\)`),
        );
        expect(text.stdout).toMatch(/\n {4}f +waiting\n/);

        await until('the run to complete', async () => (await status(env, id)) === 'completed', [worker]);
        const done = await sandbox.run(['sessions', 'show', id], { env });
        expect(done.stdout).toContain('queued items: map step "each", 6 in all: 6 done');
        const [ended] = await queuedItems();
        expect(ended?.items.map((item) => `${item.id} ${item.state}`)).toEqual(
          ['a', 'b', 'c', 'd', 'e', 'f'].map((item) => `${item} done`),
        );
      } finally {
        worker.child.kill('SIGTERM');
        await worker.done;
      }
    }, 120_000);
  },
);
