// Workers on many machines (docs/workers.md): sessions of registered jobs put on a queue in
// PostgreSQL and run by whichever worker claims them. The queue is pg-boss's
// (docs/decisions/0034-pg-boss-for-work-queues.md): claiming with SKIP LOCKED, retries, a
// claim that expires when its worker stops answering. What runs is `engine.start(name, input,
// { id })` on the session the item names, so Conclave's lease and fencing still guard every
// write: a worker whose claim expired can never write the session another worker took over,
// and a re-delivered item resumes its session from the journal instead of starting again.
import { createHash, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { createSessionId, type JsonValue, UsageError, WaitingForInputError } from '@resume/core/spec';
import type { PgBoss } from 'pg-boss';
import { maskConnectionString } from '../connection.js';

/**
 * What a worker needs of an engine: `engine.start` of `@resume/core` (jobs registered with
 * `engine.register`), or `registerWorkflowJob` of `@resume/runner`, which also runs queued
 * workflow specs. A run that resolves with `{ status: 'waiting' | 'interrupted' }` is parked
 * like one that throws because it waits.
 */
export interface QueuedJobRunner {
  /** Runs an item: `id` is its session, `queue` the queue it was taken from. */
  start(name: string, input: JsonValue, options: { id: string; queue: string }): Promise<unknown>;
  /** Interrupts the runs under way, leaving them resumable (`worker.stop({ interrupt: true })`). */
  interrupt?(reason: string): Promise<void>;
}

export interface WorkQueueOptions {
  connectionString: string;
  /** The schema of the queue's tables (default `conclave_queue`), apart from the sessions' schema. */
  schema?: string;
  /**
   * How long after its worker's last heartbeat a running item's claim expires and another worker
   * may take it (default 30 s, at least 10). A living worker refreshes the claims of its items
   * every half of it, however long they run. Conclave's session lease decides who writes; this
   * decides when the queue hands the item out again.
   */
  claimTimeoutSeconds?: number;
  /** The longest an item may run, even with a living worker (default and at most 24 hours). */
  maxRunSeconds?: number;
  /** How many times a failed item is tried again (default 2). */
  retryLimit?: number;
  /** How often expired claims are looked for (default 30 s). */
  checkIntervalSeconds?: number;
  /** How often a worker says it is alive in `workers()` (default 5 s); 3 missed and it is listed as gone. */
  workerHeartbeatSeconds?: number;
  /**
   * Where trouble the queue recovers from goes (a lost connection, a failed poll): each is tried
   * again. Default: a process warning (printed on stderr).
   */
  onError?: (error: Error) => void;
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
  /** Items this worker takes at once, per queue (default 4). */
  concurrency?: number;
  /** Items this worker runs at once over all its queues (default: no limit beyond `concurrency` per queue). */
  maxRunning?: number;
  /** Called when an item starts: its session, its job and the queue. */
  onStart?: (item: { sessionId: string; job: string; queue: string }) => void;
  /**
   * Called when an item ends: its session, the queue and how its run ended (`requeued`: the worker
   * was stopped with `interrupt` and the item went back on its queue, its session resumable).
   */
  onItem?: (item: {
    sessionId: string;
    queue: string;
    outcome: 'completed' | 'parked' | 'failed' | 'requeued';
    error?: unknown;
  }) => void;
}

export interface ScheduleOptions {
  /** Default `default`. */
  queue?: string;
  /** The time zone `cron` is read in (an IANA name such as `Europe/Paris`; default UTC). */
  tz?: string;
}

export interface ScheduledJob {
  name: string;
  queue: string;
  cron: string;
  timezone: string;
  job: string;
  input: JsonValue;
  createdAt: string;
}

/** A worker process as its last heartbeat recorded it. */
export interface WorkerStatus {
  host: string;
  pid: number;
  queues: string[];
  /** Items it was running at its last heartbeat. */
  running: number;
  startedAt: string;
  lastSeenAt: string;
  heartbeatAgeSeconds: number;
  /** Not heard from for 3 heartbeats: dead, or cut off from the database. */
  gone: boolean;
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
  /** Items running now. */
  running(): number;
  /**
   * Stops taking items and waits for the running ones to end. With `interrupt`, the running ones
   * are interrupted first (the engine's `interrupt`) and put back on their queue, resumable.
   */
  stop(options?: { interrupt?: boolean }): Promise<void>;
}

export interface WorkQueue {
  /** Puts a session of the registered job `name` on a queue; resolves with the session's id. */
  enqueue(name: string, input: JsonValue, options?: EnqueueOptions): Promise<string>;
  /** Runs the items of `queues` with `engine` until stopped. */
  worker(engine: QueuedJobRunner, options?: WorkerOptions): Promise<RunningWorker>;
  /** Queued, running, failed and completed counts of each queue. */
  counts(): Promise<QueueCounts[]>;
  /** The worker processes of this queue's database, live or gone, the longest running first. */
  workers(): Promise<WorkerStatus[]>;
  /**
   * At most `maxRunning` items of `queue` run at once over all workers (null: no cap). Workers
   * see a new cap at their next item; items already running go on.
   */
  setCap(queue: string, maxRunning: number | null): Promise<void>;
  /** The caps set, by queue. */
  caps(): Promise<Record<string, number>>;
  /**
   * Puts a new session of the job `job` on `queue` at every time `cron` names (5 fields, minute
   * first; in `tz`, default UTC), under `name` (a schedule of that name is replaced). Any running
   * worker's queue sends them, whichever process made the schedule.
   */
  schedule(name: string, cron: string, job: string, input: JsonValue, options?: ScheduleOptions): Promise<void>;
  /** The schedules, by name. */
  schedules(): Promise<ScheduledJob[]>;
  /** Removes the schedule `name`; false when there was none. Items it sent stay. */
  unschedule(name: string): Promise<boolean>;
  close(): Promise<void>;
}

interface QueuedItem {
  sessionId: string;
  job: string;
  input: JsonValue;
  /** When a worker first found the item's session held by another process (ms since the epoch). */
  heldSince?: number;
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

function checkScheduleName(name: string): string {
  if (!QUEUE_NAME.test(name)) {
    throw new UsageError(
      `"${name}" is not a schedule name: use letters, digits, ".", "-" and "_" (at most 64), starting with a letter or digit.`,
    );
  }
  return name;
}

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

function queuedItem(job: { id: string; data: unknown; createdOn: Date } | undefined): QueuedItem | null {
  if (typeof job?.data !== 'object' || job.data === null) return null;
  const { sessionId, job: name, input, heldSince } = job.data as Record<string, unknown>;
  if (typeof name !== 'string') return null;
  // An item a schedule sent names no session: its session is named after the item, so a run
  // handed out again resumes the same session.
  const id =
    typeof sessionId === 'string'
      ? sessionId
      : createSessionId(job.createdOn.getTime(), createHash('sha256').update(job.id).digest().subarray(0, 10));
  return {
    sessionId: id,
    job: name,
    input: (input ?? null) as JsonValue,
    ...(typeof heldSince === 'number' ? { heldSince } : {}),
  };
}

/**
 * An item whose session another process holds is put back for later, without using up a retry,
 * for as long as a holder may keep it: a holder that died keeps the session until its lease runs
 * out (30 s by default), and a run woken while it still runs must not lose the wake-up.
 */
const HELD_RETRY_SECONDS = 5;
const HELD_WAIT_MS = 10 * 60 * 1000;

function heldElsewhere(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'session-locked';
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

/** A run that resolved without finishing: it waits for an answer or was interrupted. */
function unfinished(result: unknown): 'waiting' | 'interrupted' | null {
  const status = (result as { status?: unknown } | null)?.status;
  return status === 'waiting' || status === 'interrupted' ? status : null;
}

const MAX_RUN_SECONDS = 24 * 60 * 60;

function pause(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}
/** How long a worker gone without a word stays in `workers()` before its row is cleared. */
const GONE_KEPT_SECONDS = 24 * 60 * 60;

/** The advisory lock that makes a queue schema's Conclave tables once, a bigint literal derived from the schema. */
function tablesLockKey(schema: string): string {
  return createHash('sha256').update(`conclave-queue-tables:${schema}`).digest().readBigInt64BE().toString();
}

export function createWorkQueue(options: WorkQueueOptions): WorkQueue {
  const schema = options.schema ?? 'conclave_queue';
  const claimTimeoutSeconds = options.claimTimeoutSeconds ?? 30;
  if (!Number.isInteger(claimTimeoutSeconds) || claimTimeoutSeconds < 10) {
    throw new UsageError(
      `claimTimeoutSeconds is a whole number of seconds, 10 or more (not ${claimTimeoutSeconds}): a living worker refreshes its claims every half of it.`,
    );
  }
  const maxRunSeconds = Math.min(options.maxRunSeconds ?? MAX_RUN_SECONDS, MAX_RUN_SECONDS);
  const workerHeartbeatSeconds = options.workerHeartbeatSeconds ?? 5;
  const workersTable = `${quoteIdentifier(schema)}.conclave_workers`;
  const capsTable = `${quoteIdentifier(schema)}.conclave_queue_caps`;
  const slotsTable = `${quoteIdentifier(schema)}.conclave_running_slots`;
  const reportError =
    options.onError ?? ((error: Error) => process.emitWarning(`work queue: ${error.message}`, 'ConclaveQueueWarning'));
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
        // pg-boss reports the trouble it recovers from as events; without a listener an EventEmitter throws them.
        instance.on('error', (error) => reportError(error));
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
        // `heartbeatSeconds`: a claim lives as long as its worker refreshes it.
        const settings = {
          expireInSeconds: maxRunSeconds,
          heartbeatSeconds: claimTimeoutSeconds,
          retryLimit: options.retryLimit ?? 2,
          notify: true,
        };
        if (!existing) await boss.createQueue(queue, settings);
        // A queue keeps its settings; the ones given here explicitly replace them, and a queue
        // made before claims had heartbeats gets them.
        else if (
          options.claimTimeoutSeconds !== undefined ||
          options.maxRunSeconds !== undefined ||
          options.retryLimit !== undefined ||
          !existing.heartbeatSeconds
        ) {
          await boss.updateQueue(queue, {
            ...(options.claimTimeoutSeconds === undefined && existing.heartbeatSeconds
              ? {}
              : { heartbeatSeconds: claimTimeoutSeconds }),
            ...(options.maxRunSeconds === undefined && existing.heartbeatSeconds
              ? {}
              : { expireInSeconds: maxRunSeconds }),
            ...(options.retryLimit === undefined ? {} : { retryLimit: options.retryLimit }),
          });
        }
      });
      created.set(queue, made);
    }
    await made;
    return boss;
  };
  // Conclave's own tables next to pg-boss's: each worker's row, refreshed at every heartbeat, for
  // `workers()`; each queue's cap over all workers and the slots running items hold (a row whose
  // primary key no two workers can both insert; slots of workers gone for 3 heartbeats are freed).
  // Made in one transaction under an advisory lock: workers starting at the same moment on a new
  // schema would otherwise race in `CREATE TABLE IF NOT EXISTS`, and all but one fail.
  let tablesMade: Promise<unknown> | null = null;
  const sql = async (text: string, values: unknown[] = []) => {
    const boss = await ready();
    tablesMade ??= boss
      .getDb()
      .executeSql(
        // One query string of several statements runs as one transaction: the lock lasts until all are made.
        `SELECT pg_advisory_xact_lock(${tablesLockKey(schema)});
         CREATE TABLE IF NOT EXISTS ${workersTable} (id text PRIMARY KEY, host text NOT NULL, pid int NOT NULL, queues text[] NOT NULL, running int NOT NULL DEFAULT 0, heartbeat_seconds int NOT NULL, started_at timestamptz NOT NULL DEFAULT now(), seen_at timestamptz NOT NULL DEFAULT now());
         CREATE TABLE IF NOT EXISTS ${capsTable} (queue text PRIMARY KEY, max_running int NOT NULL CHECK (max_running > 0));
         CREATE TABLE IF NOT EXISTS ${slotsTable} (queue text NOT NULL, slot int NOT NULL, worker_id text NOT NULL, session_id text NOT NULL, PRIMARY KEY (queue, slot));`,
      )
      .catch((error: unknown) => {
        tablesMade = null;
        throw error;
      });
    await tablesMade;
    return boss.getDb().executeSql(text, values);
  };
  const takeSlot = async (
    queue: string,
    workerId: string,
    sessionId: string,
  ): Promise<(() => Promise<void>) | null> => {
    const { rows: caps } = await sql(`SELECT max_running FROM ${capsTable} WHERE queue = $1`, [queue]);
    if (caps.length === 0) return async () => undefined;
    const take = () =>
      sql(
        `INSERT INTO ${slotsTable} (queue, slot, worker_id, session_id)
         SELECT $1, s, $2, $3 FROM generate_series(0, $4::int - 1) AS s
         WHERE NOT EXISTS (SELECT 1 FROM ${slotsTable} taken WHERE taken.queue = $1 AND taken.slot = s)
         ORDER BY s LIMIT 1
         ON CONFLICT DO NOTHING RETURNING slot`,
        [queue, workerId, sessionId, (caps[0] as { max_running: number }).max_running],
      );
    let { rows } = await take();
    if (rows.length === 0) {
      await sql(
        `DELETE FROM ${slotsTable} WHERE queue = $1 AND worker_id NOT IN
           (SELECT id FROM ${workersTable} WHERE now() - seen_at <= make_interval(secs => 3 * heartbeat_seconds))`,
        [queue],
      );
      ({ rows } = await take());
    }
    const slot = (rows[0] as { slot: number } | undefined)?.slot;
    if (slot === undefined) return null;
    return async () => {
      await sql(`DELETE FROM ${slotsTable} WHERE queue = $1 AND slot = $2 AND worker_id = $3`, [
        queue,
        slot,
        workerId,
      ]).catch((error: unknown) => reportError(error instanceof Error ? error : new Error(String(error))));
    };
  };
  const send = async (queue: string, item: QueuedItem, startAfterSeconds = 0): Promise<void> => {
    const boss = await queueReady(queue);
    await boss.send(queue, item as unknown as object, {
      singletonKey: item.sessionId,
      ...(startAfterSeconds > 0 ? { startAfter: startAfterSeconds } : {}),
    });
  };

  return {
    async enqueue(name, input, enqueueOptions = {}) {
      const queue = checkQueueName(enqueueOptions.queue ?? 'default');
      const sessionId = enqueueOptions.id ?? createSessionId();
      await send(queue, { sessionId, job: name, input });
      return sessionId;
    },

    async worker(engine, workerOptions = {}) {
      const queues = (workerOptions.queues ?? ['default']).map(checkQueueName);
      const concurrency = workerOptions.concurrency ?? 4;
      if (!Number.isInteger(concurrency) || concurrency < 1) {
        throw new UsageError(`A worker's concurrency is a whole number of items, 1 or more (not ${concurrency}).`);
      }
      const maxRunning = workerOptions.maxRunning ?? Number.POSITIVE_INFINITY;
      if (maxRunning !== Number.POSITIVE_INFINITY && (!Number.isInteger(maxRunning) || maxRunning < 1)) {
        throw new UsageError(`A worker's maxRunning is a whole number of items, 1 or more (not ${maxRunning}).`);
      }
      const boss = await ready();
      let running = 0;
      let stopping = false;
      const workerId = randomUUID();
      await sql(`DELETE FROM ${workersTable} WHERE seen_at < now() - make_interval(secs => $1)`, [GONE_KEPT_SECONDS]);
      await sql(`INSERT INTO ${workersTable} (id, host, pid, queues, heartbeat_seconds) VALUES ($1, $2, $3, $4, $5)`, [
        workerId,
        hostname(),
        process.pid,
        queues,
        workerHeartbeatSeconds,
      ]);
      const heartbeat = setInterval(() => {
        sql(`UPDATE ${workersTable} SET running = $2, seen_at = now() WHERE id = $1`, [workerId, running]).catch(
          (error: unknown) => reportError(error instanceof Error ? error : new Error(String(error))),
        );
      }, workerHeartbeatSeconds * 1000);
      heartbeat.unref();
      /** Waits until this worker and the queue's cap let one more item run; null when the worker stops first. */
      const admit = async (queue: string, sessionId: string): Promise<(() => Promise<void>) | null> => {
        for (;;) {
          if (stopping) return null;
          if (running < maxRunning) {
            // Counted before the slot is asked for: the items waiting beside it see the place taken.
            running += 1;
            const slot = await takeSlot(queue, workerId, sessionId).catch((error: unknown) => {
              running -= 1;
              throw error;
            });
            if (slot) {
              return async () => {
                running -= 1;
                await slot();
              };
            }
            running -= 1;
          }
          await pause(250);
        }
      };
      for (const queue of queues) {
        await queueReady(queue);
        const work = { localConcurrency: concurrency, pollingIntervalSeconds: 0.5, includeMetadata: true } as const;
        await boss.work(queue, work, async ([job]) => {
          const item = queuedItem(job);
          if (!item) return; // not ours: nothing to run, and nothing to retry
          const release = await admit(queue, item.sessionId);
          if (!release) {
            // The worker stopped while the item waited for room: it goes back untouched.
            await send(queue, item);
            workerOptions.onItem?.({ sessionId: item.sessionId, queue, outcome: 'requeued' });
            return;
          }
          try {
            workerOptions.onStart?.({ sessionId: item.sessionId, job: item.job, queue });
            const result = await engine.start(item.job, item.input, { id: item.sessionId, queue });
            const status = unfinished(result);
            if (status === 'interrupted' && stopping) {
              // Cut short by this worker's stop: back on the queue for the next worker, without using up a retry.
              await send(queue, item);
              workerOptions.onItem?.({ sessionId: item.sessionId, queue, outcome: 'requeued' });
              return;
            }
            workerOptions.onItem?.({ sessionId: item.sessionId, queue, outcome: status ? 'parked' : 'completed' });
          } catch (error) {
            if (parked(error)) {
              workerOptions.onItem?.({ sessionId: item.sessionId, queue, outcome: 'parked', error });
              return;
            }
            const heldSince = item.heldSince ?? Date.now();
            if (heldElsewhere(error) && !stopping && Date.now() - heldSince < HELD_WAIT_MS) {
              await send(queue, { ...item, heldSince }, HELD_RETRY_SECONDS);
              workerOptions.onItem?.({ sessionId: item.sessionId, queue, outcome: 'requeued', error });
              return;
            }
            // Failed (or held for too long): the queue hands it out again, up to its retry limit,
            // and a later run resumes the session.
            workerOptions.onItem?.({ sessionId: item.sessionId, queue, outcome: 'failed', error });
            throw error;
          } finally {
            await release();
          }
        });
      }
      return {
        host: hostname(),
        pid: process.pid,
        running: () => running,
        async stop(stopOptions = {}) {
          stopping = true;
          // No new items first, then the running ones are cut short (if asked) and waited for.
          await Promise.all(queues.map((queue) => boss.offWork(queue, { wait: false })));
          if (stopOptions.interrupt) await engine.interrupt?.('the worker is stopping');
          await Promise.all(queues.map((queue) => boss.offWork(queue, { wait: true })));
          clearInterval(heartbeat);
          await sql(`DELETE FROM ${workersTable} WHERE id = $1`, [workerId]).catch(() => undefined);
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
      // Every queue, also those with no items now.
      for (const { name } of await boss.getQueues()) {
        if (QUEUE_NAME.test(name)) counts.set(name, { queue: name, queued: 0, running: 0, failed: 0, completed: 0 });
      }
      for (const row of rows as { name: string; state: string; count: number }[]) {
        if (!QUEUE_NAME.test(row.name)) continue;
        const entry = counts.get(row.name) ?? { queue: row.name, queued: 0, running: 0, failed: 0, completed: 0 };
        if (row.state === 'created' || row.state === 'retry') entry.queued += row.count;
        else if (row.state === 'active') entry.running += row.count;
        else if (row.state === 'failed' || row.state === 'cancelled') entry.failed += row.count;
        else if (row.state === 'completed') entry.completed += row.count;
        counts.set(row.name, entry);
      }
      return [...counts.values()].sort((a, b) => a.queue.localeCompare(b.queue));
    },

    async workers() {
      const { rows } = await sql(
        `SELECT host, pid, queues, running, started_at, seen_at,
           greatest(0, round(extract(epoch FROM now() - seen_at)))::int AS age,
           now() - seen_at > make_interval(secs => 3 * heartbeat_seconds) AS gone
         FROM ${workersTable} ORDER BY started_at, host, pid`,
      );
      return (
        rows as {
          host: string;
          pid: number;
          queues: string[];
          running: number;
          started_at: Date;
          seen_at: Date;
          age: number;
          gone: boolean;
        }[]
      ).map((row) => ({
        host: row.host,
        pid: row.pid,
        queues: row.queues,
        running: row.running,
        startedAt: row.started_at.toISOString(),
        lastSeenAt: row.seen_at.toISOString(),
        heartbeatAgeSeconds: row.age,
        gone: row.gone,
      }));
    },

    async setCap(queue, maxRunning) {
      checkQueueName(queue);
      if (maxRunning === null) {
        await sql(`DELETE FROM ${capsTable} WHERE queue = $1`, [queue]);
        return;
      }
      if (!Number.isInteger(maxRunning) || maxRunning < 1) {
        throw new UsageError(`A queue's cap is a whole number of running items, 1 or more (not ${maxRunning}).`);
      }
      await sql(
        `INSERT INTO ${capsTable} (queue, max_running) VALUES ($1, $2) ON CONFLICT (queue) DO UPDATE SET max_running = EXCLUDED.max_running`,
        [queue, maxRunning],
      );
    },

    async caps() {
      const { rows } = await sql(`SELECT queue, max_running FROM ${capsTable} ORDER BY queue`);
      return Object.fromEntries(
        (rows as { queue: string; max_running: number }[]).map((row) => [row.queue, row.max_running]),
      );
    },

    async schedule(name, cron, job, input, scheduleOptions = {}) {
      checkScheduleName(name);
      const queue = checkQueueName(scheduleOptions.queue ?? 'default');
      const boss = await queueReady(queue);
      // One name, one schedule: the same name on another queue is moved there.
      for (const existing of await boss.getSchedules()) {
        if (existing.key === name && existing.name !== queue) await boss.unschedule(existing.name, name);
      }
      try {
        await boss.schedule(
          queue,
          cron,
          { job, input, schedule: name },
          { key: name, tz: scheduleOptions.tz ?? 'UTC' },
        );
      } catch (error) {
        throw new UsageError(
          `Cannot schedule "${name}" at "${cron}": ${error instanceof Error ? error.message : String(error)}.`,
          {
            hint: 'Five fields, minute first: "*/5 * * * *" every 5 minutes, "0 9 * * 1-5" at 9:00 on weekdays; a time zone as an IANA name (Europe/Paris).',
            cause: error,
          },
        );
      }
    },

    async schedules() {
      const boss = await ready();
      return (await boss.getSchedules())
        .flatMap((schedule) => {
          const data = schedule.data as { job?: unknown; input?: unknown } | undefined;
          if (typeof data?.job !== 'string') return [];
          return [
            {
              name: schedule.key,
              queue: schedule.name,
              cron: schedule.cron,
              timezone: schedule.timezone,
              job: data.job,
              input: (data.input ?? null) as JsonValue,
              createdAt: new Date(schedule.createdOn).toISOString(),
            },
          ];
        })
        .sort((a, b) => a.name.localeCompare(b.name));
    },

    async unschedule(name) {
      const boss = await ready();
      const found = (await boss.getSchedules()).filter((schedule) => schedule.key === name);
      for (const schedule of found) await boss.unschedule(schedule.name, name);
      return found.length > 0;
    },

    async close() {
      await boss?.stop({ graceful: true }).catch(() => undefined);
    },
  };
}
