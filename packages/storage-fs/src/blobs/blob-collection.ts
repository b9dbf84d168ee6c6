// Blobs a session deleted for good leaves behind. A blob is stored once per content for the whole
// home and shared by every session whose journal names it (file snapshots, large outputs, LangGraph
// values); it goes when the last of them does. Kept, rather than guessed away, is every blob a
// session that cannot be read might name (a damaged journal, a key that is not loaded), and every
// blob put or put again (its modification time renewed) after the look for references started:
// a session that is about to name it may not have journaled it yet.
import path from 'node:path';
import { isSessionId } from '@resume/core/spec';
import { errorCode } from '../file-system/file-system.js';
import { scanJournal } from '../journal/journal-codec.js';
import type { JournalFiles } from '../journal/journal-files.js';
import type { StoreContext } from '../store/store-context.js';
import { JOURNAL, JOURNAL_ARCHIVED } from '../store/store-paths.js';

/** A blob's name as a JSON string: its sha256, or its HMAC under a key on an encrypted home. */
const BLOB_REFERENCE = /"([0-9a-f]{64})"/g;

export interface BlobCollector {
  /** The blobs a session's journal names (read through its key when sealed); empty when it cannot be read. */
  namedBy(sessionId: string): Promise<Set<string>>;
  /**
   * Removes those of `candidates` that no session names any more and that were not put again
   * after `sinceMs` (a time taken before the sessions are read).
   */
  collect(candidates: Set<string>, sinceMs: number): Promise<void>;
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

  return {
    async namedBy(sessionId) {
      const names = (await namesIn(sessionId)) ?? new Set<string>();
      seen.delete(sessionId);
      return names;
    },

    async collect(candidates, sinceMs) {
      const unnamed = new Set<string>();
      for (const hash of candidates) if ((await blobFile(hash))?.isFile) unnamed.add(hash);
      if (unnamed.size === 0) return;
      const sessions = await plain.readDirectory(paths.sessions).catch(() => []);
      for (const sessionId of sessions.filter(isSessionId)) {
        const names = await namesIn(sessionId);
        if (names === null) return;
        for (const hash of unnamed) if (names.has(hash)) unnamed.delete(hash);
        if (unnamed.size === 0) return;
      }
      for (const hash of unnamed) {
        const status = await blobFile(hash);
        if (!status?.isFile || status.modifiedMs === undefined || status.modifiedMs > sinceMs) continue;
        await plain.remove(blobPath(hash)).catch((error: unknown) => {
          if (errorCode(error) !== 'ENOENT') throw error;
        });
      }
    },
  };
}
