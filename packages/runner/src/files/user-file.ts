// A file the user names on the command line or in a spec (a workflow spec, a prompt file, a
// project or items file, a config file, a script, an export bundle): read only when it is a
// regular file no larger than its kind allows. A device (`/dev/zero`), a FIFO, a socket or a
// directory is refused by name before anything is read, and the open does not block (a FIFO
// swapped in after the check still cannot hang the run). Every refusal is a typed error with
// its exit code: a directory or another kind of file 64, a name too long 64, a missing file 66,
// a refused one 77.
import { closeSync, constants, fstatSync, openSync, readSync, type Stats, statSync } from 'node:fs';
import { fileAccessError, formatBytes, UsageError } from '@resume/core/spec';

const MiB = 1024 * 1024;

/** How large a file the user names may be, by what it holds. */
export const USER_FILE_LIMITS = {
  /** Workflow specs, prompt files, config files, scripts: written by hand. */
  text: MiB,
  /** Project files (iterative mode) and items files of map steps: data. */
  data: 64 * MiB,
  /** Export bundles (`sessions import`): a whole journal and its blobs, parsed as one JSON text. */
  bundle: 256 * MiB,
} as const;

export interface UserFileOptions {
  /** What the file is, for messages: `workflow spec`, `items file`, `export`. */
  what: string;
  maxBytes: number;
}

/** The text of a regular file the user named, or a typed error naming the file and the fix. */
export function readUserFile(file: string, options: UserFileOptions): string {
  return readUserFileBytes(file, options).toString('utf8');
}

/** The bytes of a regular file the user named (as `readUserFile`). */
export function readUserFileBytes(file: string, options: UserFileOptions): Buffer {
  const named = checkedStatus(file, options, () => statSync(file));
  // O_NONBLOCK: opening a FIFO put in place since the check returns at once instead of waiting for a writer.
  const descriptor = accessed(file, options, () => openSync(file, constants.O_RDONLY | constants.O_NONBLOCK));
  try {
    const opened = checkedStatus(file, options, () => fstatSync(descriptor));
    if (opened.ino !== named.ino || opened.dev !== named.dev)
      throw new UsageError(`The ${options.what} ${file} was replaced while it was being opened.`, {
        hint: 'Run the command again once nothing else is writing it.',
      });
    return readAtMost(descriptor, file, options, opened.size);
  } finally {
    closeSync(descriptor);
  }
}

function checkedStatus(file: string, options: UserFileOptions, status: () => Stats): Stats {
  const stats = accessed(file, options, status);
  if (stats.isDirectory()) throw isDirectory(file, options);
  if (!stats.isFile())
    throw new UsageError(`The ${options.what} ${file} is ${describeFileKind(stats)}, not a regular file.`, {
      hint: 'Give the path of a regular file; devices, pipes and sockets are not read.',
    });
  if (stats.size > options.maxBytes) throw tooLarge(file, options, stats.size);
  return stats;
}

/**
 * Reads to the end (one read for a file that kept its size: a short read is a regular file's
 * end), refusing a file that grew past the limit since it was checked.
 */
function readAtMost(descriptor: number, file: string, options: UserFileOptions, size: number): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const chunk = Buffer.allocUnsafe(Math.min(options.maxBytes + 1 - total, total === 0 ? size + 1 : MiB));
    const read = accessed(file, options, () => readSync(descriptor, chunk, 0, chunk.length, null));
    chunks.push(chunk.subarray(0, read));
    total += read;
    if (total > options.maxBytes) throw tooLarge(file, options, total);
    if (read < chunk.length) return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, total);
  }
}

function isDirectory(file: string, options: UserFileOptions, cause?: unknown): UsageError {
  return new UsageError(`The ${options.what} ${file} is a directory, not a file.`, {
    hint: 'Give the path of a file.',
    ...(cause === undefined ? {} : { cause }),
  });
}

function tooLarge(file: string, options: UserFileOptions, size: number): UsageError {
  // Sizes close enough to read the same in MB are given in bytes.
  const [shown, limit] =
    formatBytes(size) === formatBytes(options.maxBytes)
      ? [`${size} bytes`, `${options.maxBytes} bytes`]
      : [formatBytes(size), formatBytes(options.maxBytes)];
  return new UsageError(`The ${options.what} ${file} is ${shown}, more than the ${limit} a ${options.what} may be.`, {
    hint: 'Check that this is the file you meant.',
  });
}

/** Runs one file system call, turning the operating system's refusals into typed errors. */
function accessed<T>(file: string, options: UserFileOptions, call: () => T): T {
  try {
    return call();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENAMETOOLONG')
      throw new UsageError(`The name of the ${options.what} is too long: ${shortened(file)}`, {
        hint: 'Each part of a path may be at most 255 bytes.',
        cause: error,
      });
    if (code === 'ENOTDIR' || code === 'ELOOP')
      throw new UsageError(
        `The ${options.what} ${file} cannot be reached: ${code === 'ELOOP' ? 'its symbolic links loop' : 'a part of its path is not a directory'}.`,
        { hint: 'Check the path.', cause: error },
      );
    if (code === 'EISDIR') throw isDirectory(file, options, error);
    throw fileAccessError(error, file, 'read') ?? error;
  }
}

/** What a file that is not a regular one is, in words: `a named pipe (FIFO)`, `a character device`. */
export function describeFileKind(stats: Stats): string {
  if (stats.isFile()) return 'a regular file';
  if (stats.isDirectory()) return 'a directory';
  if (stats.isSymbolicLink()) return 'a symbolic link';
  if (stats.isFIFO()) return 'a named pipe (FIFO)';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  return 'a special file';
}

function shortened(file: string): string {
  return file.length > 120 ? `${file.slice(0, 60)}…${file.slice(-40)}` : file;
}
