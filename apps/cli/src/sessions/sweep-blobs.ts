// After sessions are deleted for good in a run (`sessions cleanup`, `sessions trash --empty`):
// removes the blobs no session names. A deletion keeps a blob a live writer may still name; once
// that writer has journaled it or stopped, this is where the ones it never named go.
import type { FsStore } from '@resume/storage-fs';
import type { CliContext } from '../context/cli-context.js';

/** How many blobs went (0 on a store that keeps no blobs of its own in the home). */
export async function sweepUnnamedBlobs(context: CliContext): Promise<number> {
  const store = await context.store();
  return store.kind === 'fs' ? (store as FsStore).sweepBlobs() : 0;
}
