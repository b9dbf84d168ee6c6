// The space limits of a data home (`limits.maxHomeBytes`, `limits.maxSessionBytes`;
// docs/storage.md#space-limits). The home is measured once, at the first write of this store
// instance, and each session once, at its first write; from then on the totals grow by what this
// instance writes, so a checkpoint pays one comparison, never a walk of the home. A write that
// would pass a limit is refused before any byte of it is written (StoreQuotaError), like a full
// disk but before it.
import { StoreQuotaError } from '@resume/core/spec';
import type { StorePaths } from '../store/store-paths.js';
import { measureHome, measureSessionFolder } from './home-usage.js';

export interface StoreQuotaLimits {
  /** Bytes the whole data home may hold (sessions, the trash, blobs, the index). */
  maxHomeBytes?: number | null;
  /** Bytes one session's folder may hold (its journal, snapshots and the rest of its folder). */
  maxSessionBytes?: number | null;
}

export interface StoreQuota {
  /** Throws StoreQuotaError when `bytes` more, written for session `id`, would pass a limit. */
  admit(id: string | null, bytes: number): void;
  /** Counts `bytes` this instance wrote for session `id` (null: shared, as a blob). */
  written(id: string | null, bytes: number): void;
}

const BIGGEST_NAMED = 5;

/** The quota of the home at `home`, or null when no limit is set (nothing is measured then). */
export function createStoreQuota(paths: StorePaths, limits: StoreQuotaLimits | undefined): StoreQuota | null {
  const maxHome = limits?.maxHomeBytes ?? null;
  const maxSession = limits?.maxSessionBytes ?? null;
  if (maxHome === null && maxSession === null) return null;
  let homeBytes: number | null = null;
  const sessionBytes = new Map<string, number>();
  const { home } = paths;
  const sessionFolder = (id: string) => paths.session(id);

  const homeNow = () => {
    homeBytes ??= measureHome(home).bytes;
    return homeBytes;
  };
  const sessionNow = (id: string) => {
    let bytes = sessionBytes.get(id);
    if (bytes === undefined) {
      bytes = measureSessionFolder(sessionFolder(id), id).bytes;
      sessionBytes.set(id, bytes);
    }
    return bytes;
  };

  /**
   * The running totals said no: measured afresh first (other processes may have freed space since,
   * and deletions in this one are not counted), refused only when the disk agrees.
   */
  const check = (limit: 'maxHomeBytes' | 'maxSessionBytes', id: string | null, bytes: number): void => {
    const usage = measureHome(home);
    const session = id === null ? null : measureSessionFolder(sessionFolder(id), id);
    homeBytes = usage.bytes;
    if (id !== null && session) sessionBytes.set(id, session.bytes);
    const used = limit === 'maxHomeBytes' ? usage.bytes : (session?.bytes ?? 0);
    const limitBytes = (limit === 'maxHomeBytes' ? maxHome : maxSession) ?? 0;
    if (used + bytes <= limitBytes) return;
    throw new StoreQuotaError({
      limit,
      limitBytes,
      usedBytes: used,
      writingBytes: bytes,
      location: home,
      sessionId: id,
      biggest: usage.bySession.slice(0, BIGGEST_NAMED).map((entry) => ({ id: entry.id, bytes: entry.bytes })),
      ...(limit === 'maxSessionBytes' && session
        ? { parts: { journal: session.journal, snapshots: session.snapshots, other: session.other } }
        : {}),
    });
  };

  return {
    admit(id, bytes) {
      if (maxSession !== null && id !== null && sessionNow(id) + bytes > maxSession)
        check('maxSessionBytes', id, bytes);
      if (maxHome !== null && homeNow() + bytes > maxHome) check('maxHomeBytes', id, bytes);
    },
    written(id, bytes) {
      if (homeBytes !== null) homeBytes += bytes;
      if (id !== null && sessionBytes.has(id)) sessionBytes.set(id, (sessionBytes.get(id) ?? 0) + bytes);
    },
  };
}
