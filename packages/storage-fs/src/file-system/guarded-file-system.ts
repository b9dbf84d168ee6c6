// The store's two views of the file system, built once per store:
// - `plain`: files are opened without following symlinks (a linked file reads as absent)
//   and a full disk (ENOSPC) or quota (EDQUOT) becomes a StoreFullError naming the path
//   and the free space. Best-effort writes (snapshots, the listing index) use it.
// - `durable`: the same, and a failed fsync (or a failed write on a file opened for
//   durable writes) ends all writing through this store instance: the kernel may have
//   dropped data it had reported as written, and a retry could "succeed" over a hole.
// In both, a path the operating system refuses (EACCES, EPERM) is a PermissionDeniedError
// naming the folder or file that refused, so every front end can say what to fix.
import path from 'node:path';
import { fileAccessError, PermissionDeniedError, StoreFullError, StoreIoError } from '@resume/core/spec';
import { errorCode, type FileSystem, type WritableFile } from './file-system.js';

export interface GuardedFileSystem {
  plain: FileSystem;
  durable: FileSystem;
  /** Throws once a durable write failed in this instance. */
  refuseIfBroken(): void;
  /** Marks the store broken and throws the typed error for `error` at `where`. */
  fatal(error: unknown, where: string): never;
  readonly broken: boolean;
}

const diskFullCodes = new Set(['ENOSPC', 'EDQUOT']);

export function isDiskFull(error: unknown): boolean {
  return diskFullCodes.has(errorCode(error) ?? '') || StoreFullError.isInstance(error);
}

/** What an operation does to its path: reads it, changes what it holds, or adds or removes its entry in its folder. */
type Access = 'read' | 'write' | 'entry';

export function guardFileSystem(raw: FileSystem, home: string): GuardedFileSystem {
  /**
   * What refused `target`: the first folder below the home that may not be searched (the status
   * of an entry in it is refused; reading it would be needed), else the folder whose entries a
   * create, rename or remove changes (writing it), else `target` itself.
   */
  const refused = (target: string, access: Access): { path: string; access: 'read' | 'write' } => {
    const inHome = path.relative(home, target);
    if (raw.statusNow && inHome !== '' && !inHome.startsWith('..') && !path.isAbsolute(inHome)) {
      let folder = home;
      for (const name of inHome.split(path.sep)) {
        const entry = path.join(folder, name);
        try {
          raw.statusNow(entry);
        } catch (error) {
          if (PermissionDeniedError.isInstance(fileAccessError(error, folder, 'read')))
            return { path: folder, access: 'read' };
          break;
        }
        folder = entry;
      }
    }
    if (access === 'entry') return { path: path.dirname(target), access: 'write' };
    return { path: target, access };
  };
  /** The PermissionDeniedError for a refused `target`, or the error itself. */
  const denied = (error: unknown, target: string, access: Access): unknown => {
    if (!PermissionDeniedError.isInstance(fileAccessError(error, target, 'read'))) return error;
    // Node names the path it was refused (a file deep in a tree being removed).
    const where = typeof (error as { path?: unknown }).path === 'string' ? (error as { path: string }).path : target;
    const at = refused(where, access);
    return new PermissionDeniedError(at.path, at.access, { cause: error });
  };
  const refuse =
    (target: string, access: Access) =>
    (error: unknown): never => {
      throw denied(error, target, access);
    };
  /** `work` at once, its refusal typed. */
  const now = <T>(target: string, access: Access, work: () => T): T => {
    try {
      return work();
    } catch (error) {
      throw denied(error, target, access);
    }
  };

  /** The typed form of a failed write: a refused path, StoreFullError for a full disk, the error itself otherwise. */
  const typed = (error: unknown, where: string, access: Access = 'write'): unknown => {
    const refused = denied(error, where, access);
    if (refused !== error) return refused;
    if (StoreFullError.isInstance(error) || !diskFullCodes.has(errorCode(error) ?? '')) return error;
    return new StoreFullError(
      { path: where, location: home, freeBytes: raw.freeSpace?.(home) ?? null, quota: errorCode(error) === 'EDQUOT' },
      { cause: error },
    );
  };
  const rethrow =
    (where: string, access: Access = 'write') =>
    (error: unknown): never => {
      throw typed(error, where, access);
    };
  const absent =
    (where: string, access: Access = 'read') =>
    (error: unknown): never => {
      if (errorCode(error) === 'ELOOP')
        throw Object.assign(new Error(`${String(error)} (a symlink)`), { code: 'ENOENT' });
      throw denied(error, where, access);
    };
  const typedFile = (file: WritableFile, target: string): WritableFile => ({
    ...file,
    write: (data) => file.write(data).catch(rethrow(target)),
    datasync: () => file.datasync().catch(rethrow(target)),
    ...(file.writeNow
      ? {
          writeNow: (data: Uint8Array) => {
            try {
              file.writeNow?.(data);
            } catch (error) {
              throw typed(error, target);
            }
          },
        }
      : {}),
  });

  const plain: FileSystem = {
    ...raw,
    openAppend: (target) => raw.openAppend(target).then((file) => typedFile(file, target), absent(target, 'write')),
    createExclusive: (target) =>
      raw.createExclusive(target).then((file) => typedFile(file, target), rethrow(target, 'entry')),
    readFile: (target) => raw.readFile(target).catch(absent(target)),
    readRange: (target, position, length) => raw.readRange(target, position, length).catch(absent(target)),
    status: (target) => raw.status(target).catch(refuse(target, 'read')),
    readDirectory: (target) => raw.readDirectory(target).catch(refuse(target, 'read')),
    makeDirectory: (target) => raw.makeDirectory(target).catch(rethrow(target, 'entry')),
    rename: (from, to) => raw.rename(from, to).catch(rethrow(to, 'entry')),
    link: (from, to) => raw.link(from, to).catch(rethrow(to, 'entry')),
    remove: (target) => raw.remove(target).catch(refuse(target, 'entry')),
    removeTree: (target) => raw.removeTree(target).catch(refuse(target, 'entry')),
    truncate: (target, length) => raw.truncate(target, length).catch(rethrow(target)),
    syncDirectory: (target) => raw.syncDirectory(target).catch(rethrow(target)),
  };
  const { readSubdirectories, statusNow, existsNow } = raw;
  if (readSubdirectories)
    plain.readSubdirectories = (target) => readSubdirectories(target).catch(refuse(target, 'read'));
  if (statusNow) plain.statusNow = (target) => now(target, 'read', () => statusNow(target));
  if (existsNow) plain.existsNow = (target) => now(target, 'read', () => existsNow(target));

  let broken: unknown = null;
  const fatal = (error: unknown, where: string): never => {
    broken ??= typed(error, where);
    if (isDiskFull(error)) throw typed(error, where);
    throw new StoreIoError(`Could not make ${where} durable: the session store at ${home} stops writing.`, where, {
      cause: error,
      hint: 'Check the disk (space, errors), then run the command again.',
    });
  };
  const refuseIfBroken = () => {
    if (broken === null) return;
    if (StoreFullError.isInstance(broken)) {
      throw new StoreFullError(
        { path: broken.path, location: home, freeBytes: raw.freeSpace?.(home) ?? null },
        { cause: broken },
      );
    }
    throw new StoreIoError(
      `The session store at ${home} stopped accepting writes after a failed fsync; nothing more was written.`,
      home,
      { cause: broken, hint: 'Check the disk (space, errors), then run the command again.' },
    );
  };

  const durable: FileSystem = {
    ...plain,
    async openAppend(target) {
      const file = await plain.openAppend(target);
      return {
        ...file,
        datasync: () => file.datasync().catch((error: unknown) => fatal(error, target)),
        // A failed write on a file opened for durable writes may be a failed flush: just as fatal.
        ...(file.durableWrites
          ? { write: (data: Uint8Array) => file.write(data).catch((error: unknown) => fatal(error, target)) }
          : {}),
        ...(file.writeNow && file.durableWrites
          ? {
              writeNow: (data: Uint8Array) => {
                try {
                  file.writeNow?.(data);
                } catch (error) {
                  fatal(error, target);
                }
              },
            }
          : { writeNow: undefined }),
      };
    },
    async createExclusive(target) {
      const file = await plain.createExclusive(target);
      return { ...file, datasync: () => file.datasync().catch((error: unknown) => fatal(error, target)) };
    },
    syncDirectory: (target) => plain.syncDirectory(target).catch((error: unknown) => fatal(error, target)),
  };

  return {
    plain,
    durable,
    refuseIfBroken,
    fatal,
    get broken() {
      return broken !== null;
    },
  };
}
