// The store's two views of the file system, built once per store:
// - `plain`: files are opened without following symlinks (a linked file reads as absent)
//   and a full disk (ENOSPC) or quota (EDQUOT) becomes a StoreFullError naming the path
//   and the free space. Best-effort writes (snapshots, the listing index) use it.
// - `durable`: the same, and a failed fsync (or a failed write on a file opened for
//   durable writes) ends all writing through this store instance: the kernel may have
//   dropped data it had reported as written, and a retry could "succeed" over a hole.
import { StoreFullError, StoreIoError } from '@resume/core/spec';
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

export function guardFileSystem(raw: FileSystem, home: string): GuardedFileSystem {
  /** The typed form of a failed write: StoreFullError for a full disk, the error itself otherwise. */
  const typed = (error: unknown, where: string): unknown => {
    if (StoreFullError.isInstance(error) || !diskFullCodes.has(errorCode(error) ?? '')) return error;
    return new StoreFullError(
      { path: where, location: home, freeBytes: raw.freeSpace?.(home) ?? null, quota: errorCode(error) === 'EDQUOT' },
      { cause: error },
    );
  };
  const rethrow =
    (where: string) =>
    (error: unknown): never => {
      throw typed(error, where);
    };
  const absent = (error: unknown): never => {
    if (errorCode(error) === 'ELOOP')
      throw Object.assign(new Error(`${String(error)} (a symlink)`), { code: 'ENOENT' });
    throw error;
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
    openAppend: (target) => raw.openAppend(target).then((file) => typedFile(file, target), absent),
    createExclusive: (target) => raw.createExclusive(target).then((file) => typedFile(file, target), rethrow(target)),
    readFile: (target) => raw.readFile(target).catch(absent),
    readRange: (target, position, length) => raw.readRange(target, position, length).catch(absent),
    makeDirectory: (target) => raw.makeDirectory(target).catch(rethrow(target)),
    rename: (from, to) => raw.rename(from, to).catch(rethrow(to)),
    link: (from, to) => raw.link(from, to).catch(rethrow(to)),
    truncate: (target, length) => raw.truncate(target, length).catch(rethrow(target)),
    syncDirectory: (target) => raw.syncDirectory(target).catch(rethrow(target)),
  };

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
