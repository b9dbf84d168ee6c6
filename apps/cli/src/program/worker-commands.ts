// The commands of workers on many machines (docs/workers.md): `worker`, `workers` and `queue`,
// registered on the program by build-program.ts, each importing its module (and pg-boss) only
// when it runs.
import { Command, Option } from 'commander';
import type { CliContext } from '../context/cli-context.js';

type Act = (work: (context: CliContext, command: Command) => Promise<number>) => (...args: unknown[]) => Promise<void>;

interface Helpers {
  addGlobalOptions: (command: Command) => Command;
  examples: (lines: string[]) => string;
}

export function addWorkerCommands(program: Command, act: Act, helpers: Helpers): void {
  const { addGlobalOptions, examples } = helpers;
  const worker = addGlobalOptions(
    new Command('worker')
      .description('run the workflow runs queued with run --queue, on a PostgreSQL store, until SIGTERM or Ctrl+C')
      .option(
        '--queue <name>',
        'take items of this queue (repeatable; default: default)',
        (value: string, all: string[] = []) => [...all, value],
      )
      .option('--concurrency <n>', 'items run at once, per queue (default 4)')
      .option('--max-running <n>', 'items run at once over all its queues (default: no limit beyond --concurrency)')
      .option('--workspace <dir>', "where queued runs' shell steps and tools run (default: the current directory)")
      .addOption(
        new Option(
          '--on-uncertain <choice>',
          'an unsafe step a dead worker left unfinished: rerun|skip|abort (default: resume.onUncertain, else it waits for a decision)',
        ).choices(['rerun', 'skip', 'abort']),
      ),
  );
  worker.addHelpText(
    'after',
    `
A worker takes items of its queues from the PostgreSQL store (--store or $CONCLAVE_STORE_URL) and
runs each with this machine's providers, keys and config, in --workspace; the spec is the one
recorded when the run was queued. It prints a line as each item starts and ends. While it lives
its items stay its own however long they run; once it dies another worker takes them about 30 s
later and resumes each from its journal. SIGTERM or Ctrl+C: no new items, the running ones are
interrupted (checkpointed) and go back on their queue; a second signal exits at once.
${examples([
  'conclave worker --store postgres://conclave@db/conclave --queue reviews --concurrency 8',
  'conclave worker --queue reviews --queue builds --workspace /srv/checkout',
  'conclave worker --on-uncertain rerun     # an unsafe step a dead worker left: run it again',
  'conclave run review.yaml --queue reviews --var pr=1234',
])}
See docs/workers.md for a systemd unit and a container.
`,
  );
  worker.action(
    act(async (context, command) => (await import('../commands/worker.js')).workerCommand(context, command.opts())),
  );
  program.addCommand(worker);

  const workers = addGlobalOptions(
    new Command('workers').description(
      'the workers of the PostgreSQL store: host, pid, queues, running items, last heartbeat; gone after 3 missed',
    ),
  );
  workers.addHelpText('after', examples(['conclave workers', 'conclave workers --json | jq ".[] | select(.gone)"']));
  workers.action(act(async (context) => (await import('../commands/queue-status.js')).listWorkersCommand(context)));
  program.addCommand(workers);

  const queue = new Command('queue').description('the work queues of the PostgreSQL store');
  const list = addGlobalOptions(
    new Command('list').alias('ls').description('queued, running, failed and completed items of each queue'),
  );
  list.addHelpText('after', examples(['conclave queue list', 'conclave queue list --json']));
  list.action(act(async (context) => (await import('../commands/queue-status.js')).listQueuesCommand(context)));
  queue.addCommand(list);
  const setCap = addGlobalOptions(
    new Command('set-cap')
      .description('at most N items of a queue run at once over all workers (none: no cap)')
      .argument('<queue>', 'the queue')
      .argument('<n>', 'a whole number, or none'),
  );
  setCap.addHelpText(
    'after',
    `
Workers see a new cap at their next item; items already running go on. An item that finds the
cap reached waits in its worker (it stays claimed) until one ends. A worker's own limits are
--concurrency (per queue) and --max-running (over its queues).
${examples(['conclave queue set-cap builds 2', 'conclave queue set-cap builds none', 'conclave queue list'])}`,
  );
  setCap.action(
    act(async (context, command) =>
      (await import('../commands/queue-status.js')).setQueueCapCommand(
        context,
        command.args[0] ?? '',
        command.args[1] ?? '',
      ),
    ),
  );
  queue.addCommand(setCap);
  program.addCommand(queue);

  const schedule = new Command('schedule').description('workflow runs queued on a cron schedule (PostgreSQL store)');
  const scheduleModule = () => import('../commands/schedule.js');
  const add = addGlobalOptions(
    new Command('add')
      .description('queue a run of a workflow spec at every time a cron expression names')
      .argument('<file>', 'spec.yaml or task.prompt.md (its text is recorded now)')
      .requiredOption('--cron <expression>', 'five fields, minute first: "*/5 * * * *", "0 9 * * 1-5"')
      .option('--queue <name>', 'the queue its runs go on (default: default)')
      .option(
        '--name <name>',
        'the schedule name (default: the file name without its extension); the same name replaces it',
      )
      .option('--tz <zone>', 'the time zone the expression is read in (default UTC), e.g. Europe/Paris')
      .option('--title <title>', "the runs' session title")
      .option(
        '--var <key=value>',
        'set a variable (repeatable)',
        (value: string, all: string[]) => [...all, value],
        [],
      ),
  );
  add.addHelpText(
    'after',
    `
Any running worker's process sends the due runs (about 30 s after the minute at most); with no
worker running, a time that passes is skipped. Each run is a new session.
${examples([
  "conclave schedule add nightly.yaml --cron '0 2 * * *' --queue builds --tz Europe/Paris",
  "conclave schedule add triage.yaml --cron '*/5 * * * *' --queue triage --var label=bug",
  'conclave schedule list',
  'conclave schedule remove nightly',
])}`,
  );
  add.action(
    act(async (context, command) =>
      (await scheduleModule()).scheduleAddCommand(context, command.args[0] ?? '', command.opts()),
    ),
  );
  schedule.addCommand(add);
  const scheduleList = addGlobalOptions(new Command('list').alias('ls').description('the schedules'));
  scheduleList.addHelpText('after', examples(['conclave schedule list', 'conclave schedule list --json']));
  scheduleList.action(act(async (context) => (await scheduleModule()).scheduleListCommand(context)));
  schedule.addCommand(scheduleList);
  const remove = addGlobalOptions(
    new Command('remove')
      .alias('rm')
      .description('remove a schedule (its runs already queued stay)')
      .argument('<name>'),
  );
  remove.addHelpText('after', examples(['conclave schedule remove nightly']));
  remove.action(
    act(async (context, command) => (await scheduleModule()).scheduleRemoveCommand(context, command.args[0] ?? '')),
  );
  schedule.addCommand(remove);
  program.addCommand(schedule);
}
