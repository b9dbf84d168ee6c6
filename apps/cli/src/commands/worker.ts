// `conclave worker`: runs the workflow runs queued with `conclave run --queue` (and resumes the
// ones a dead or stopped worker left), until SIGTERM or Ctrl+C (docs/workers.md). Each item is
// run in this worker's workspace with this machine's providers and keys; the spec comes from
// the item. The first signal takes no new items and interrupts the running ones, which are
// journaled interrupted and go back on their queue for the next worker; a second leaves at once.
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from '@resume/core/spec';
import type { ProviderName } from '@resume/runner';
import { registerWorkflowJob } from '@resume/runner';
import { ExitCode } from '@resume/runner/exit-codes';
import type { CliContext } from '../context/cli-context.js';
import { withWorkQueue } from '../context/open-work-queue.js';
import { budgetsOf } from '../runs/budgets.js';
import { createModelResolver, SCRIPTED_NOTICE, selectionFrom } from '../runs/models.js';

interface WorkerFlags {
  queue?: string[];
  concurrency?: string;
  maxRunning?: string;
  workspace?: string;
  onUncertain?: 'rerun' | 'skip' | 'abort';
}

export async function workerCommand(context: CliContext, flags: WorkerFlags): Promise<number> {
  const { environment, terminal } = context;
  const queues = flags.queue && flags.queue.length > 0 ? [...new Set(flags.queue)] : ['default'];
  const concurrency = flags.concurrency === undefined ? 4 : Number(flags.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 256) {
    throw new UsageError(`--concurrency "${flags.concurrency}" is not a number of items from 1 to 256.`, {
      hint: 'Example: conclave worker --queue reviews --concurrency 8',
    });
  }
  const maxRunning = flags.maxRunning === undefined ? undefined : Number(flags.maxRunning);
  if (maxRunning !== undefined && (!Number.isInteger(maxRunning) || maxRunning < 1)) {
    throw new UsageError(`--max-running "${flags.maxRunning}" is not a number of items, 1 or more.`, {
      hint: 'Example: conclave worker --queue a --queue b --concurrency 4 --max-running 6',
    });
  }
  const workspaceDir = path.resolve(environment.cwd, flags.workspace ?? '.');
  if (!existsSync(workspaceDir) || !statSync(workspaceDir).isDirectory()) {
    throw new UsageError(`--workspace ${workspaceDir} is not a directory.`, {
      hint: "Shell steps of queued runs run there: give an existing directory (default: the worker's current one).",
    });
  }
  return withWorkQueue(context, 'conclave worker', async (queue) => {
    const { config } = context.config();
    const engine = await context.engine();
    const selection = selectionFrom({
      flagProvider: context.options.provider as ProviderName | undefined,
      flagModel: context.options.model,
      flagScript: undefined,
      recorded: null,
      config,
      env: environment.env,
      cwd: workspaceDir,
    });
    const models = await createModelResolver(selection, {
      config,
      env: environment.env,
      providerForced: context.options.provider !== undefined,
    });
    if (selection.provider === 'scripted') terminal.note(SCRIPTED_NOTICE);
    const onUncertain = flags.onUncertain ?? config.resume.onUncertain;
    // A run's map items go on the queue it was taken from, for any worker (its own, queue).
    const jobs = registerWorkflowJob(
      engine,
      {
        models: models.resolve,
        workspaceDir,
        env: { ...environment.env },
        // Nobody is there to answer: the resume goes ahead, and an unsafe step left unfinished is
        // decided as --on-uncertain says (without it, its session waits for `conclave run --resume`).
        decisions: {
          confirmResume: () => true,
          ...(onUncertain ? { uncertainStep: () => onUncertain, uncertainChoice: onUncertain } : {}),
        },
        availableModels: models.availableModels,
        allowCommands: config.tools.allowCommands,
        mcp: config.mcp,
        limits: config.limits,
        budgets: budgetsOf(context),
        maxRecoveries: config.resume.maxRecoveries,
        checkpointInterval: config.checkpoint.interval,
        maxParallel: config.limits.maxParallel,
      },
      queue,
    );

    // The caps the config sets (queues.<name>.maxRunning), for every worker of those queues.
    for (const [name, settings] of Object.entries(config.queues)) {
      await queue.setCap(name, settings.maxRunning);
      terminal.note(
        `Queue "${name}": at most ${settings.maxRunning} running at once over all workers (queues.${name}.maxRunning).`,
      );
    }
    const recovered = await engine.recover();
    for (const each of recovered.recovered) terminal.note(`Recovered ${each.id} (${each.job}): ${each.status}.`);

    const worker = await queue.worker(jobs, {
      queues,
      concurrency,
      ...(maxRunning === undefined ? {} : { maxRunning }),
      onStart: (item) => terminal.out(`${stamp(environment.now())} started   ${item.sessionId} (queue ${item.queue})`),
      onItem: (item) => {
        const reason = item.error instanceof Error ? `: ${item.error.message.split('\n')[0]}` : '';
        terminal.out(
          `${stamp(environment.now())} ${item.outcome.padEnd(9)} ${item.sessionId} (queue ${item.queue})${reason}`,
        );
      },
    });
    terminal.note(
      `Worker ${worker.host}:${worker.pid} takes items of ${queues.map((name) => `"${name}"`).join(', ')}, ${concurrency} at once per queue, in ${workspaceDir}.`,
    );
    terminal.note('Ctrl+C or SIGTERM stops it: running items are interrupted and go back on their queue.');

    let stopping = false;
    await new Promise<void>((resolve, reject) => {
      const stopListening = environment.onSignal((signal) => {
        if (stopping) {
          terminal.warn('Exiting now; items cut short are run again by another worker once their claim expires.');
          environment.exitNow(ExitCode.interrupted);
        }
        stopping = true;
        const running = worker.running();
        terminal.warn(
          `${signal === 'SIGINT' ? 'Ctrl+C' : signal}: taking no new items${running > 0 ? `; interrupting ${running} running (they go back on their queue)` : ''}… (again to exit at once)`,
        );
        worker.stop({ interrupt: true }).then(() => {
          stopListening();
          resolve();
        }, reject);
      });
    });
    terminal.note('Worker stopped.');
    return 0;
  });
}

function stamp(date: Date): string {
  return date.toISOString().slice(11, 19);
}
