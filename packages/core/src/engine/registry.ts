// Registered jobs (docs/engine.md#registered-jobs-that-recover-themselves): `register` names a
// job with its version, `start` runs a session of it and records the name, version and input in
// the session's header, and `recover` finds the sessions of registered jobs that can go on (a
// crash, a sleep that is due, an answered question), resumes those whose version this code
// runs, and says why it left each of the others.
import { type JsonValue, SessionLockedError, UsageError } from '../spec/index.js';
import { toErrorInfo } from './error-info.js';
import type {
  CreateSessionInput,
  Engine,
  RecoverOptions,
  RecoveryReport,
  RegisteredJob,
  RegisterOptions,
  RunOptions,
  Session,
  StartOptions,
} from './types.js';

/** Where a session of a registered job keeps what `recover` needs to run it again (header options). */
const JOB_OPTION = 'job';

interface JobRecord {
  name: string;
  version: string;
  input: JsonValue;
}

interface Registered {
  job: RegisteredJob<never, unknown>;
  version: string;
  title: (input: never) => string;
}

const DEFAULT_RECOVER_CONCURRENCY = 8;
/** Why an interrupted session waits for a person rather than for `recover` (engine.run writes it). */
const DECISION_REASON = 'waiting for a decision';

export interface JobRegistry {
  register<I extends JsonValue, R>(name: string, job: RegisteredJob<I, R>, options: RegisterOptions<I>): void;
  start<R>(name: string, input: JsonValue, options?: StartOptions): Promise<R>;
  recover(options?: RecoverOptions): Promise<RecoveryReport>;
}

/** What a session's header says of the registered job it runs (null: it runs none). */
export function jobOf(options: Record<string, JsonValue> | undefined): JobRecord | null {
  const recorded = options?.[JOB_OPTION];
  if (typeof recorded !== 'object' || recorded === null || Array.isArray(recorded)) return null;
  const { name, version, input } = recorded;
  if (typeof name !== 'string' || typeof version !== 'string') return null;
  return { name, version, input: input ?? null };
}

export function createJobRegistry(
  engine: Pick<Engine, 'run' | 'listSessions' | 'readSession' | 'store'>,
  now: () => Date,
): JobRegistry {
  const jobs = new Map<string, Registered>();

  function registered(name: string): Registered {
    const found = jobs.get(name);
    if (found) return found;
    const known = [...jobs.keys()];
    throw new UsageError(
      `No job named "${name}" is registered in this process: register it first with engine.register("${name}", job, { version }).`,
      { hint: known.length > 0 ? `Registered jobs: ${known.join(', ')}.` : 'No job is registered yet.' },
    );
  }

  function runJob<R>(
    target: string | CreateSessionInput,
    entry: Registered,
    input: JsonValue,
    options: RunOptions = {},
  ): Promise<R> {
    return engine.run(target, (session: Session) => entry.job(session, input as never) as R, options);
  }

  return {
    register(name, job, options) {
      if (!/^[A-Za-z0-9][A-Za-z0-9_.:-]*$/.test(name)) {
        throw new UsageError(
          `"${name}" is not a job name: use letters, digits, ".", ":", "-" and "_", starting with a letter or digit.`,
        );
      }
      if (typeof options?.version !== 'string' || options.version.length === 0) {
        throw new UsageError(
          `engine.register("${name}", …) needs { version }: the version of the job's code (e.g. "1" or a git commit), so recover() resumes only sessions this code can replay.`,
        );
      }
      if (jobs.has(name)) throw new UsageError(`A job named "${name}" is registered already in this process.`);
      jobs.set(name, {
        job: job as RegisteredJob<never, unknown>,
        version: options.version,
        title: (options.title ?? (() => name)) as (input: never) => string,
      });
    },

    async start<R>(name: string, input: JsonValue, options: StartOptions = {}): Promise<R> {
      const entry = registered(name);
      const record: JobRecord = { name, version: entry.version, input };
      return runJob<R>(
        {
          title: options.title ?? entry.title(input as never),
          ...(options.id === undefined ? {} : { id: options.id }),
          options: { [JOB_OPTION]: record as unknown as JsonValue },
        },
        entry,
        input,
        options,
      );
    },

    async recover(options = {}) {
      const report: RecoveryReport = { recovered: [], left: [], nextWakeAt: null };
      const named = options.ids ? new Set(options.ids) : null;
      const candidates = (await engine.listSessions({ status: ['interrupted', 'sleeping'] })).filter(
        (summary) => named === null || named.has(summary.id),
      );
      const due: { target: CreateSessionInput; job: JobRecord; entry: Registered }[] = [];
      const at = now().getTime();
      for (const summary of candidates) {
        const header = await engine.store.getHeader(summary.id);
        const job = jobOf(header?.options);
        if (!header || !job) continue;
        const left = { id: summary.id, job: job.name, version: job.version };
        const entry = jobs.get(job.name);
        if (!entry) {
          report.left.push({ ...left, reason: 'not-registered' });
          continue;
        }
        const accepted = job.version === entry.version || (options.versions?.[job.name] ?? []).includes(job.version);
        if (!accepted) {
          report.left.push({ ...left, reason: 'other-version', runningVersion: entry.version });
          continue;
        }
        if (summary.status === 'sleeping' && summary.wakeAt && Date.parse(summary.wakeAt) > at) {
          report.left.push({ ...left, reason: 'not-due', wakeAt: summary.wakeAt });
          if (report.nextWakeAt === null || summary.wakeAt < report.nextWakeAt) report.nextWakeAt = summary.wakeAt;
          continue;
        }
        if (summary.status === 'interrupted' && named === null) {
          const state = await engine.readSession(summary.id);
          if (state.statusReason === DECISION_REASON) {
            report.left.push({ ...left, reason: 'needs-decision' });
            continue;
          }
        }
        // The whole header: a session whose creation was cut short is created again as it was.
        due.push({ target: { id: summary.id, title: header.title, options: header.options }, job, entry });
      }

      let next = 0;
      const lane = async () => {
        for (let item = due[next++]; item !== undefined; item = due[next++]) {
          const { target, job, entry } = item;
          const id = target.id as string;
          try {
            await runJob(
              target,
              entry,
              job.input,
              options.maxRecoveries === undefined ? {} : { maxRecoveries: options.maxRecoveries },
            );
            report.recovered.push({ id, job: job.name, version: job.version, status: 'completed', error: null });
          } catch (error) {
            // Another process resumed it between the listing and now.
            if (SessionLockedError.isInstance(error)) {
              report.left.push({ id, job: job.name, version: job.version, reason: 'in-use' });
              continue;
            }
            const status = await engine
              .readSession(id)
              .then((state) => state.status)
              .catch(() => 'interrupted' as const);
            report.recovered.push({
              id,
              job: job.name,
              version: job.version,
              status,
              error: toErrorInfo(error),
            });
          }
        }
      };
      const concurrency = Math.max(1, options.concurrency ?? DEFAULT_RECOVER_CONCURRENCY);
      await Promise.all(Array.from({ length: Math.min(concurrency, due.length) }, lane));
      return report;
    },
  };
}
