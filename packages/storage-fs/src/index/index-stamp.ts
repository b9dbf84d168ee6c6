// The listing index's stamp (see summary-index.ts): when its entries were checked, as the
// sessions folder's times, and which sessions had a writer then. Kept free of zod so that a
// listing can decide whether to trust the index before loading anything else.
import type { FileStatus } from '../file-system/file-system.js';

export interface IndexStamp {
  modifiedMs: number;
  changedMs: number;
  writing: string[];
}

/** The marker a writer keeps in the sessions folder while it writes a session. */
export const WRITING_MARKER_PREFIX = '.writing-';

/**
 * A folder whose last change is newer than this (ms) at the start of a check is not stamped by
 * default: a change within the same tick of the file system's clock would not move its times.
 */
export const STAMP_SETTLE_MS = 2_000;

/** Whether the sessions folder is still as it was when `stamp` was taken. */
export function stampHolds(stamp: IndexStamp | null, folder: FileStatus | null): boolean {
  return (
    stamp !== null &&
    folder?.isDirectory === true &&
    folder.modifiedMs === stamp.modifiedMs &&
    folder.changedMs === stamp.changedMs
  );
}

/**
 * The stamp for a folder checked from `startedMs` on; null while the folder may still be changing
 * within one tick (its last change is less than `settleMs` old).
 */
export function stampFor(
  folder: FileStatus | null,
  writing: string[],
  startedMs: number,
  settleMs: number,
): IndexStamp | null {
  if (!folder?.isDirectory || folder.modifiedMs === undefined || folder.changedMs === undefined) return null;
  if (Math.max(folder.modifiedMs, folder.changedMs) >= startedMs - settleMs) return null;
  return { modifiedMs: folder.modifiedMs, changedMs: folder.changedMs, writing };
}

export function sameStamp(a: IndexStamp | null, b: IndexStamp | null): boolean {
  if (a === null || b === null) return a === b;
  return (
    a.modifiedMs === b.modifiedMs &&
    a.changedMs === b.changedMs &&
    a.writing.length === b.writing.length &&
    a.writing.every((id, position) => b.writing[position] === id)
  );
}
