// Where everything lives under the data home (DESIGN 5):
//   sessions/<id>/header.json        the header given to `create` (framed, checksummed)
//   sessions/<id>/journal.jsonl      one framed line per committed batch (journal.jsonl.gz once archived)
//   sessions/<id>/snapshot.json      the latest fold snapshot (snapshot.json.gz once archived)
//   sessions/<id>/lease/epoch-N      the writer lease of epoch N (see lease/lease-files.ts)
//   blobs/ab/cdef...                 content-addressed blobs (sha256)
//   sessions/.writing-<id>/          a writer is at work on the session (see index/summary-index.ts)
//   index/summaries.json             the listing cache (see index/summary-index.ts)
import { realpathSync } from 'node:fs';
import path from 'node:path';

export const JOURNAL = 'journal.jsonl';
export const JOURNAL_ARCHIVED = 'journal.jsonl.gz';
export const SNAPSHOT = 'snapshot.json';
export const SNAPSHOT_ARCHIVED = 'snapshot.json.gz';
export const HEADER = 'header.json';
export const LEASE_DIRECTORY = 'lease';

/**
 * The data home as an absolute path, a symlinked home followed: where the home is is the user's
 * choice (a link to another disk is common); links inside the store are never followed. A home
 * that does not exist yet is created where it is named.
 */
export function resolveHome(dir: string): string {
  const resolved = path.resolve(dir);
  try {
    return realpathSync(resolved);
  } catch {
    return resolved;
  }
}

export interface StorePaths {
  home: string;
  sessions: string;
  blobs: string;
  index: string;
  indexFile: string;
  session(id: string): string;
  inSession(id: string, name: string): string;
}

export function storePaths(home: string): StorePaths {
  const sessions = path.join(home, 'sessions');
  const index = path.join(home, 'index');
  return {
    home,
    sessions,
    blobs: path.join(home, 'blobs'),
    index,
    indexFile: path.join(index, 'summaries.json'),
    session: (id) => path.join(sessions, id),
    inSession: (id, name) => path.join(sessions, id, name),
  };
}

/** Strips the newline a framed file ends with. */
export function stripNewline(content: Buffer): Buffer {
  return content.at(-1) === 0x0a ? content.subarray(0, -1) : content;
}
