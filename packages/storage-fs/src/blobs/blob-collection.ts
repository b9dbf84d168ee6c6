// Blobs a session deleted for good leaves behind. A blob is stored once per content for the whole
// home and shared by every session whose journal names it (file snapshots, large outputs, LangGraph
// values); it goes when the last of them does. Kept, rather than guessed away, is every blob a
// session that cannot be read might name (a damaged journal, a key that is not loaded), and every
// blob put or put again (its modification time renewed) after the look for references started
// or after any live writer of the home took its lease: a running session journals the event
// naming a blob it put only at its next checkpoint or step, possibly minutes later. A blob kept
// that way and never named goes at the next sweep (`sessions cleanup`, `sessions trash --empty`).
import path from 'node:path';
import { isSessionId } from '@resume/core/spec';
import { errorCode } from '../file-system/file-system.js';
import { scanJournal } from '../journal/journal-codec.js';
import type { JournalFiles } from '../journal/journal-files.js';
import { leaseName, liveHolder } from '../lease/lease-files.js';
import type { StoreContext } from '../store/store-context.js';
import { JOURNAL, JOURNAL_ARCHIVED, LEASE_DIRECTORY } from '../store/store-paths.js';

/** A blob's name as a JSON string: its sha256, or its HMAC under a key on an encrypted home. */
const BLOB_REFERENCE = /"([0-9a-f]{64})"/g;
const BLOB_FOLDER = /^[0-9a-f]{2}$/;
const BLOB_FILE = /^[0-9a-f]{62}$/;

export interface BlobCollector {
  /** The blobs a session's journal names (read through its key when sealed); empty when it cannot be read. */
  namedBy(sessionId: string): Promise<Set<string>>;
  /**
   * Removes those of `candidates` that no session names any more and that were not put again
   * after `sinceMs` (a time taken before the sessions are read).
   */
  collect(candidates: Set<string>, sinceMs: number): Promise<number>;
  /** Removes, under the same rule, every blob of the home no session names; resolves to how many went. */
  sweep(): Promise<number>;
}

export function createBlobCollector(context: StoreContext, journals: JournalFiles): BlobCollector {
  const { paths, plain } = context;
  const blobPath = (hash: string) => path.join(paths.blobs, hash.slice(0, 2), hash.slice(2));
  /** The blob's file, when it is one in a real blob folder (a folder replaced by a symlink is never followed). */
  const blobFile = async (hash: string) =>
    (await plain.status(path.dirname(blobPath(hash))))?.isDirectory ? plain.status(blobPath(hash)) : null;
  /**
   * The blob names each journal held when last read, by the journal's size and modification
   * time: a later deletion (a cleanup deletes many) reads only the journals that changed since.
   */
  const seen = new Map<string, { stamp: string; names: Set<string> }>();

  /** The blob names a journal holds, or null when it cannot be read. */
  const namesIn = async (sessionId: string): Promise<Set<string> | null> => {
    try {
      const location = await journals.locate(sessionId);
      if (!location || location.missing) return new Set();
      const file = paths.inSession(sessionId, location.archived ? JOURNAL_ARCHIVED : JOURNAL);
      const stamp = `${location.archived}:${location.size}:${(await plain.status(file))?.modifiedMs}`;
      const known = seen.get(sessionId);
      if (known?.stamp === stamp) return known.names;
      const journal = await journals.readBytes(sessionId);
      if (!journal) return new Set();
      let text = journal.bytes.toString('latin1');
      // A plain journal names its blobs in its text, its damaged parts included; a sealed one is opened.
      if (text.includes('"sealed"')) {
        const scan = scanJournal(journal.bytes, { sessionId, file: journal.file, keyring: context.keyring });
        if (scan.torn) return null;
        text = JSON.stringify(scan.events);
      }
      const names = new Set(Array.from(text.matchAll(BLOB_REFERENCE), (match) => match[1] as string));
      seen.set(sessionId, { stamp, names });
      return names;
    } catch {
      return null;
    }
  };

  /**
   * When the session's live writer took its lease (Infinity when none holds it): anything it put
   * since then it may name without having journaled it yet. Told by the lease file's modification
   * time, not the time written in it: the file system's clock stamps the blobs too, and it can lag
   * the process clock by a few ms, enough for a blob put just after the lease to look older than it.
   * A lease folder that cannot be read keeps every blob.
   */
  const writingSince = async (sessionId: string): Promise<number> => {
    try {
      const leaseDirectory = paths.inSession(sessionId, LEASE_DIRECTORY);
      const { record, epoch } = await liveHolder(context.lease, leaseDirectory);
      if (!record) return Number.POSITIVE_INFINITY;
      return (await plain.status(path.join(leaseDirectory, leaseName(epoch))))?.modifiedMs ?? Number.NEGATIVE_INFINITY;
    } catch (error) {
      // No lease folder: no writer holds the session (one taking it later puts after `sinceMs`).
      return errorCode(error) === 'ENOENT' ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY;
    }
  };

  const collect = async (candidates: Set<string>, sinceMs: number): Promise<number> => {
    const unnamed = new Set<string>();
    for (const hash of candidates) if ((await blobFile(hash))?.isFile) unnamed.add(hash);
    if (unnamed.size === 0) return 0;
    let before = sinceMs;
    const sessions = await plain.readDirectory(paths.sessions).catch(() => []);
    for (const sessionId of sessions.filter(isSessionId)) {
      // The lease before the journal: a writer that journals its blob and releases in between is
      // then seen by its journal, never missed by both.
      before = Math.min(before, await writingSince(sessionId));
      const names = await namesIn(sessionId);
      if (names === null) return 0;
      for (const hash of unnamed) if (names.has(hash)) unnamed.delete(hash);
      if (unnamed.size === 0) return 0;
    }
    let removed = 0;
    for (const hash of unnamed) {
      const status = await blobFile(hash);
      // Strictly before: a put in the same tick of the file system's clock as the lease is kept.
      if (!status?.isFile || status.modifiedMs === undefined || status.modifiedMs >= before) continue;
      await plain.remove(blobPath(hash)).then(
        () => {
          removed += 1;
        },
        (error: unknown) => {
          if (errorCode(error) !== 'ENOENT') throw error;
        },
      );
    }
    return removed;
  };

  return {
    collect,

    async sweep() {
      const sinceMs = Date.now();
      const candidates = new Set<string>();
      for (const folder of await plain.readDirectory(paths.blobs).catch(() => [])) {
        if (!BLOB_FOLDER.test(folder)) continue;
        for (const name of await plain.readDirectory(path.join(paths.blobs, folder)).catch(() => []))
          if (BLOB_FILE.test(name)) candidates.add(`${folder}${name}`);
      }
      return collect(candidates, sinceMs);
    },

    async namedBy(sessionId) {
      const names = (await namesIn(sessionId)) ?? new Set<string>();
      seen.delete(sessionId);
      return names;
    },
  };
}
