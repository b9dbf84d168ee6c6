// A file a command writes where the user said (`sessions export -o`, `files --restore --to`): only a new path, or with `--force` an
// existing regular file, is written. A device, a FIFO, a socket or a directory is refused by
// name, and so is a symbolic link, `--force` or not (a link is never written through nor
// replaced: the message names where it points). The text goes to a temporary file beside the
// target, synced, then takes the target's place in one step: an export cut short never leaves a
// half file, and a replaced file keeps its mode (and, where allowed, its owner). A new file is
// private (0600), like the store, and is linked into place, so a file that appeared meanwhile is
// never overwritten.
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fchmodSync,
  fchownSync,
  fsyncSync,
  linkSync,
  lstatSync,
  openSync,
  readlinkSync,
  renameSync,
  rmSync,
  type Stats,
  statfsSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { FileNotFoundError, fileAccessError, StoreFullError, UsageError } from '@resume/core/spec';
import { describeFileKind } from '@resume/runner';

/** `-o -` means standard output. */
export const STANDARD_OUTPUT = '-';

export interface OutputFileOptions {
  /** Replace an existing regular file. */
  force: boolean;
  /** A new file's mode, less the umask (default 0600: private, like the store). */
  mode?: number;
}

export function writeOutputFile(target: string, content: string | Uint8Array, options: OutputFileOptions): void {
  const existing = existingTarget(target);
  if (existing) refuseUnlessReplaceable(target, existing, options.force);
  const folder = path.dirname(target);
  // Shortened so that a target whose name is near the limit still has a temporary name within it.
  const temporary = path.join(folder, `.${path.basename(target).slice(0, 200)}.tmp-${randomBytes(6).toString('hex')}`);
  try {
    const descriptor = openSync(temporary, 'wx', options.mode ?? 0o600);
    try {
      const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
      for (let offset = 0; offset < bytes.length; ) offset += writeSync(descriptor, bytes, offset);
      if (existing) keepOwnerAndMode(descriptor, existing);
      fsyncSync(descriptor);
    } finally {
      closeSync(descriptor);
    }
    if (existing) renameSync(temporary, target);
    else placeNew(temporary, target);
    syncFolder(folder);
  } catch (error) {
    try {
      rmSync(temporary, { force: true });
    } catch {
      // What the user needs to hear is why the write failed, not that its leftover could not go.
    }
    throw writeError(error, target);
  }
}

function existingTarget(target: string): Stats | null {
  try {
    return lstatSync(target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw writeError(error, target);
  }
}

function refuseUnlessReplaceable(target: string, existing: Stats, force: boolean): void {
  if (existing.isSymbolicLink()) {
    const pointsTo = path.resolve(path.dirname(target), readlinkSync(target));
    throw new UsageError(`${target} is a symbolic link to ${pointsTo}; Conclave never writes through a link.`, {
      hint: `Give the path itself (${pointsTo}) or another name.`,
    });
  }
  if (existing.isDirectory())
    throw new UsageError(`${target} is a directory, not a file.`, { hint: 'Give a file name inside it.' });
  if (!existing.isFile())
    throw new UsageError(`${target} is ${describeFileKind(existing)}, not a regular file; it is never written.`, {
      hint: 'Give the path of a new or regular file.',
    });
  if (!force)
    throw new UsageError(`${target} already exists.`, {
      hint: 'Add --force to replace it (it keeps its mode), or give another name.',
    });
}

function keepOwnerAndMode(descriptor: number, existing: Stats): void {
  fchmodSync(descriptor, existing.mode & 0o7777);
  try {
    fchownSync(descriptor, existing.uid, existing.gid);
  } catch {
    // Only root may give a file away: anyone else's replacement is theirs, with the same mode.
  }
}

/** Linked rather than renamed: a file that appeared at the target since the check is never replaced. */
function placeNew(temporary: string, target: string): void {
  try {
    linkSync(temporary, target);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST')
      throw new UsageError(`${target} appeared while it was being written; it was left as it is.`, {
        hint: 'Run the command again (an export with --force replaces it).',
      });
    // A file system without hard links: the check above is as close as it gets.
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw error;
    renameSync(temporary, target);
    return;
  }
  rmSync(temporary, { force: true });
}

function syncFolder(folder: string): void {
  try {
    const descriptor = openSync(folder, 'r');
    try {
      fsyncSync(descriptor);
    } finally {
      closeSync(descriptor);
    }
  } catch {
    // The file itself is synced; a folder that cannot be opened for syncing only weakens crash safety.
  }
}

/** The operating system's refusals, typed: each names the file or folder and the fix. */
function writeError(error: unknown, target: string): unknown {
  if (UsageError.isInstance(error)) return error;
  const code = (error as NodeJS.ErrnoException).code;
  const folder = path.dirname(target);
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return new StoreFullError(
      { path: target, location: folder, freeBytes: freeBytes(folder), quota: code === 'EDQUOT' },
      { cause: error },
    );
  }
  if (code === 'ENOENT')
    return new FileNotFoundError(folder, `The folder ${folder} does not exist, so ${target} cannot be written.`, {
      hint: 'Create the folder first, or give another path.',
      cause: error,
    });
  if (code === 'ENOTDIR')
    return new UsageError(`${target} cannot be written: a part of its path is not a folder.`, {
      hint: 'Check the path.',
      cause: error,
    });
  if (code === 'ENAMETOOLONG')
    return new UsageError(`The name ${target.length > 120 ? `${target.slice(0, 100)}…` : target} is too long.`, {
      hint: 'Each part of a path may be at most 255 bytes.',
      cause: error,
    });
  return fileAccessError(error, folder, 'write') ?? error;
}

function freeBytes(folder: string): number | null {
  try {
    const stats = statfsSync(folder);
    return stats.bavail * stats.bsize;
  } catch {
    return null;
  }
}
