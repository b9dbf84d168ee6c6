// Workers on many machines from the command line, on a real PostgreSQL server: `run --queue`
// puts a workflow run on a queue, `conclave worker` runs it from the recorded spec in its own
// workspace and stops cleanly on SIGTERM (what it cut short goes back on the queue and the next
// worker resumes it), `conclave workers` and `conclave queue list` say who runs what.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  announceSkip,
  findPostgres,
  type PostgresCluster,
  startPostgresCluster,
} from '@resume/storage-postgres/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, type RunningCli } from './run-cli.js';
import { sandboxFixture } from './sandbox-fixture.js';

const run = promisify(execFile);
const postgres = findPostgres();
const skipped = announceSkip(postgres);
const psqlDirectory = postgres.available ? (postgres.binDirectory ?? '') : '';

describe.skipIf(!postgres.available || postgres.externalUrl !== null)(`conclave workers ${skipped}`, () => {
  let cluster: PostgresCluster;
  beforeAll(async () => {
    assertBuilt();
    cluster = await startPostgresCluster(postgres);
  });
  afterAll(async () => {
    await cluster?.stop();
  });
  const sandbox = sandboxFixture();
  let database = 0;
  /** A database of its own for each test: queues and workers of one test never meet another's. */
  const freshStore = async () => {
    database += 1;
    const url = new URL(cluster.url);
    const name = `workers_${database}`;
    await run(path.join(psqlDirectory, 'psql'), [
      cluster.url,
      '-v',
      'ON_ERROR_STOP=1',
      '-c',
      `CREATE DATABASE ${name}`,
    ]);
    url.pathname = `/${name}`;
    return { CONCLAVE_STORE_URL: url.toString() };
  };

  /** A worker process and the lines it printed on stdout so far. */
  const startWorker = (args: string[], env: Record<string, string>, cwd?: string) => {
    const worker = sandbox.start(['worker', ...args], { env, ...(cwd ? { cwd } : {}) });
    let stdout = '';
    worker.child.stdout?.on('data', (chunk: string) => {
      stdout += chunk;
    });
    return { ...worker, stdout: () => stdout };
  };
  const until = async (
    what: string,
    condition: () => boolean | Promise<boolean>,
    worker?: RunningCli & { stdout(): string },
    timeoutMs = 60_000,
  ) => {
    const deadline = Date.now() + timeoutMs;
    const printed = async () =>
      worker
        ? `\nworker stdout:\n${worker.stdout()}\nworker stderr:\n${(await worker.done.catch(() => null))?.stderr ?? ''}`
        : '';
    while (!(await condition())) {
      if (Date.now() > deadline) {
        worker?.child.kill('SIGKILL');
        throw new Error(`timed out waiting for ${what}${await printed()}`);
      }
      if (worker && worker.child.exitCode !== null)
        throw new Error(`the worker exited before ${what}${await printed()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  it('run --queue queues the run; a worker runs the recorded spec in its own workspace', async () => {
    const env = await freshStore();
    await writeFile(
      path.join(sandbox.workspace, 'greet.yaml'),
      [
        'name: greet',
        'variables: { who: nobody }',
        'steps:',
        `  - shell: 'echo "hello {{ who }}" >> greetings.txt'`,
        '',
      ].join('\n'),
    );
    const queued = await sandbox.run(['run', 'greet.yaml', '--queue', 'greetings', '--var', 'who=world'], { env });
    expect(queued.code, queued.stderr).toBe(0);
    const id = /^Queued: (\S+)$/m.exec(queued.stdout)?.[1] ?? '';
    expect(id).not.toBe('');
    expect(queued.stderr).toContain('conclave worker --queue greetings');
    expect(queued.stderr).toContain(`conclave sessions show ${id}`);
    // Nothing ran here, and the worker needs no copy of the file.
    expect(existsSync(path.join(sandbox.workspace, 'greetings.txt'))).toBe(false);
    await rm(path.join(sandbox.workspace, 'greet.yaml'));

    const elsewhere = path.join(sandbox.root, 'worker-workspace');
    await mkdir(elsewhere);
    // The worker's config caps the queue over all workers.
    await writeFile(path.join(sandbox.workspace, '.conclave.yaml'), 'queues:\n  greetings: { maxRunning: 2 }\n');
    const worker = startWorker(['--queue', 'greetings', '--workspace', elsewhere], env);
    await until('the item to complete', () => worker.stdout().includes(`completed ${id}`), worker);
    expect(worker.stdout()).toContain(`started   ${id} (queue greetings)`);
    expect(readFileSync(path.join(elsewhere, 'greetings.txt'), 'utf8')).toBe('hello world\n');
    const shown = await sandbox.json<{ status: string; specs: Array<{ content: string }> }>(['sessions', 'show', id], {
      env,
    });
    expect(shown.status).toBe('completed');
    const [greetings] = await sandbox.json<Array<Record<string, unknown>>>(['queue', 'list'], { env });
    expect(greetings).toMatchObject({ queue: 'greetings', completed: 1, maxRunning: 2 });

    worker.child.kill('SIGTERM');
    const ended = await worker.done;
    expect(ended.code, ended.stderr).toBe(0);
    expect(ended.stderr).toContain('Worker stopped.');
  }, 120_000);

  it('SIGTERM interrupts a running item and puts it back; the next worker resumes it without repeating a step', async () => {
    const env = await freshStore();
    await writeFile(
      path.join(sandbox.workspace, 'slow.yaml'),
      [
        'name: slow',
        'steps:',
        "  - shell: 'echo one >> log.txt'",
        "  - shell: 'touch started; sleep 30'",
        "  - shell: 'echo three >> log.txt'",
        '',
      ].join('\n'),
    );
    const queued = await sandbox.run(['run', 'slow.yaml', '--queue', 'slow'], { env });
    expect(queued.code, queued.stderr).toBe(0);
    const id = /^Queued: (\S+)$/m.exec(queued.stdout)?.[1] ?? '';

    const first = startWorker(['--queue', 'slow'], env);
    await until('the long step to start', () => existsSync(path.join(sandbox.workspace, 'started')), first);
    first.child.kill('SIGTERM');
    const stopped = await first.done;
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(stopped.stderr).toContain('interrupting 1 running');
    expect(stopped.stdout).toContain(`requeued  ${id}`);
    const [counts] = await sandbox.json<Array<{ queue: string; queued: number }>>(['queue', 'list'], { env });
    expect(counts).toMatchObject({ queue: 'slow', queued: 1 });

    await rm(path.join(sandbox.workspace, 'started'));
    await writeFile(path.join(sandbox.workspace, 'slow.yaml'), 'name: changed\nsteps: []\n');
    const second = startWorker(['--queue', 'slow', '--on-uncertain', 'rerun'], env);
    await until('the long step to start again', () => existsSync(path.join(sandbox.workspace, 'started')), second);
    // The resumed run is the recorded one: its first step is not run again.
    expect(readFileSync(path.join(sandbox.workspace, 'log.txt'), 'utf8')).toBe('one\n');
    second.child.kill('SIGKILL');
    await second.done;
  }, 120_000);

  it('conclave workers lists live workers and a killed one as gone; queue list counts each queue', async () => {
    const env = await freshStore();
    const live = startWorker(['--queue', 'a', '--queue', 'b', '--concurrency', '2'], env);
    const killed = startWorker(['--queue', 'c'], env);
    await live.waitFor('takes items of');
    await killed.waitFor('takes items of');
    type Listed = {
      host: string;
      pid: number;
      queues: string[];
      running: number;
      heartbeatAgeSeconds: number;
      gone: boolean;
    };
    const listed = await sandbox.json<Listed[]>(['workers'], { env });
    expect(listed.map((worker) => [worker.pid, worker.queues, worker.gone]).sort()).toEqual(
      [
        [live.child.pid, ['a', 'b'], false],
        [killed.child.pid, ['c'], false],
      ].sort(),
    );
    const table = await sandbox.run(['workers'], { env });
    expect(table.stdout).toMatch(/HOST\s+PID\s+QUEUES\s+RUNNING\s+SEEN\s+STATE/);
    expect(table.stdout).toMatch(new RegExp(`${live.child.pid}\\s+a,b\\s+0\\s+\\d+s ago\\s+live`));

    killed.child.kill('SIGKILL');
    await killed.done;
    // Three missed heartbeats (5 s each) and it is gone.
    await until('the killed worker to be listed as gone', async () => {
      const now = await sandbox.json<Listed[]>(['workers'], { env });
      return now.find((worker) => worker.pid === killed.child.pid)?.gone === true;
    });
    const after = await sandbox.json<Listed[]>(['workers'], { env });
    expect(after.find((worker) => worker.pid === live.child.pid)).toMatchObject({ gone: false });
    expect(after.find((worker) => worker.pid === killed.child.pid)?.heartbeatAgeSeconds).toBeGreaterThanOrEqual(15);

    await writeFile(path.join(sandbox.workspace, 'quick.yaml'), "name: quick\nsteps:\n  - shell: 'true'\n");
    for (const queue of ['a', 'c', 'c']) {
      expect((await sandbox.run(['run', 'quick.yaml', '--queue', queue], { env })).code).toBe(0);
    }
    await until('the item of queue a to complete', () => live.stdout().includes('completed'), live);
    const capped = await sandbox.run(['queue', 'set-cap', 'c', '1'], { env });
    expect(capped.stdout).toContain('At most 1 item of queue "c" run at once, over all workers.');
    expect((await sandbox.run(['queue', 'set-cap', 'c', 'lots'], { env })).code).toBe(64);
    const counts = await sandbox.json<Array<{ queue: string }>>(['queue', 'list'], { env });
    expect(counts).toEqual([
      { queue: 'a', queued: 0, running: 0, failed: 0, completed: 1, maxRunning: null },
      { queue: 'b', queued: 0, running: 0, failed: 0, completed: 0, maxRunning: null },
      { queue: 'c', queued: 2, running: 0, failed: 0, completed: 0, maxRunning: 1 },
    ]);
    const human = await sandbox.run(['queue', 'list'], { env });
    expect(human.stdout).toMatch(/QUEUE\s+QUEUED\s+RUNNING\s+FAILED\s+COMPLETED\s+CAP\n/);
    expect(human.stdout).toMatch(/\na\s+0\s+0\s+0\s+1\s+-\n/);
    expect(human.stdout).toMatch(/\nc\s+2\s+0\s+0\s+0\s+1\n/);
    live.child.kill('SIGTERM');
    expect((await live.done).code).toBe(0);
  }, 120_000);

  it('schedule add queues a run of the spec every minute; list shows it, remove stops it', async () => {
    const env = await freshStore();
    await writeFile(
      path.join(sandbox.workspace, 'tick.yaml'),
      [
        'name: tick',
        'variables: { what: tock }',
        'steps:',
        `  - shell: 'echo "{{ what }} $CONCLAVE_SESSION_ID" >> ticks.txt'`,
        '',
      ].join('\n'),
    );
    const added = await sandbox.run(
      ['schedule', 'add', 'tick.yaml', '--cron', '* * * * *', '--queue', 'ticks', '--var', 'what=tick'],
      { env },
    );
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain('Scheduled "tick": tick.yaml at "* * * * *" (UTC) on queue "ticks".');
    await rm(path.join(sandbox.workspace, 'tick.yaml'));
    const listed = await sandbox.json<Array<Record<string, unknown>>>(['schedule', 'list'], { env });
    expect(listed).toMatchObject([{ name: 'tick', queue: 'ticks', cron: '* * * * *', file: 'tick.yaml' }]);

    // A one-minute cron (the shortest pg-boss has): the run comes within about 90 s.
    const worker = startWorker(['--queue', 'ticks'], env);
    const ticks = path.join(sandbox.workspace, 'ticks.txt');
    await until('a scheduled run to complete', () => worker.stdout().includes('completed'), worker, 120_000);
    const [line] = readFileSync(ticks, 'utf8').trim().split('\n');
    const id = line?.split(' ')[1] ?? '';
    expect(line).toBe(`tick ${id}`);
    expect((await sandbox.json<{ status: string }>(['sessions', 'show', id], { env })).status).toBe('completed');

    const removed = await sandbox.run(['schedule', 'remove', 'tick'], { env });
    expect(removed.code, removed.stderr).toBe(0);
    expect(await sandbox.json(['schedule', 'list'], { env })).toEqual([]);
    const again = await sandbox.run(['schedule', 'remove', 'tick'], { env });
    expect(again.code).toBe(64);
    expect(again.stderr).toContain('There is no schedule named "tick"');
    await writeFile(path.join(sandbox.workspace, 'quick.yaml'), "name: quick\nsteps:\n  - shell: 'true'\n");
    const badCron = await sandbox.run(['schedule', 'add', 'quick.yaml', '--cron', 'every minute'], { env });
    expect(badCron.code).toBe(64);
    expect(badCron.stderr).toContain('Cannot schedule "quick" at "every minute"');
    worker.child.kill('SIGTERM');
    expect((await worker.done).code).toBe(0);
  }, 180_000);

  it('refuses to queue or work without a PostgreSQL store, and says how to give one', async () => {
    await writeFile(path.join(sandbox.workspace, 'quick.yaml'), "name: quick\nsteps:\n  - shell: 'true'\n");
    const worker = await sandbox.run(['worker']);
    expect(worker.code).toBe(64);
    expect(worker.stderr).toContain('conclave worker needs a PostgreSQL store');
    expect(worker.stderr).toContain('--store postgres://');
    const queued = await sandbox.run(['run', 'quick.yaml', '--queue', 'q']);
    expect(queued.code).toBe(64);
    expect(queued.stderr).toContain('conclave run --queue needs a PostgreSQL store');
    // A spec that cannot run is refused before it is queued.
    await writeFile(
      path.join(sandbox.workspace, 'broken.yaml'),
      "name: broken\nsteps:\n  - shell: 'echo {{ nope }}'\n",
    );
    const broken = await sandbox.run(['run', 'broken.yaml', '--queue', 'q'], { env: await freshStore() });
    expect(broken.code).toBe(64);
    expect(broken.stderr).toContain('nope');
  }, 60_000);
});
