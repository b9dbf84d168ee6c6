// After sessions are deleted for good in a run (`sessions cleanup`, `sessions trash --empty`):
// removes the blobs no session names. A deletion keeps a blob a live writer may still name; once
// that writer has journaled it or stopped, this is where the ones it never named go.
import type { CliContext } from '../context/cli-context.js';

/** How many blobs went (0 on a store that does not collect its blobs). */
export async function sweepUnnamedBlobs(context: CliContext): Promise<number> {
  const store = await context.store();
  return (await store.sweepBlobs?.()) ?? 0;
}

/** What a run says of the blobs its sweep removed (nothing when none went). */
export function blobsRemovedLine(count: number): string | null {
  return count > 0 ? `Removed ${count} stored file${count === 1 ? '' : 's'} no session names any more.` : null;
}
