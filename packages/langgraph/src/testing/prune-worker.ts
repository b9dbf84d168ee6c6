// Test support: a process that prunes a thread, for the crash tests (prune-crash.test.ts).
// On the file store it kills itself with SIGKILL just before its `killAt`-th change to a file
// (a write, rename, link, removal, sync...), so every point of a prune can be the last one.
// It prints `{"event":"done",...}` when the prune finished.
import { ConclaveError, type SessionStore } from '@resume/core/spec';
import { createFsStore, createNodeFileSystem, type FileSystem, type WritableFile } from '@resume/storage-fs';
import { createPostgresStore } from '@resume/storage-postgres';
import { ResumeCheckpointSaver } from '../saver/resume-checkpoint-saver.js';

export interface PruneWorkerConfig {
  store: { kind: 'fs'; dir: string; killAt: number | null } | { kind: 'postgres'; url: string; schema: string };
  threadId: string;
  keepLast: number;
}

const report = (event: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(event)}\n`);

/** The node file system, killing this process before its `killAt`-th change. */
function killingFileSystem(killAt: number): FileSystem {
  const files = createNodeFileSystem();
  let changes = 0;
  const change = () => {
    changes += 1;
    if (changes >= killAt) process.kill(process.pid, 'SIGKILL');
  };
  const writable = (file: WritableFile): WritableFile => ({
    ...file,
    write: async (data) => {
      change();
      return file.write(data);
    },
    datasync: async () => {
      change();
      return file.datasync();
    },
    size: () => file.size(),
    close: () => file.close(),
  });
  const changing = ['makeDirectory', 'rename', 'link', 'remove', 'removeTree', 'truncate', 'syncDirectory'] as const;
  const changed = Object.fromEntries(
    changing.map((name) => [
      name,
      async (...args: unknown[]) => {
        change();
        return (files[name] as (...values: unknown[]) => Promise<unknown>).apply(files, args);
      },
    ]),
  ) as Pick<FileSystem, (typeof changing)[number]>;
  return {
    ...files,
    ...changed,
    openAppend: async (path) => writable(await files.openAppend(path)),
    createExclusive: async (path) => {
      change();
      return writable(await files.createExclusive(path));
    },
  };
}

function openStore(config: PruneWorkerConfig): SessionStore {
  if (config.store.kind === 'postgres')
    return createPostgresStore({ connectionString: config.store.url, schema: config.store.schema });
  const { dir, killAt } = config.store;
  return createFsStore({ dir, ...(killAt === null ? {} : { fileSystem: killingFileSystem(killAt) }) });
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
