// The few file operations the store performs, behind one small interface so a
// simulated file system (one that loses unsynced data on "power loss") can be
// plugged in for crash tests. The Node implementation never follows symlinks for
// the files it opens (O_NOFOLLOW) and creates everything private (0700 / 0600).
import {
  accessSync,
  closeSync,
  constants,
  promises as fs,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  type Stats,
  statfsSync,
  writeSync,
} from 'node:fs';

export const DIRECTORY_MODE = 0o700;
export const FILE_MODE = 0o600;

export interface WritableFile {
  /** Writes the whole buffer (looping over short writes). */
  write(data: Uint8Array): Promise<void>;
  /** Makes written data durable (fdatasync). */
  datasync(): Promise<void>;
  size(): Promise<number>;
  close(): Promise<void>;
  /**
   * True when every `write` is durable once it resolves (opened O_DSYNC), so no separate
   * `datasync` is needed: one system call per append instead of two.
   */
  readonly durableWrites?: boolean;
  /** The current size without a round trip through the thread pool (optional). */
  sizeNow?(): number;
  /**
   * Writes the whole buffer synchronously, without a round trip through the thread pool
   * (optional). Durable on return when `durableWrites` is set.
   */
  writeNow?(data: Uint8Array): void;
}

export interface FileStatus {
  size: number;
  isFile: boolean;
  isDirectory: boolean;
  isSymbolicLink: boolean;
  /** When the file's content or metadata last changed (ctime, ms), where the file system tells. */
  changedMs?: number;
  /** When the file's content (a directory's entries) last changed (mtime, ms), where the file system tells. */
  modifiedMs?: number;
  /** False when this process may not read the file (its mode or owner refuses it), where the file system tells. */
  readable?: boolean;
}

export interface FileSystem {
  /** Opens an existing file for appending; fails on a symlink. */
  openAppend(path: string): Promise<WritableFile>;
  /** Creates a new file (fails if it exists, or is a symlink). */
  createExclusive(path: string): Promise<WritableFile>;
  readFile(path: string): Promise<Buffer>;
  /** Reads `length` bytes at `position` (fewer at the end of the file). */
  readRange(path: string, position: number, length: number): Promise<Buffer>;
  /** Status of the path itself (symlinks are not followed); null when it does not exist. */
  status(path: string): Promise<FileStatus | null>;
  /** The entries of a small directory (a session's lease folder). */
  readDirectory(path: string): Promise<string[]>;
  /** The names of the entries that are real directories (not symlinks), from the listing's own entry types. */
  readSubdirectories?(path: string): Promise<string[]>;
  makeDirectory(path: string): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  /** Creates `to` as a hard link of `from`; fails with EEXIST when `to` exists (an atomic create-if-absent). */
  link(from: string, to: string): Promise<void>;
  remove(path: string): Promise<void>;
  removeTree(path: string): Promise<void>;
  truncate(path: string, length: number): Promise<void>;
  /** Sets a file's modification time to now, a symlink itself and not its target (optional). */
  touch?(path: string): Promise<void>;
  /** Makes a directory's entries (created, renamed, removed files) durable. */
  syncDirectory(path: string): Promise<void>;
  /** Whether a path exists (symlinks not followed), answered at once: for cheap checks on the append path (optional). */
  existsNow?(path: string): boolean;
  /**
   * `status` answered at once: listing locates every session, and 2,000 lstats through the
   * thread pool cost several times what they cost done directly (optional).
   */
  statusNow?(path: string): FileStatus | null;
  /** Bytes available to this user on the file system holding `path`, null when unknown (optional; asked only after a write failed). */
  freeSpace?(path: string): number | null;
}

/** The error code of a failed file operation (`ENOENT`, `EEXIST`...), if it has one. */
export function errorCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string') {
    return error.code;
  }
  return undefined;
}

const noFollow = constants.O_NOFOLLOW ?? 0;

/**
 * Reads of at most this many bytes are made on the calling thread (decision 0018). A read
 * through libuv's thread pool is a round trip per call (open, stat, read, close: four for a
 * small file), each dearer than the whole read of a small file from the page cache; larger
 * reads still go through the pool, so a long journal or snapshot never holds up the event loop.
 */
export const DIRECT_READ_LIMIT = 1024 * 1024;

/** Reads up to `length` bytes at `position` into `buffer` at `offset`; the bytes read (0 at the end of the file). */
type ReadAt = (buffer: Buffer, offset: number, length: number, position: number) => number | Promise<number>;

/** Reads at `position` into `buffer` from `from` until it is full or the file ends; the bytes filled. */
async function fill(readAt: ReadAt, buffer: Buffer, position: number, from = 0): Promise<number> {
  let filled = from;
  while (filled < buffer.length) {
    const bytesRead = await readAt(buffer, filled, buffer.length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return filled;
}

/**
 * Opens `path` for reading and hands `work` a reader and the file's size: a direct one when
 * `direct(size)`, else one through the thread pool. The pool's reader is a file handle's: its
 * requests let go of the buffer as they complete (a callback `read` on the descriptor keeps it
 * until a later collection: the crc check's read of a long journal stayed counted as retained).
 */
async function reading<T>(
  path: string,
  direct: (size: number) => boolean,
  work: (readAt: ReadAt, size: number) => Promise<T>,
): Promise<T> {
  const flags = constants.O_RDONLY | noFollow;
  const fd = openSync(path, flags);
  let size: number;
  try {
    size = fstatSync(fd).size;
    if (direct(size))
      return await work((buffer, offset, length, position) => readSync(fd, buffer, offset, length, position), size);
  } finally {
    closeSync(fd);
  }
  // The size just taken serves the pooled reader too: a file that grew or shrank since is read
  // to its end all the same (`fill` stops at the end, `readFile` grows its buffer).
  const handle = await fs.open(path, flags);
  try {
    const readAt: ReadAt = async (buffer, offset, length, position) =>
      (await handle.read(buffer, offset, length, position)).bytesRead;
    return await work(readAt, size);
  } finally {
    await handle.close();
  }
}

function toStatus(stats: Stats): FileStatus {
  return {
    size: stats.size,
    isFile: stats.isFile(),
    isDirectory: stats.isDirectory(),
    isSymbolicLink: stats.isSymbolicLink(),
    changedMs: stats.ctimeMs,
    modifiedMs: stats.mtimeMs,
  };
}

function statusNow(path: string): FileStatus | null {
  const stats = lstatSync(path, { throwIfNoEntry: false });
  if (!stats) return null;
  const status = toStatus(stats);
  return stats.isFile() && !mayRead(path, stats) ? { ...status, readable: false } : status;
}

/**
 * Whether this process may read a file: its mode bits answer at no cost in the usual case, and
 * only a file they refuse is asked about (an access check, which also weighs ACLs and root).
 */
function mayRead(path: string, stats: Stats): boolean {
  const uid = process.getuid?.();
  if (uid === undefined || uid === 0) return true;
  const bit = stats.uid === uid ? 0o400 : (process.getgroups?.() ?? []).includes(stats.gid) ? 0o040 : 0o004;
  if ((stats.mode & bit) !== 0) return true;
  try {
    accessSync(path, constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

function wrap(handle: fs.FileHandle, durableWrites = false): WritableFile {
  return {
    durableWrites,
    sizeNow: () => fstatSync(handle.fd).size,
    writeNow(data) {
      let offset = 0;
      while (offset < data.length) offset += writeSync(handle.fd, data, offset, data.length - offset);
    },
    async write(data) {
      let offset = 0;
      while (offset < data.length) {
        const { bytesWritten } = await handle.write(data, offset, data.length - offset);
        offset += bytesWritten;
      }
    },
    datasync: () => handle.datasync(),
    size: async () => (await handle.stat()).size,
    close: () => handle.close(),
  };
}

export function createNodeFileSystem(): FileSystem {
  return {
    async openAppend(path) {
      // Journals are appended to and synced at once: O_DSYNC makes each write durable by itself.
      return wrap(await fs.open(path, constants.O_WRONLY | constants.O_APPEND | constants.O_DSYNC | noFollow), true);
    },
    async createExclusive(path) {
      const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | noFollow;
      return wrap(await fs.open(path, flags, FILE_MODE));
    },
    readFile: (path) =>
      reading(
        path,
        (size) => size <= DIRECT_READ_LIMIT,
        async (readAt, size) => {
          // One read of the size the file has (not 512 KB chunks, a round trip each through the
          // pool), then larger reads only if it grew meanwhile.
          let buffer = Buffer.allocUnsafe(size + 1);
          let filled = 0;
          for (;;) {
            filled = await fill(readAt, buffer, 0, filled);
            if (filled < buffer.length) return buffer.subarray(0, filled);
            const grown = Buffer.allocUnsafe(buffer.length * 2 + 64 * 1024);
            buffer.copy(grown, 0, 0, filled);
            buffer = grown;
          }
        },
      ),
    readRange: (path, position, length) =>
      reading(
        path,
        () => length <= DIRECT_READ_LIMIT,
        async (readAt) => {
          const buffer = Buffer.alloc(length);
          return buffer.subarray(0, await fill(readAt, buffer, position));
        },
      ),
    // A status call reads metadata only: made directly, like the small reads.
    status: async (path) => statusNow(path),
    statusNow,
    readDirectory: async (path) => readdirSync(path),
    freeSpace(path) {
      try {
        const stats = statfsSync(path);
        return stats.bavail * stats.bsize;
      } catch {
        return null;
      }
    },
    // Entry types come with the listing (no status call per entry where the file system reports them).
    readSubdirectories: async (path) =>
      (await fs.readdir(path, { withFileTypes: true }))
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name),
    existsNow(path) {
      // No exception for an absent path: fencing asks for one on every append, and building
      // the ENOENT error (its message and stack) cost more than the status call itself.
      // Other failures (EACCES...) still throw.
      return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
    },
    async makeDirectory(path) {
      mkdirSync(path, { mode: DIRECTORY_MODE });
    },
    rename: (from, to) => fs.rename(from, to),
    link: (from, to) => fs.link(from, to),
    remove: (path) => fs.unlink(path),
    removeTree: (path) => fs.rm(path, { recursive: true, force: true }),
    async truncate(path, length) {
      const handle = await fs.open(path, constants.O_WRONLY | noFollow);
      try {
        await handle.truncate(length);
        await handle.datasync();
      } finally {
        await handle.close();
      }
    },
    async touch(path) {
      const now = new Date();
      await fs.lutimes(path, now, now);
    },
    async syncDirectory(path) {
      const handle = await fs.open(path, constants.O_RDONLY | constants.O_DIRECTORY);
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
    },
  };
}
