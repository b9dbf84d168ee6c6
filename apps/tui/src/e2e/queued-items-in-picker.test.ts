// A queued run's map items in the picker's details pane, in a real terminal (tmux) on a real
// PostgreSQL server: a `conclave worker` runs two of the run's items; the details of the run,
// parked while its items run, count them by state and name the worker running each.
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import {
  announceSkip,
  findPostgres,
  type PostgresCluster,
  startPostgresCluster,
} from '@resume/storage-postgres/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliBundle, createTmuxTerminal, ensureCliBuilt, tmuxAvailable } from './tmux-terminal.js';

const postgres = findPostgres();
const skipped = announceSkip(postgres);

describe.skipIf(!tmuxAvailable || !postgres.available || postgres.externalUrl !== null)(
  `queued map items in the picker (120x30) ${skipped}`,
  () => {
    const terminal = createTmuxTerminal('conclave-queued-items', { columns: 120, rows: 30 });
    const { home, workspace, waitForScreen, type } = terminal;
    let cluster: PostgresCluster;
    let worker: ChildProcess | null = null;

    beforeAll(async () => {
      ensureCliBuilt();
      await terminal.open();
      cluster = await startPostgresCluster(postgres);
    }, 120_000);

    afterAll(async () => {
      if (worker && worker.exitCode === null) {
        const exited = new Promise((resolve) => worker?.once('exit', resolve));
        worker.kill('SIGTERM');
        await exited;
      }
      terminal.close();
      await cluster?.stop();
    }, 60_000);

    const env = () => ({ PATH: process.env.PATH ?? '', CONCLAVE_HOME: home, CONCLAVE_STORE_URL: cluster.url });
    const conclave = (args: string[]) =>
      execFileSync(process.execPath, [cliBundle, ...args], { cwd: workspace, env: env(), encoding: 'utf8' });

    it('shows the items by state and the worker running each', { timeout: 120_000 }, async () => {
      writeFileSync(path.join(workspace, 'items.json'), JSON.stringify(['a', 'b', 'c', 'd', 'e']));
      writeFileSync(
        path.join(workspace, 'flow.yaml'),
        [
          'name: shown map',
          'steps:',
          '  - id: each',
          '    map:',
          '      items: { file: items.json }',
          '      parallel: 3',
          "      do: [{ shell: 'sleep 60' }]",
          '',
        ].join('\n'),
      );
      const id = /^Queued: (\S+)$/m.exec(conclave(['run', 'flow.yaml', '--queue', 'maps']))?.[1] ?? '';
      const started = spawn(process.execPath, [cliBundle, 'worker', '--queue', 'maps', '--concurrency', '2'], {
        cwd: workspace,
        env: env(),
        stdio: 'ignore',
      });
      worker = started;
      // Two items run (the worker's concurrency), one waits on the queue, two wait for `parallel`.
      const deadline = Date.now() + 60_000;
      for (;;) {
        // Not in the store until the worker starts it.
        const shown = JSON.parse(
          spawnSync(process.execPath, [cliBundle, 'sessions', 'show', id, '--json'], {
            cwd: workspace,
            env: env(),
            encoding: 'utf8',
          }).stdout.trim() || '{}',
        ) as { queuedItems?: Array<{ counts: Record<string, number> }> };
        if (shown.queuedItems?.[0]?.counts.running === 2) break;
        if (Date.now() > deadline) throw new Error(`the items did not start: ${JSON.stringify(shown.queuedItems)}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }

      type(
        `CONCLAVE_HOME=${home} CONCLAVE_STORE_URL=${cluster.url} ${process.execPath} ${cliBundle} tui; echo "EXIT=$?"`,
        'Enter',
      );
      await waitForScreen((text) => text.includes('shown map'), 'the picker');
      // The run is parked (interrupted) while its items run: the status filter leaves it alone.
      type('s');
      const details = await waitForScreen(
        (text) => text.includes('Queued items of each') && text.includes('running:'),
        'the queued items in the details pane',
      );
      expect(details).toContain('Queued items of each: 5 · 2 running · 1 queued · 2 waiting');
      expect(details).toMatch(
        new RegExp(`running: [a-c] on ${hostname()}:${started.pid}, [a-c] on ${hostname()}:${started.pid}`),
      );
      type('q');
      const done = await waitForScreen((text) => /EXIT=\d+/.test(text), 'the picker to exit');
      expect(done).toContain('EXIT=0');
    });
  },
);
