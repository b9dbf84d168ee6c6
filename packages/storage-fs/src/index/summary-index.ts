// The listing index: `index/summaries.json` maps each session to its latest summary
// and the journal size that summary was read at. It is a cache, never the truth: a stale
// or lost index costs a few reads, never a wrong listing.
//
// Trusting it without a status call per session: the index carries a stamp, the
// modification time of the sessions folder when its entries were checked, and which
// sessions had a writer then. Creating or deleting a session changes that folder, and so
// does every writer: before its first append to a session it creates the marker
// `sessions/.writing-<id>` (made durable before the append), and it removes the marker
// when it is done (before its lease is released, so the next writer's marker is never
// removed under it). So while the folder still has the stamped time, no session changed
// except those that had a writer then, and only those are checked again (their journal's
// size). Otherwise every session is checked: an entry whose journal size no longer
// matches is refreshed from the journal's last record (read from the end of the file, not
// the whole history), and the index is saved with a new stamp. A stamp is taken only when
// the folder last changed comfortably before the check began (a file system's clock moves
// in ticks: a change in the same tick could leave the time as it was), and is dropped by
// anything it cannot vouch for (no modification time, another build's index).
//
// Appends do not rewrite the index (that would cost fsyncs per checkpoint); it is saved,
// best-effort, when a listing found stale entries or a new stamp, when a lease is released
// and when the store closes (a full disk never fails a listing). A session whose files are
// damaged keeps an entry saying so, and an entry that knew more events than the journal now
// holds is evidence of a cut: both list as damaged until a repair. Its entries are
// validated on every load: by a quick check derived from the schema when zod would return
// them unchanged (the usual case), by zod otherwise (index-file-check.generated.ts).
import path from 'node:path';
import { isSealed, type Keyring } from '@resume/core/encryption';
import { checkedSafeParser, lazySchema } from '@resume/core/lazy-schema';
import { isSessionId, PermissionDeniedError, type SessionSummary, sessionSummarySchema } from '@resume/core/spec';
import { z } from 'zod';
import { writeFileAtomically } from '../file-system/atomic-write.js';
import { errorCode, type FileStatus, type FileSystem } from '../file-system/file-system.js';
import { frameJson, frameObject, unframe } from '../journal/framing.js';
import { summaryFromHeader } from '../repair/placeholder-summary.js';
import { INDEX_PLACE, openIndex, sealedObjectJson } from '../store/sealing.js';
import { checkIndexFile } from './index-file-check.generated.js';
import { type IndexStamp, sameStamp, stampFor, stampHolds, WRITING_MARKER_PREFIX } from './index-stamp.js';

const damageSchema = lazySchema(() => z.object({ problem: z.string(), file: z.string() }));
export type Damage = z.infer<typeof damageSchema>;

/** The damage a listing shows for `problem` found in `file` at `offset` (null: the whole file). */
export function damageAt(problem: string, offset: number | null, file: string): Damage {
  return { problem: offset === null ? problem : `${problem} at byte ${offset}`, file };
}

const entrySchema = lazySchema(() =>
  z.object({
    id: z.string(),
    summary: sessionSummarySchema.nullable(),
    journalSize: z.number().int().nonnegative(),
    archived: z.boolean(),
    damage: damageSchema.nullable().default(null),
    /** The file layout the entry was read at (a missing header or journal is refreshed when it comes back). */
    missing: z.array(z.enum(['header', 'journal'])).default([]),
  }),
);
export type IndexEntry = z.infer<typeof entrySchema>;

/** When the index's entries were checked: the sessions folder's times, and the sessions being written then. */
const stampSchema = lazySchema(() =>
  z.object({
    modifiedMs: z.number(),
    changedMs: z.number(),
    writing: z.array(z.string()),
  }),
);

/** The index file's schema; `index-file-check.generated.ts` is its check, generated from it. */
export const indexFileSchema = lazySchema(() =>
  z.object({
    v: z.literal(1),
    entries: z.array(entrySchema),
    stamp: stampSchema.nullable().default(null),
  }),
);
type IndexFile = z.output<typeof indexFileSchema>;

/** The index file's entries, or null when the content is not a valid index. */
const parseIndex = checkedSafeParser(indexFileSchema, checkIndexFile);

function parseIndexFile(value: unknown): IndexFile | null {
  const parsed = parseIndex(value);
  return parsed.success ? parsed.data : null;
}

/** Where a session's journal is now and how big it is; null when the session does not exist. */
export interface JournalLocation {
  size: number;
  archived: boolean;
  /** No journal file at all (plain or archived). */
  missing: boolean;
}

/** What the index keeps of a session after reading its journal's tail. */
export interface InspectedSession {
  summary: SessionSummary | null;
  damage: Damage | null;
}

export interface SummaryIndexContext {
  fileSystem: FileSystem;
  /** Where the writing markers are made durable (the store's durable file system). */
  durableFileSystem: FileSystem;
  indexFile: string;
  sessionsDirectory: string;
  /** How long (ms) the sessions folder must have been unchanged for a listing to stamp the index. */
  settleMs: number;
  /** `isDirectory`: the session's folder was just listed as a real directory, so it is not checked again. */
  locate(sessionId: string, isDirectory?: boolean): Promise<JournalLocation | null>;
  /**
   * The summary in the journal's last committed record (null when nothing was appended yet)
   * and any damage found, given what the index knew before.
   */
  inspect(sessionId: string, location: JournalLocation, known: IndexEntry | null): Promise<InspectedSession>;
  /** Seals the index when it has a current key, opens a sealed one with the key it names. */
  keyring: Keyring | null;
}

export interface SummaryIndex {
  /** Every session's entry, refreshed where the journal changed since. */
  all(): Promise<IndexEntry[]>;
  /** One session's entry, refreshed if needed; null when the session does not exist. */
  get(sessionId: string): Promise<IndexEntry | null>;
  /** Records what an append just wrote (in memory until the next save). */
  record(entry: IndexEntry): void;
  forget(sessionId: string): void;
  /** Marks a listed session damaged (found by a read), until its journal changes or a repair. */
  markDamaged(sessionId: string, damage: Damage): Promise<void>;
  /** The entry as the index holds it, without refreshing it. */
  known(sessionId: string): Promise<IndexEntry | null>;
  save(): Promise<void>;
  /** Marks the session as being written (durably), before the first change to its files. */
  beginWriting(sessionId: string): Promise<void>;
  /** Removes the marker `beginWriting` made (or took over from a writer that died). */
  endWriting(sessionId: string): Promise<void>;
  /** Runs `work`, a change to the session's files, between `beginWriting` and `endWriting`. */
  whileWriting<T>(sessionId: string, work: () => Promise<T>): Promise<T>;
}

const missingOf = (location: JournalLocation): IndexEntry['missing'] => (location.missing ? ['journal'] : []);

export function createSummaryIndex(context: SummaryIndexContext): SummaryIndex {
  let entries: Map<string, IndexEntry> | null = null;
  let stamp: IndexStamp | null = null;
  // Sessions this instance marked as being written (or whose marker it took over).
  const markedHere = new Set<string>();
  const markerOf = (sessionId: string) => path.join(context.sessionsDirectory, `${WRITING_MARKER_PREFIX}${sessionId}`);
  const folderStatus = (): Promise<FileStatus | null> =>
    context.fileSystem.statusNow
      ? Promise.resolve(context.fileSystem.statusNow(context.sessionsDirectory))
      : context.fileSystem.status(context.sessionsDirectory);
  // What appends recorded before the index was first loaded (a writer that never lists).
  const pending = new Map<string, IndexEntry>();
  let dirty = false;

  const load = async (): Promise<Map<string, IndexEntry>> => {
    if (entries) return entries;
    const loaded = new Map<string, IndexEntry>();
    try {
      const content = await context.fileSystem.readFile(context.indexFile);
      const unframed = unframe(content.at(-1) === 0x0a ? content.subarray(0, -1) : content);
      const framed = unframed.ok ? openIndex(unframed.value, context.keyring, context.indexFile) : unframed;
      // An index in the clear in a store that seals is sealed at its next save.
      if (unframed.ok && context.keyring?.current() && !isSealed(unframed.value)) dirty = true;
      const parsed = framed.ok ? parseIndexFile(framed.value) : null;
      // A damaged index is rebuilt from the journals rather than trusted.
      if (parsed) {
        let unlocked = false;
        for (const entry of parsed.entries) {
          // Listed as encrypted while its key was not held: read again now that it is.
          const locked = entry.summary?.locked;
          if (locked && context.keyring?.get(locked.key)) unlocked = true;
          else loaded.set(entry.id, entry);
        }
        // The stamp vouches for the entries as saved: without the ones dropped, every session is checked.
        stamp = unlocked ? null : parsed.stamp;
        if (unlocked) dirty = true;
      } else dirty = true;
    } catch (error) {
      // A missing index is built; one that cannot be read (replaced by a directory, or refused) is rebuilt in memory.
      const unreadable = errorCode(error) === 'EISDIR' || PermissionDeniedError.isInstance(error);
      if (errorCode(error) !== 'ENOENT' && !unreadable) throw error;
    }
    for (const entry of pending.values()) loaded.set(entry.id, entry);
    if (pending.size > 0) dirty = true;
    pending.clear();
    entries = loaded;
    return loaded;
  };

  const refresh = async (
    cache: Map<string, IndexEntry>,
    sessionId: string,
    isDirectory = false,
  ): Promise<IndexEntry | null> => {
    const location = await context.locate(sessionId, isDirectory);
    const known = cache.get(sessionId);
    if (!location) {
      if (known) {
        cache.delete(sessionId);
        dirty = true;
      }
      return null;
    }
    const missing = missingOf(location);
    if (
      known &&
      known.journalSize === location.size &&
      known.archived === location.archived &&
      known.missing.join() === missing.join()
    )
      return known;
    const inspected = await context.inspect(sessionId, location, known ?? null);
    const entry: IndexEntry = {
      id: sessionId,
      summary: inspected.summary,
      journalSize: location.size,
      archived: location.archived,
      damage: inspected.damage,
      missing,
    };
    cache.set(sessionId, entry);
    dirty = true;
    return entry;
  };

  /**
   * `refresh`, except that a session whose files are refused is listed as unreadable with what
   * was last known of it, and the next listing looks again (the entry is left as it was).
   */
  const refreshOrRefused = (cache: Map<string, IndexEntry>, sessionId: string, isDirectory: boolean) =>
    refresh(cache, sessionId, isDirectory).catch((error: unknown): IndexEntry => {
      if (!PermissionDeniedError.isInstance(error)) throw error;
      const known = cache.get(sessionId);
      const last = known?.summary ?? summaryFromHeader(sessionId, null);
      return {
        id: sessionId,
        // What was known stays (a running status cannot be checked against a lease that cannot be read).
        summary: {
          ...last,
          status: last.status === 'running' ? 'interrupted' : last.status,
          unreadable: { path: error.path, problem: error.message },
        },
        journalSize: known?.journalSize ?? 0,
        archived: known?.archived ?? false,
        damage: null,
        missing: [],
      };
    });

  return {
    async all() {
      const cache = await load();
      // Taken before the sessions are looked at: any change after this moves the folder's time.
      const startedMs = Date.now();
      const folder = await folderStatus().catch(() => null);
      if (stampHolds(stamp, folder)) {
        // Nothing was created, deleted or written since the stamp but the sessions written then.
        const writing = (stamp?.writing ?? []).filter((id) => cache.has(id));
        await Promise.all(writing.map((id) => refresh(cache, id)));
        if (dirty) await this.save().catch(() => {});
        return [...cache.values()];
      }
      // Where the listing tells directories apart, a session is one status call (its journal), not two.
      const listed = context.fileSystem.readSubdirectories !== undefined;
      const names =
        (listed
          ? await context.fileSystem.readSubdirectories?.(context.sessionsDirectory)
          : await context.fileSystem.readDirectory(context.sessionsDirectory)) ?? [];
      const ids = new Set(names.filter(isSessionId));
      const writing = names
        .filter((name) => name.startsWith(WRITING_MARKER_PREFIX))
        .map((name) => name.slice(WRITING_MARKER_PREFIX.length))
        .filter((id) => ids.has(id));
      for (const id of cache.keys()) {
        if (!ids.has(id)) {
          cache.delete(id);
          dirty = true;
        }
      }
      const refreshed = await Promise.all([...ids].map((id) => refreshOrRefused(cache, id, listed)));
      // An unreadable session is looked at again by the next listing: the index cannot vouch for it.
      const next = refreshed.some((entry) => entry?.summary?.unreadable)
        ? null
        : stampFor(folder, writing, startedMs, context.settleMs);
      if (!sameStamp(stamp, next)) {
        stamp = next;
        dirty = true;
      }
      // Listing is a read: a failed save (a full disk, a read-only home) leaves the work for next time.
      if (dirty) await this.save().catch(() => {});
      return refreshed.filter((entry): entry is IndexEntry => entry !== null);
    },
    async get(sessionId) {
      return refresh(await load(), sessionId);
    },
    record(entry) {
      if (!entries) {
        pending.set(entry.id, entry);
        return;
      }
      entries.set(entry.id, entry);
      dirty = true;
    },
    async markDamaged(sessionId, damage) {
      const entry = (await load()).get(sessionId);
      if (!entry || entry.damage?.problem === damage.problem) return;
      entry.damage = damage;
      dirty = true;
    },
    async known(sessionId) {
      return (await load()).get(sessionId) ?? null;
    },
    forget(sessionId) {
      pending.delete(sessionId);
      if (entries?.delete(sessionId)) dirty = true;
    },
    async save() {
      if (pending.size > 0) await load();
      if (!entries || !dirty) return;
      dirty = false;
      const key = context.keyring?.current() ?? null;
      const content = { entries: [...entries.values()], stamp };
      const file = key
        ? frameJson(sealedObjectJson(key, INDEX_PLACE, { v: 1 }, content))
        : frameObject({ v: 1, ...content });
      try {
        await context.fileSystem.makeDirectory(path.dirname(context.indexFile)).catch(() => {});
        await writeFileAtomically(context.fileSystem, context.indexFile, file);
      } catch (error) {
        dirty = true;
        throw error;
      }
    },
    async beginWriting(sessionId) {
      if (markedHere.has(sessionId)) return;
      try {
        await context.fileSystem.makeDirectory(markerOf(sessionId));
        // Durable before the first change it announces: after a power loss the change may
        // survive, so the marker (and the folder's new time) must too.
        await context.durableFileSystem.syncDirectory(context.sessionsDirectory);
      } catch (error) {
        // Left by a writer that died: this writer carries on under it.
        if (errorCode(error) !== 'EEXIST') throw error;
      }
      markedHere.add(sessionId);
    },
    async endWriting(sessionId) {
      if (!markedHere.delete(sessionId)) return;
      // Best-effort: a marker left behind only costs its session a status call per listing.
      await context.fileSystem.removeTree(markerOf(sessionId)).catch(() => {});
    },
    async whileWriting(sessionId, work) {
      const alreadyMarked = markedHere.has(sessionId);
      await this.beginWriting(sessionId);
      try {
        return await work();
      } finally {
        if (!alreadyMarked) await this.endWriting(sessionId);
      }
    },
  };
}
