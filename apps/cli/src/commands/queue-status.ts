// `conclave workers` and `conclave queue list`: who runs queued items, and how many wait, run,
// failed and completed on each queue (docs/workers.md#watching-workers-and-queues).
import { UsageError } from '@resume/core/spec';
import type { CliContext } from '../context/cli-context.js';
import { withWorkQueue } from '../context/open-work-queue.js';

export async function listWorkersCommand(context: CliContext): Promise<number> {
  return withWorkQueue(context, 'conclave workers', async (queue) => {
    const workers = await queue.workers();
    const terminal = context.terminal;
    if (context.options.json) {
      terminal.data(JSON.stringify(workers));
      return 0;
    }
    if (workers.length === 0) {
      terminal.note('No workers. Start one with: conclave worker --queue <name>');
      return 0;
    }
    const rows = workers.map((worker) => [
      worker.host,
      String(worker.pid),
      worker.queues.join(','),
      String(worker.running),
      `${worker.heartbeatAgeSeconds}s ago`,
      worker.gone ? 'gone' : 'live',
    ]);
    printTable(context, ['HOST', 'PID', 'QUEUES', 'RUNNING', 'SEEN', 'STATE'], rows);
    const gone = workers.filter((worker) => worker.gone).length;
    if (gone > 0) {
      terminal.note(
        `${gone} gone: not heard from for 3 heartbeats. Their items run elsewhere once their claims expire.`,
      );
    }
    return 0;
  });
}

export async function listQueuesCommand(context: CliContext): Promise<number> {
  return withWorkQueue(context, 'conclave queue list', async (queue) => {
    const caps = await queue.caps();
    const counts = (await queue.counts()).map((each) => ({ ...each, maxRunning: caps[each.queue] ?? null }));
    const terminal = context.terminal;
    if (context.options.json) {
      terminal.data(JSON.stringify(counts));
      return 0;
    }
    if (counts.length === 0) {
      terminal.note('No queues yet. Queue a run with: conclave run spec.yaml --queue <name>');
      return 0;
    }
    printTable(
      context,
      ['QUEUE', 'QUEUED', 'RUNNING', 'FAILED', 'COMPLETED', 'CAP'],
      counts.map((each) => [
        each.queue,
        String(each.queued),
        String(each.running),
        String(each.failed),
        String(each.completed),
        each.maxRunning === null ? '-' : String(each.maxRunning),
      ]),
    );
    return 0;
  });
}

function printTable(context: CliContext, header: string[], rows: string[][]): void {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd();
  context.terminal.out(context.terminal.bold(line(header)));
  for (const row of rows) context.terminal.out(line(row));
}

export async function setQueueCapCommand(context: CliContext, queueName: string, value: string): Promise<number> {
  const maxRunning = /^(none|off)$/i.test(value) ? null : Number(value);
  if (maxRunning !== null && (!Number.isInteger(maxRunning) || maxRunning < 1)) {
    throw new UsageError(`"${value}" is not a cap: give a whole number of running items, 1 or more, or none.`, {
      hint: `Example: conclave queue set-cap ${queueName} 2   or   conclave queue set-cap ${queueName} none`,
    });
  }
  return withWorkQueue(context, 'conclave queue set-cap', async (queue) => {
    await queue.setCap(queueName, maxRunning);
    context.terminal.out(
      maxRunning === null
        ? `Queue "${queueName}" has no cap: each worker runs up to its --concurrency of it.`
        : `At most ${maxRunning} item${maxRunning === 1 ? '' : 's'} of queue "${queueName}" run at once, over all workers.`,
    );
    return 0;
  });
}
