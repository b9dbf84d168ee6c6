// Workers on many machines (docs/workers.md): sessions of registered jobs put on a queue in
// PostgreSQL and run by whichever worker claims them. The queue is pg-boss's
// (docs/decisions/0034-pg-boss-for-work-queues.md): claiming with SKIP LOCKED, retries, a
// claim that expires when its worker stops answering. What runs is `engine.start(name, input,
// { id })` on the session the item names, so Conclave's lease and fencing still guard every
// write: a worker whose claim expired can never write the session another worker took over,
// and a re-delivered item resumes its session from the journal instead of starting again.
import { hostname } from 'node:os';
import { createSessionId, type JsonValue, UsageError, WaitingForInputError } from '@resume/core/spec';
import type { PgBoss } from 'pg-boss';
import { maskConnectionString } from '../connection.js';

/** What a worker needs of an engine: `engine.start` of `@resume/core` (jobs registered with `engine.register`). */
export interface QueuedJobRunner {
  start(name: string, input: JsonValue, options: { id: string }): Promise<unknown>;
}

export interface WorkQueueOptions {
  connectionString: string;
  /** The schema of the queue's tables (default `conclave_queue`), apart from the sessions' schema. */
  schema?: string;
  /**
   * How long a claimed item may run before another worker may claim it (default 15 minutes): an
   * item whose worker died waits this long. Items keep the value of the queue when they were put
   * on it. Conclave's session lease decides who writes; this decides when the queue hands the
   * item out again.
   */
  claimTimeoutSeconds?: number;
  /** How many times a failed item is tried again (default 2). */
  retryLimit?: number;
  /** How often expired claims are looked for (default 30 s). */
  checkIntervalSeconds?: number;
}

export interface EnqueueOptions {
  /** Default `default`. */
  queue?: string;
  /** The session's id (`createSessionId()`); default: a new one. */
  id?: string;
}

export interface WorkerOptions {
  /** The queues this worker takes items from (default `['default']`). */
  queues?: readonly string[];
  /** Items this worker runs at once, per queue (default 4). */
  concurrency?: number;
  /** Called when an item ends: its session, the queue and how its run ended. */
  onItem?: (item: {
    sessionId: string;
    queue: string;
    outcome: 'completed' | 'parked' | 'failed';
    error?: unknown;
  }) => void;
}

export interface QueueCounts {
  queue: string;
  queued: number;
  running: number;
  failed: number;
  completed: number;
}

export interface RunningWorker {
  readonly host: string;
  readonly pid: number;
  /** Stops taking items, waits for the running ones to end, and closes its connections. */
  stop(): Promise<void>;
}

export interface WorkQueue {
  /** Puts a session of the registered job `name` on a queue; resolves with the session's id. */
  enqueue(name: string, input: JsonValue, options?: EnqueueOptions): Promise<string>;
  /** Runs the items of `queues` with `engine` until stopped. */
  worker(engine: QueuedJobRunner, options?: WorkerOptions): Promise<RunningWorker>;
  /** Queued, running, failed and completed counts of each queue. */
  counts(): Promise<QueueCounts[]>;
  close(): Promise<void>;
}

interface QueuedItem {
  sessionId: string;
  job: string;
  input: JsonValue;
}

const QUEUE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

function checkQueueName(queue: string): string {
  if (!QUEUE_NAME.test(queue)) {
    throw new UsageError(
      `"${queue}" is not a queue name: use letters, digits, ".", "-" and "_" (at most 64), starting with a letter or digit.`,
    );
  }
  return queue;
}

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

function queuedItem(data: unknown): QueuedItem | null {
  if (typeof data !== 'object' || data === null) return null;
  const { sessionId, job, input } = data as Record<string, unknown>;
  if (typeof sessionId !== 'string' || typeof job !== 'string') return null;
  return { sessionId, job, input: (input ?? null) as JsonValue };
}

/** Whether a run that threw stopped on purpose: its session waits, sleeps or needs a decision, for `recover`. */
function parked(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (
    WaitingForInputError.isInstance(error) ||
    code === 'interrupted' ||
    code === 'step-uncertain' ||
    code === 'step-aborted' ||
    code === 'replay-mismatch'
  );
}

export function createWorkQueue(options: WorkQueueOptions): WorkQueue {
  const schema = options.schema ?? 'conclave_queue';
  const claimTimeoutSeconds = options.claimTimeoutSeconds ?? 15 * 60;
  // pg-boss is loaded when a queue is first used: a store that never queues anything does not pay for it.
  let boss: PgBoss | null = null;
  let started: Promise<PgBoss> | null = null;
  const created = new Map<string, Promise<void>>();
  const ready = (): Promise<PgBoss> => {
    started ??= import('pg-boss')
      .then(async ({ PgBoss }) => {
        const instance = new PgBoss({
          connectionString: options.connectionString,
          schema,
          // Expired claims are found when a queue's monitor pass is due: both intervals bound it.
          superviseIntervalSeconds: options.checkIntervalSeconds ?? 30,
          monitorIntervalSeconds: options.checkIntervalSeconds ?? 30,
        });
        // pg-boss reports connection trouble as events; without a listener an EventEmitter throws them.
        instance.on('error', () => {});
        await instance.start();
        boss = instance;
        return instance;
      })
      .catch((error: unknown) => {
        started = null;
        throw new UsageError(
          `Cannot start the work queue on ${maskConnectionString(options.connectionString)}: ${error instanceof Error ? error.message : String(error)}`,
          { cause: error },
        );
      });
    return started;
  };
  const queueReady = async (queue: string): Promise<PgBoss> => {
    const boss = await ready();
    let made = created.get(queue);
    if (!made) {
      made = boss.getQueue(queue).then(async (existing) => {
        // `notify`: an enqueued item wakes idle workers at once (LISTEN/NOTIFY) instead of at their next poll.
        const settings = { expireInSeconds: claimTimeoutSeconds, retryLimit: options.retryLimit ?? 2, notify: true };
        if (!existing) await boss.createQueue(queue, settings);
        // A queue keeps its settings; the ones given here explicitly replace them.
        else if (options.claimTimeoutSeconds !== undefined || options.retryLimit !== undefined) {
          await boss.updateQueue(queue, {
            ...(options.claimTimeoutSeconds === undefined ? {} : { expireInSeconds: claimTimeoutSeconds }),
            ...(options.retryLimit === undefined ? {} : { retryLimit: options.retryLimit }),
          });
        }
      });
      created.set(queue, made);
    }
    await made;
    return boss;
  };

  return {
    async enqueue(name, input, enqueueOptions = {}) {
      const queue = checkQueueName(enqueueOptions.queue ?? 'default');
      const sessionId = enqueueOptions.id ?? createSessionId();
      const boss = await queueReady(queue);
      const item: QueuedItem = { sessionId, job: name, input };
      await boss.send(queue, item as unknown as object, { singletonKey: sessionId });
      return sessionId;
    },

    async worker(engine, workerOptions = {}) {
      const queues = (workerOptions.queues ?? ['default']).map(checkQueueName);
      const concurrency = workerOptions.concurrency ?? 4;
      if (!Number.isInteger(concurrency) || concurrency < 1) {
        throw new UsageError(`A worker's concurrency is a whole number of items, 1 or more (not ${concurrency}).`);
      }
      const ids: string[] = [];
      const boss = await ready();
      for (const queue of queues) {
        await queueReady(queue);
        const id = await boss.work(
          queue,
          { localConcurrency: concurrency, pollingIntervalSeconds: 0.5 },
          async ([job]) => {
            const item = queuedItem(job?.data);
            if (!item) return; // not ours: nothing to run, and nothing to retry
            try {
              await engine.start(item.job, item.input, { id: item.sessionId });
              workerOptions.onItem?.({ sessionId: item.sessionId, queue, outcome: 'completed' });
            } catch (error) {
              if (parked(error)) {
                workerOptions.onItem?.({ sessionId: item.sessionId, queue, outcome: 'parked', error });
                return;
              }
              // Failed, or locked (the worker whose claim expired still runs it): the queue hands it
              // out again, up to its retry limit, and a later run resumes the session.
              workerOptions.onItem?.({ sessionId: item.sessionId, queue, outcome: 'failed', error });
              throw error;
            }
          },
        );
        ids.push(id);
      }
      return {
        host: hostname(),
        pid: process.pid,
        async stop() {
          for (const queue of queues) await boss.offWork(queue, { wait: true });
        },
      };
    },

    async counts() {
      const boss = await ready();
      // Counted now from the queue's table (pg-boss's own counts are refreshed once a minute).
      const { rows } = await boss
        .getDb()
        .executeSql(
          `SELECT name, state::text AS state, count(*)::int AS count FROM ${quoteIdentifier(schema)}.job GROUP BY name, state ORDER BY name`,
        );
      const counts = new Map<string, QueueCounts>();
      for (const row of rows as { name: string; state: string; count: number }[]) {
        if (!QUEUE_NAME.test(row.name)) continue;
        const entry = counts.get(row.name) ?? { queue: row.name, queued: 0, running: 0, failed: 0, completed: 0 };
        if (row.state === 'created' || row.state === 'retry') entry.queued += row.count;
        else if (row.state === 'active') entry.running += row.count;
        else if (row.state === 'failed' || row.state === 'cancelled') entry.failed += row.count;
        else if (row.state === 'completed') entry.completed += row.count;
        counts.set(row.name, entry);
      }
      return [...counts.values()];
    },

    async close() {
      await boss?.stop({ graceful: true }).catch(() => undefined);
    },
  };
}
