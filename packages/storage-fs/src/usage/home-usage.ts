// What a data home holds on disk (docs/storage.md#space): each session's files by kind (its
// journal, its fold snapshot, everything else in its folder), the shared blobs, the listing and
// search index, and the total. One directory listing and one status call per file, made on the
// calling thread (a thousand sessions are a few thousand calls, each cheaper than a thread-pool
// round trip); the blobs a session refers to are found only when asked, by reading its journal.
import { type Dirent, lstatSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { resolveHome } from '../store/store-paths.js';

export interface SessionUsage {
  id: string;
  /** Every file in the session's folder. */
  bytes: number;
  /** journal.jsonl (or its .gz). */
  journal: number;
  /** The fold snapshot (snapshot.bin, its .gz, or the former snapshot.json). */
  snapshots: number;
  /** The header, lease files, requests and copies a repair or a torn tail kept aside. */
  other: number;
  /**
   * The blobs its journal names: workspace file snapshots and other blobs (large step outputs),
   * each counted once; shared with other sessions that name the same content. Null when not
   * measured, or when the journal is encrypted (its references are sealed).
   */
  fileSnapshots: { count: number; bytes: number } | null;
  blobs: { count: number; bytes: number } | null;
  /**
   * Of those, the blobs other sessions name too (stored once for all of them): deleting this
   * session does not free them. Null when the blobs were not measured.
   */
  shared: { count: number; bytes: number } | null;
}

export interface HomeUsage {
  home: string;
  /** Everything under the home. */
  bytes: number;
  /** Every session's folder (the trash's included: sessions in it keep their folder). */
  sessions: number;
  sessionCount: number;
  /** The shared blob store, each content once. */
  blobs: { count: number; bytes: number };
  /** Of those, the ones several sessions name (null when the blobs were not measured). */
  sharedBlobs: { count: number; bytes: number } | null;
  /** index/: the listing cache and the content search index. */
  index: number;
  /** Everything else (keys, config, leftovers of interrupted deletions). */
  other: number;
  /** Biggest first. */
  bySession: SessionUsage[];
}

export interface MeasureHomeOptions {
  /** Also read each journal for the blobs it names (slower: reads every journal). */
  blobs?: boolean;
}

const SESSION_ID = /^[0-9a-z]{22}$/;
const FILE_SNAPSHOT_REFERENCE = /"blob":"([0-9a-f]{64})"/g;
const OTHER_BLOB_REFERENCE = /"[A-Za-z]+Blob":"([0-9a-f]{64})"/g;

function entries(directory: string): Dirent[] {
  try {
    return readdirSync(directory, { withFileTypes: true });
  } catch {
    return [];
  }
}

function sizeOf(target: string): number {
  try {
    return lstatSync(target).size;
  } catch {
    return 0;
  }
}

/** Bytes of every regular file under `directory`, links not followed. */
export function treeBytes(directory: string): number {
  let total = 0;
  for (const entry of entries(directory)) {
    const target = path.join(directory, entry.name);
    if (entry.isDirectory()) total += treeBytes(target);
    else if (entry.isFile()) total += sizeOf(target);
  }
  return total;
}

/** The bytes of one session's folder by kind, blobs not looked at. */
export function measureSessionFolder(folder: string, id: string): SessionUsage {
  const usage: SessionUsage = {
    id,
    bytes: 0,
    journal: 0,
    snapshots: 0,
    other: 0,
    fileSnapshots: null,
    blobs: null,
    shared: null,
  };
  for (const entry of entries(folder)) {
    const target = path.join(folder, entry.name);
    const bytes = entry.isDirectory() ? treeBytes(target) : entry.isFile() ? sizeOf(target) : 0;
    usage.bytes += bytes;
    if (entry.name === 'journal.jsonl' || entry.name === 'journal.jsonl.gz') usage.journal += bytes;
    else if (/^snapshot\.(bin|json)(\.gz)?$/.test(entry.name)) usage.snapshots += bytes;
    else usage.other += bytes;
  }
  return usage;
}

function readJournal(folder: string): string | null {
  try {
    return readFileSync(path.join(folder, 'journal.jsonl'), 'utf8');
  } catch {
    try {
      return gunzipSync(readFileSync(path.join(folder, 'journal.jsonl.gz'))).toString('utf8');
    } catch {
      return null;
    }
  }
}

function namedBlobs(journal: string, pattern: RegExp): Set<string> {
  return new Set(Array.from(journal.matchAll(pattern), (match) => match[1] as string));
}

function countBlobs(hashes: Iterable<string>, blobSize: (hash: string) => number): { count: number; bytes: number } {
  let count = 0;
  let bytes = 0;
  for (const hash of hashes) {
    count += 1;
    bytes += blobSize(hash);
  }
  return { count, bytes };
}

/** Measures the home at `dir`: nothing is written, a missing home measures empty. */
export function measureHome(dir: string, options: MeasureHomeOptions = {}): HomeUsage {
  const home = resolveHome(dir);
  const sessionsDirectory = path.join(home, 'sessions');
  const blobsDirectory = path.join(home, 'blobs');
  const blobSizes = new Map<string, number>();
  for (const folder of entries(blobsDirectory)) {
    if (!folder.isDirectory()) continue;
    for (const blob of entries(path.join(blobsDirectory, folder.name))) {
      if (blob.isFile())
        blobSizes.set(folder.name + blob.name, sizeOf(path.join(blobsDirectory, folder.name, blob.name)));
    }
  }
  const blobSize = (hash: string) => blobSizes.get(hash) ?? 0;
  const bySession: SessionUsage[] = [];
  /** The blobs each measured session names, to tell the ones several sessions share. */
  const named = new Map<SessionUsage, Set<string>>();
  let sessions = 0;
  for (const entry of entries(sessionsDirectory)) {
    const folder = path.join(sessionsDirectory, entry.name);
    if (!entry.isDirectory()) {
      if (entry.isFile()) sessions += sizeOf(folder);
      continue;
    }
    if (!SESSION_ID.test(entry.name)) {
      sessions += treeBytes(folder);
      continue;
    }
    const usage = measureSessionFolder(folder, entry.name);
    if (options.blobs) {
      const journal = readJournal(folder);
      if (journal !== null && !journal.includes('"sealed":')) {
        const fileSnapshots = namedBlobs(journal, FILE_SNAPSHOT_REFERENCE);
        const others = namedBlobs(journal, OTHER_BLOB_REFERENCE);
        usage.fileSnapshots = countBlobs(fileSnapshots, blobSize);
        usage.blobs = countBlobs(others, blobSize);
        named.set(usage, new Set([...fileSnapshots, ...others]));
      }
    }
    sessions += usage.bytes;
    bySession.push(usage);
  }
  const namers = new Map<string, number>();
  for (const hashes of named.values()) for (const hash of hashes) namers.set(hash, (namers.get(hash) ?? 0) + 1);
  const sharedBlobs = options.blobs
    ? countBlobs(
        [...namers].filter(([hash, count]) => count > 1 && blobSizes.has(hash)).map(([hash]) => hash),
        blobSize,
      )
    : null;
  for (const [usage, hashes] of named) {
    usage.shared = countBlobs(
      [...hashes].filter((hash) => (namers.get(hash) ?? 0) > 1 && blobSizes.has(hash)),
      blobSize,
    );
  }
  bySession.sort((left, right) => right.bytes - left.bytes || left.id.localeCompare(right.id));
  let blobBytes = 0;
  for (const bytes of blobSizes.values()) blobBytes += bytes;
  const index = treeBytes(path.join(home, 'index'));
  let other = 0;
  for (const entry of entries(home)) {
    if (['sessions', 'blobs', 'index'].includes(entry.name)) continue;
    const target = path.join(home, entry.name);
    other += entry.isDirectory() ? treeBytes(target) : entry.isFile() ? sizeOf(target) : 0;
  }
  return {
    home,
    bytes: sessions + blobBytes + index + other,
    sessions,
    sessionCount: bySession.length,
    blobs: { count: blobSizes.size, bytes: blobBytes },
    sharedBlobs,
    index,
    other,
    bySession,
  };
}
