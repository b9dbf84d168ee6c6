// The work queue of the PostgreSQL store the config points at (docs/workers.md), for the
// commands that queue or run workflows. Loaded only by them: pg-boss stays off every other path.
import { UsageError } from '@resume/core/spec';
import type { WorkQueue } from '@resume/storage-postgres';
import type { CliContext } from './cli-context.js';

/** The queue beside the sessions; a file store has none, and the error says how to give one. */
async function openWorkQueue(context: CliContext, what: string): Promise<WorkQueue> {
  const { config, sources } = context.config();
  const url = config.store.url;
  if (!url || !/^postgres(ql)?:\/\//i.test(url)) {
    throw new UsageError(
      `${what} needs a PostgreSQL store: queued runs live in its database, where every worker finds them. This command uses the file store in ${url ?? config.home}.`,
      {
        hint: `Give --store postgres://user@host/database, set CONCLAVE_STORE_URL, or store.url in the config${sources['store.url'] ? ` (now from ${sources['store.url']})` : ''}. See docs/workers.md.`,
      },
    );
  }
  const { createWorkQueue } = await import('@resume/storage-postgres');
  return createWorkQueue({
    connectionString: url,
    onError: (error) => context.terminal.warn(`Work queue: ${error.message} (tried again at the next poll).`),
  });
}

/** Runs `work` with the store's work queue, closed after it however it ends. */
export async function withWorkQueue<T>(
  context: CliContext,
  what: string,
  work: (queue: WorkQueue) => Promise<T>,
): Promise<T> {
  const queue = await openWorkQueue(context, what);
  try {
    return await work(queue);
  } finally {
    await queue.close();
  }
}
