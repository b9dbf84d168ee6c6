// Runs the durable-calls worker (durable-calls-worker.ts, bundled) as a real process, and
// SIGKILLs it at a chosen moment: what the crash tests of this package share.
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';

export interface Outcome {
  acked: number[];
  done: string | null;
  killed: boolean;
}

/** Where a kill lands: `delayMs` after the worker started its `afterStarts`-th call (0: after it is ready). */
export interface Kill {
  afterStarts: number;
  delayMs: number;
}

export interface WorkerRun {
  /** The bundled worker. */
  worker: string;
  home: string;
  id: string;
  callLog: string;
  calls: number;
  /** A data key (64 hex digits): the store encrypts with it. */
  dataKey?: string;
  /** With a postgres:// URL as `home`: the schema. */
  schema?: string;
}

export async function runWorker(run: WorkerRun, kill: Kill | null): Promise<Outcome> {
  const child: ChildProcessByStdio<null, Readable, Readable> = spawn(
    process.execPath,
    [
      run.worker,
      run.home,
      run.id,
      run.callLog,
      String(run.calls),
      run.dataKey ?? '-',
      ...(run.schema ? [run.schema] : []),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '' } },
  );
  const outcome: Outcome = { acked: [], done: null, killed: false };
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  // The clock starts once the worker is ready (its start-up is not what is tested) and has
  // started the chosen number of calls, so kills land in calls, between them and in replays.
  let timer: NodeJS.Timeout | undefined;
  child.stdout.on('data', () => {
    const starts = stdout.split('started\n').length - 1;
    if (kill && timer === undefined && stdout.includes('ready\n') && starts >= kill.afterStarts) {
      timer = setTimeout(() => child.kill('SIGKILL'), kill.delayMs);
    }
  });
  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  clearTimeout(timer);
  for (const line of stdout.split('\n')) {
    if (line.startsWith('ack ')) outcome.acked.push(Number(line.slice(4)));
    if (line.startsWith('done ')) outcome.done = line.slice(5);
  }
  outcome.killed = exit.signal === 'SIGKILL';
  if (!outcome.killed && exit.code !== 0) throw new Error(`the worker failed (exit ${exit.code}): ${stderr}`);
  return outcome;
}
