// `conclave schedule add|list|remove`: workflow runs put on a queue on a cron schedule
// (docs/workers.md#schedules). The spec is read and checked when the schedule is made, and its
// text goes with every item, as with `run --queue`.
import path from 'node:path';
import { UsageError } from '@resume/core/spec';
import { WORKFLOW_JOB } from '@resume/runner';
import type { CliContext } from '../context/cli-context.js';
import { withWorkQueue } from '../context/open-work-queue.js';
import { queuedSpec } from './queue-run.js';
import { parseVariables } from './run-workflow.js';

interface ScheduleAddFlags {
  cron: string;
  queue?: string;
  name?: string;
  var?: string[];
  tz?: string;
  title?: string;
}

export async function scheduleAddCommand(context: CliContext, file: string, flags: ScheduleAddFlags): Promise<number> {
  const name = flags.name ?? path.basename(file).replace(/(\.prompt\.md|\.ya?ml)$/i, '');
  const queueName = flags.queue ?? 'default';
  const item = queuedSpec(context, { file, variables: parseVariables(flags.var ?? []), title: flags.title });
  return withWorkQueue(context, 'conclave schedule', async (queue) => {
    await queue.schedule(name, flags.cron, WORKFLOW_JOB, item, {
      queue: queueName,
      ...(flags.tz === undefined ? {} : { tz: flags.tz }),
    });
    const terminal = context.terminal;
    if (context.options.json) terminal.data(JSON.stringify({ name, queue: queueName, cron: flags.cron }));
    else
      terminal.out(`Scheduled "${name}": ${file} at "${flags.cron}" (${flags.tz ?? 'UTC'}) on queue "${queueName}".`);
    terminal.note(`Each time, a new run goes on the queue for a worker (conclave worker --queue ${queueName}).`);
    terminal.note(`Remove it with: conclave schedule remove ${name}`);
    return 0;
  });
}

export async function scheduleListCommand(context: CliContext): Promise<number> {
  return withWorkQueue(context, 'conclave schedule list', async (queue) => {
    const schedules = await queue.schedules();
    const terminal = context.terminal;
    if (context.options.json) {
      terminal.data(
        JSON.stringify(
          schedules.map(({ input, ...schedule }) => ({
            ...schedule,
            file: (input as { file?: string } | null)?.file ?? null,
          })),
        ),
      );
      return 0;
    }
    if (schedules.length === 0) {
      terminal.note("No schedules. Add one with: conclave schedule add spec.yaml --cron '*/5 * * * *' --queue <name>");
      return 0;
    }
    for (const schedule of schedules) {
      const file = (schedule.input as { file?: string } | null)?.file ?? schedule.job;
      terminal.out(`${schedule.name}  ${schedule.cron} (${schedule.timezone})  ${file}  queue ${schedule.queue}`);
    }
    return 0;
  });
}

export async function scheduleRemoveCommand(context: CliContext, name: string): Promise<number> {
  return withWorkQueue(context, 'conclave schedule remove', async (queue) => {
    if (!(await queue.unschedule(name))) {
      throw new UsageError(`There is no schedule named "${name}".`, { hint: 'See them with: conclave schedule list' });
    }
    context.terminal.out(`Removed the schedule "${name}". Runs it queued already stay on their queue.`);
    return 0;
  });
}
