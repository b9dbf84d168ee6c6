// Test support: a process that prunes a thread, for the crash tests (prune-crash.test.ts).
// On the file store it kills itself with SIGKILL just before its `killAt`-th change to a file
// (a write, rename, link, removal, sync...), so every point of a prune can be the last one.
// It prints `{"event":"done",...}` when the prune finished.
import { ConclaveError, type SessionStore } from '@resume/core/spec';
import { createFsStore } from '@resume/storage-fs';
import { createPostgresStore } from '@resume/storage-postgres';
import { ResumeCheckpointSaver } from '../saver/resume-checkpoint-saver.js';
import { changeWatchingFileSystem } from './change-watching-file-system.js';

export interface PruneWorkerConfig {
  store: { kind: 'fs'; dir: string; killAt: number | null } | { kind: 'postgres'; url: string; schema: string };
  threadId: string;
  keepLast: number;
}

const report = (event: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(event)}\n`);

function openStore(config: PruneWorkerConfig): SessionStore {
  if (config.store.kind === 'postgres')
    return createPostgresStore({ connectionString: config.store.url, schema: config.store.schema });
  const { dir, killAt } = config.store;
  // Killed before its `killAt`-th change to a file.
  const fileSystem = changeWatchingFileSystem((changes) => {
    if (killAt !== null && changes >= killAt) process.kill(process.pid, 'SIGKILL');
  });
  return createFsStore({ dir, fileSystem });
}

async function main(): Promise<void> {
  const config = JSON.parse(process.env.CONCLAVE_PRUNE_WORKER ?? '{}') as PruneWorkerConfig;
  const store = openStore(config);
  const saver = new ResumeCheckpointSaver({ store });
  const pruned = await saver.pruneThread(config.threadId, { keepLast: config.keepLast });
  await saver.close();
  await store.close();
  report({ event: 'done', report: pruned });
}

main().catch((error: unknown) => {
  report({
    event: 'error',
    code: ConclaveError.isInstance(error) ? error.code : null,
    message: error instanceof Error ? error.message : String(error),
  });
  process.exit(1);
});
