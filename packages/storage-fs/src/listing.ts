// The quick listing (`@resume/storage-fs/listing`): a file store's summaries read from its
// listing index alone, when the index's stamp vouches for it (see index/summary-index.ts),
// without loading zod, the store or the engine: what `conclave sessions list --json` needs,
// at the cost of one file read and a few status calls. It answers null whenever anything is
// not exactly as the stamp says (no index, a damaged or unstamped one, a changed sessions
// folder, a session written since), and the caller then lists through the store, which
// checks every session and stamps the index again. It never writes.
import { constants, readFileSync } from 'node:fs';
import path from 'node:path';
import type { SessionSummary } from '@resume/core/spec';
import { createNodeFileSystem } from './file-system/file-system.js';
import { isExactIndexFile } from './index/index-file-check.generated.js';
import { type IndexStamp, stampHolds } from './index/index-stamp.js';
import { type ListedEntry, listedSummary, newestFirst } from './index/listing-order.js';
import { unframe } from './journal/framing.js';
import { JOURNAL, JOURNAL_ARCHIVED, stripNewline } from './store/store-paths.js';

interface StampedIndex {
  entries: (Omit<ListedEntry, 'summary'> & { id: string; summary: SessionSummary | null; missing: string[] })[];
  stamp: IndexStamp | null;
}

/** Every session's summary, newest first, as `store.list()` would return it; null when the index cannot vouch for it. */
export function readStampedListing(home: string): SessionSummary[] | null {
  const files = createNodeFileSystem();
  const status = (target: string) => files.statusNow?.(target) ?? null;
  const root = path.resolve(home);
  const sessions = path.join(root, 'sessions');
  // The store refuses a home or folder that is not a real directory: leave that to it.
  for (const directory of [root, sessions, path.join(root, 'index'), path.join(root, 'blobs')]) {
    if (!status(directory)?.isDirectory) return null;
  }
  let content: Buffer;
  try {
    content = readFileSync(path.join(root, 'index', 'summaries.json'), {
      flag: constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0),
    });
  } catch {
    return null;
  }
  const framed = unframe(stripNewline(content));
  if (!framed.ok || !isExactIndexFile(framed.value)) return null;
  const index = framed.value as StampedIndex;
  if (!stampHolds(index.stamp, status(sessions))) return null;
  const byId = new Map(index.entries.map((entry) => [entry.id, entry]));
  // The sessions written when the index was stamped are checked as the store checks them.
  for (const id of index.stamp?.writing ?? []) {
    const entry = byId.get(id);
    if (!entry) continue;
    if (!status(path.join(sessions, id))?.isDirectory || entry.missing.length > 0) return null;
    const plain = status(path.join(sessions, id, JOURNAL));
    const journal = plain?.isFile ? plain : status(path.join(sessions, id, JOURNAL_ARCHIVED));
    const archived = !plain?.isFile;
    if (!journal?.isFile || journal.size !== entry.journalSize || archived !== entry.archived) return null;
  }
  const summaries: SessionSummary[] = [];
  for (const entry of index.entries) {
    if (entry.summary !== null) summaries.push(listedSummary({ ...entry, summary: entry.summary }));
  }
  return summaries.sort(newestFirst);
}
