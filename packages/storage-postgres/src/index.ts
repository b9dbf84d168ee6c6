// `@resume/storage-postgres`: the SessionStore for sessions shared by many machines.
export {
  isPostgresUrl,
  maskConnectionString,
  type PostgresStoreOptions,
} from './connection.js';
export { latestMigrationVersion, type MigrateOptions, type MigrationReport, migrate } from './migrations.js';
export { createPostgresStore, type PostgresStore } from './postgres-store.js';
export type { ServerWait, ServerWaitListener } from './server-wait.js';
export type { EncryptReport } from './session-encryption.js';
export type { BlobCount, SchemaUsage, SessionRowsUsage } from './usage.js';
export type { SessionChange, SessionWatch, SessionWatchListener } from './watch.js';
export {
  createWorkQueue,
  type EnqueueOptions,
  type QueueCounts,
  type QueuedJobRunner,
  type RunningWorker,
  type ScheduledJob,
  type ScheduleOptions,
  type WorkerOptions,
  type WorkerStatus,
  type WorkQueue,
  type WorkQueueOptions,
} from './workers/work-queue.js';
