// The quick listing (`@resume/storage-fs/listing`): a file store's summaries read from its
// listing index alone, without loading zod, the store or the engine: what `conclave sessions
// list --json` needs. When the index's stamp vouches for it (see index/summary-index.ts) that
// costs one file read and a few status calls; when the sessions folder changed since the stamp
// (sessions just written), every session is checked as the store checks it (its journal's size
// and form against the index entry), one status call each. It answers null whenever anything
// is not exactly as the index says (no index, a damaged one, a session created, removed or
// written since, a missing journal), and the caller then lists through the store, which
// inspects what changed and stamps the index again. It never writes.
import { constants, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { SessionSummary } from '@resume/core/spec';
import { createNodeFileSystem } from './file-system/file-system.js';
import { checkIndexFile } from './index/index-file-check.generated.js';
import { type IndexStamp, STAMP_SETTLE_MS, stampHolds, WRITING_MARKER_PREFIX } from './index/index-stamp.js';
import { type ListedEntry, listedSummary, newestFirst } from './index/listing-order.js';
import { unframe } from './journal/framing.js';
import { JOURNAL, JOURNAL_ARCHIVED, resolveHome, stripNewline } from './store/store-paths.js';

/** The store's home as the file store resolves it (symbolic links followed). */
export { resolveHome } from './store/store-paths.js';

interface StampedIndex {
  entries: (Omit<ListedEntry, 'summary'> & { id: string; summary: SessionSummary | null; missing: string[] })[];
  stamp: IndexStamp | null;
}

/**
 * Every session's summary, newest first, as `store.list()` would return it; null when the index
 * cannot vouch for it. A sealed index (an encrypted store's) is left to the store, which holds
 * the keys: opening a seal would load `node:crypto`, a few ms of every listing's start.
 */
export function readStampedListing(home: string): SessionSummary[] | null {
  const files = createNodeFileSystem();
  // A path that cannot be looked at (refused) is not as the index says: the store then answers.
  const status = (target: string) => {
    try {
      return files.statusNow?.(target) ?? null;
    } catch {
      return null;
    }
  };
  const root = resolveHome(home);
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
  const unframed = unframe(stripNewline(content));
  if (!unframed.ok || Object.hasOwn(unframed.value as object, 'sealed')) return null;
  const index = checkIndexFile(unframed.value) as StampedIndex | undefined;
  if (!index) return null;
  const byId = new Map(index.entries.map((entry) => [entry.id, entry]));
  // Joined by hand: the ids are the index's (checked to be session ids), and a thousand path.join
  // calls are a third of a cold listing's time.
  const inSession = (id: string, file: string) => `${sessions}${path.sep}${id}${path.sep}${file}`;
  /** Whether a session's journal is still the one its entry describes (as the store's check compares them). */
  const entryHolds = (id: string, entry: StampedIndex['entries'][number]) => {
    if (entry.missing.length > 0) return false;
    const plain = status(inSession(id, JOURNAL));
    const journal = plain?.isFile ? plain : status(inSession(id, JOURNAL_ARCHIVED));
    const archived = !plain?.isFile;
    return (
      journal?.isFile === true &&
      journal.readable !== false &&
      journal.size === entry.journalSize &&
      archived === entry.archived
    );
  };
  if (stampHolds(index.stamp, status(sessions))) {
    // The sessions written when the index was stamped are checked as the store checks them.
    for (const id of index.stamp?.writing ?? []) {
      const entry = byId.get(id);
      if (!entry) continue;
      if (!status(`${sessions}${path.sep}${id}`)?.isDirectory || !entryHolds(id, entry)) return null;
    }
  } else {
    // The folder changed since the stamp: every session is checked, and any session the index
    // does not know (or knows but is gone) leaves the answer to the store.
    let directories: string[];
    try {
      directories = readdirSync(sessions, { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
        .map((entry) => entry.name);
    } catch {
      return null;
    }
    if (directories.length !== byId.size) return null;
    for (const id of directories) {
      const entry = byId.get(id);
      if (!entry || !entryHolds(id, entry)) return null;
    }
  }
  return index.entries
    .filter((entry): entry is typeof entry & { summary: SessionSummary } => entry.summary !== null)
    .map(listedSummary)
    .sort(newestFirst);
}

/**
 * A fingerprint of a file store's sessions that changes with every session created, written,
 * renamed, trashed or deleted: the sessions folder's times (every create and delete, and every
 * writer's marker, changes them) and, for each session with a writer now, its journal's size
 * and times. Null when it cannot vouch: the folder changed less than `settleMs` ago (a change
 * within the same tick of the file system's clock would not move its times) or cannot be read.
 * Given the `previous` fingerprint and a folder with the same times, only its writers' journals
 * are looked at again (no marker came or went). A content index that saw the store under this
 * fingerprint skips the listing while it holds.
 */
export function sessionsStamp(
  home: string,
  previous: string | null = null,
  now = Date.now(),
  settleMs = STAMP_SETTLE_MS,
): string | null {
  const sessions = path.join(resolveHome(home), 'sessions');
  try {
    const folder = statSync(sessions, { bigint: true });
    if (!folder.isDirectory()) return null;
    if (Math.max(Number(folder.mtimeMs), Number(folder.ctimeMs)) >= now - settleMs) return null;
    const times = `${folder.dev}:${folder.ino}:${folder.mtimeNs}:${folder.ctimeNs}`;
    const [previousTimes, ...previousWriters] = previous?.split('|') ?? [];
    const writers =
      previousTimes === times
        ? previousWriters.map((part) => part.slice(0, part.indexOf(':')))
        : readdirSync(sessions)
            .filter((name) => name.startsWith(WRITING_MARKER_PREFIX))
            .map((name) => name.slice(WRITING_MARKER_PREFIX.length))
            .sort();
    const parts = [times];
    for (const id of writers) {
      const journal = [JOURNAL, JOURNAL_ARCHIVED]
        .map((file) => statSync(path.join(sessions, id, file), { bigint: true, throwIfNoEntry: false }))
        .find((status) => status?.isFile());
      parts.push(`${id}:${journal ? `${journal.size}:${journal.mtimeNs}:${journal.ctimeNs}` : 'none'}`);
    }
    return parts.join('|');
  } catch {
    return null;
  }
}
