// An in-memory file system that remembers what was made durable, so a test can pull
// the plug at any moment. It implements the file store's file-operations interface.
//
// The model of the disk (what a power loss may leave, modelled on Linux/ext4 with
// ordered metadata):
// - file data is durable once `datasync` returned (the node implementation's
//   `truncate` syncs too); unsynced writes survive as any subset of their
//   sectors (512 B or 4 KiB, aligned to the file offset), the holes reading as
//   zeros when a later sector survived: torn writes;
// - a directory's entries (created, renamed, linked, removed files, new
//   subdirectories) are durable once `syncDirectory` returned on it; unsynced
//   entry changes survive as a prefix of the order they were made in;
// - a file or directory whose entry did not survive is gone, with everything in it.
import path from 'node:path';
import type { FileStatus, FileSystem, WritableFile } from '@resume/storage-fs';

interface FileNode {
  kind: 'file';
  data: Buffer;
  durable: Buffer;
  pending: { offset: number; bytes: Buffer }[];
}

interface DirectoryNode {
  kind: 'directory';
  entries: Map<string, Node>;
  durableEntries: Map<string, Node>;
  /** Entry changes since the last sync, oldest first (null removes the entry). */
  log: { name: string; node: Node | null }[];
}

type Node = FileNode | DirectoryNode;

/** Thrown by every operation once the simulated power went out. */
export class PowerLossError extends Error {
  readonly code = 'EIO';
  constructor() {
    super('simulated power loss: the file system is gone');
    this.name = 'PowerLossError';
  }
}

function fileSystemError(code: string, operation: string, target: string): Error {
  return Object.assign(new Error(`${code}: ${operation} '${target}'`), { code });
}

const newFile = (): FileNode => ({ kind: 'file', data: Buffer.alloc(0), durable: Buffer.alloc(0), pending: [] });
const newDirectory = (): DirectoryNode => ({
  kind: 'directory',
  entries: new Map(),
  durableEntries: new Map(),
  log: [],
});

export interface CrashOptions {
  /**
   * Returns a number in [0, 1): decides which unsynced changes survive (higher keeps
   * more: a sector survives at >= 0.5, a directory keeps that share of its changes).
   */
  random: () => number;
  /** Granularity of torn writes (default 512). */
  sectorSize?: number;
}

export interface CrashStatistics {
  /** Unsynced sectors that survived / were lost. */
  sectorsKept: number;
  sectorsLost: number;
  /** Unsynced directory entry changes that survived / were lost. */
  entryChangesKept: number;
  entryChangesLost: number;
}

export class SimulatedFileSystem implements FileSystem {
  #root: DirectoryNode;
  #operations = 0;
  #failAt = Number.POSITIVE_INFINITY;
  #dead = false;
  #fullAt = Number.POSITIVE_INFINITY;
  #spaceWrites = 0;
  lastCrash: CrashStatistics | null = null;

  constructor(root: DirectoryNode = newDirectory()) {
    this.#root = root;
  }

  /** Mutating operations performed so far. */
  get operations(): number {
    return this.#operations;
  }

  get isDead(): boolean {
    return this.#dead;
  }

  /** The power goes out when the `count`-th mutating operation from now starts: it and every later operation fail. */
  failAfter(count: number): void {
    this.#failAt = this.#operations + count;
  }

  /**
   * The disk fills up: from the `count`-th space-taking operation on (a write, a new
   * file, a new directory or link), each fails with ENOSPC and takes nothing, until
   * `makeRoom`. Everything else (reads, syncs, renames, removals) goes on working.
   */
  fillAfter(count: number): void {
    this.#fullAt = this.#spaceWrites + count;
  }

  makeRoom(): void {
    this.#fullAt = Number.POSITIVE_INFINITY;
  }

  get isFull(): boolean {
    return this.#spaceWrites + 1 >= this.#fullAt;
  }

  /** Space-taking operations performed (or refused) so far. */
  get spaceWrites(): number {
    return this.#spaceWrites;
  }

  /** An independent copy of everything as it is now (all of it durable in the copy). */
  clone(): SimulatedFileSystem {
    const copies = new Map<Node, Node>();
    const copy = (node: Node): Node => {
      const existing = copies.get(node);
      if (existing) return existing;
      if (node.kind === 'file') {
        const file: FileNode = {
          kind: 'file',
          data: Buffer.from(node.data),
          durable: Buffer.from(node.data),
          pending: [],
        };
        copies.set(node, file);
        return file;
      }
      const directory = newDirectory();
      copies.set(node, directory);
      for (const [name, child] of node.entries) directory.entries.set(name, copy(child));
      directory.durableEntries = new Map(directory.entries);
      return directory;
    };
    return new SimulatedFileSystem(copy(this.#root) as DirectoryNode);
  }

  /** Makes everything durable, as a clean shutdown would (a baseline before a test starts). */
  syncEverything(): void {
    const walk = (directory: DirectoryNode) => {
      directory.durableEntries = new Map(directory.entries);
      directory.log = [];
      for (const node of directory.entries.values()) {
        if (node.kind === 'directory') walk(node);
        else {
          node.durable = Buffer.from(node.data);
          node.pending = [];
        }
      }
    };
    walk(this.#root);
  }

  /** Cuts the power now. */
  powerOff(): void {
    this.#dead = true;
  }

  /**
   * What the disk holds after the power came back: the durable state plus a random
   * choice of the unsynced changes. This file system is dead from now on.
   */
  crash(options: CrashOptions): SimulatedFileSystem {
    this.#dead = true;
    const sectorSize = options.sectorSize ?? 512;
    const statistics: CrashStatistics = { sectorsKept: 0, sectorsLost: 0, entryChangesKept: 0, entryChangesLost: 0 };
    const copies = new Map<Node, Node>();
    const survive = (node: Node): Node => {
      const existing = copies.get(node);
      if (existing) return existing;
      if (node.kind === 'file') {
        let data = Buffer.from(node.durable);
        for (const write of node.pending) {
          const end = write.offset + write.bytes.length;
          let start = write.offset;
          while (start < end) {
            const sectorEnd = Math.min(end, (Math.floor(start / sectorSize) + 1) * sectorSize);
            if (options.random() >= 0.5) {
              statistics.sectorsKept += 1;
              if (data.length < sectorEnd) data = Buffer.concat([data, Buffer.alloc(sectorEnd - data.length)]);
              write.bytes.copy(data, start, start - write.offset, sectorEnd - write.offset);
            } else {
              statistics.sectorsLost += 1;
            }
            start = sectorEnd;
          }
        }
        const file: FileNode = { kind: 'file', data, durable: Buffer.from(data), pending: [] };
        copies.set(node, file);
        return file;
      }
      const directory = newDirectory();
      copies.set(node, directory);
      const entries = new Map(node.durableEntries);
      const kept = node.log.length === 0 ? 0 : Math.floor(options.random() * (node.log.length + 1));
      statistics.entryChangesKept += kept;
      statistics.entryChangesLost += node.log.length - kept;
      for (const change of node.log.slice(0, kept)) {
        if (change.node) entries.set(change.name, change.node);
        else entries.delete(change.name);
      }
      for (const [name, child] of entries) directory.entries.set(name, survive(child));
      directory.durableEntries = new Map(directory.entries);
      return directory;
    };
    const root = survive(this.#root) as DirectoryNode;
    const next = new SimulatedFileSystem(root);
    next.lastCrash = statistics;
    return next;
  }

  /**
   * The file operations as a plain object (the store spreads and wraps the one it is
   * given, which would drop the methods of a class instance).
   */
  operationsView(): FileSystem {
    return {
      openAppend: (target) => this.openAppend(target),
      createExclusive: (target) => this.createExclusive(target),
      readFile: (target) => this.readFile(target),
      readRange: (target, position, length) => this.readRange(target, position, length),
      status: (target) => this.status(target),
      readDirectory: (target) => this.readDirectory(target),
      makeDirectory: (target) => this.makeDirectory(target),
      rename: (from, to) => this.rename(from, to),
      link: (from, to) => this.link(from, to),
      remove: (target) => this.remove(target),
      removeTree: (target) => this.removeTree(target),
      truncate: (target, length) => this.truncate(target, length),
      syncDirectory: (target) => this.syncDirectory(target),
      freeSpace: () => (this.isFull ? 0 : 1 << 30),
    };
  }

  /** Every file's current bytes, by path (for scanning the whole store). */
  allFiles(): Map<string, Buffer> {
    const files = new Map<string, Buffer>();
    const walk = (directory: DirectoryNode, prefix: string) => {
      for (const [name, node] of directory.entries) {
        const full = `${prefix}/${name}`;
        if (node.kind === 'file') files.set(full, node.data);
        else walk(node, full);
      }
    };
    walk(this.#root, '');
    return files;
  }

  /** Writes a file durably in one go (test setup: planting damaged or hostile files). */
  plantFile(target: string, content: Uint8Array): void {
    const { parent, name } = this.#parentOf(target, 'plant');
    const file = newFile();
    file.data = Buffer.from(content);
    file.durable = Buffer.from(content);
    parent.entries.set(name, file);
    parent.durableEntries.set(name, file);
  }

  #check(): void {
    if (this.#dead) throw new PowerLossError();
  }

  /** Counts an operation that takes space; refuses it once the disk is full. */
  #takeSpace(operation: string, target: string): void {
    this.#spaceWrites += 1;
    if (this.#spaceWrites >= this.#fullAt) throw fileSystemError('ENOSPC', operation, target);
  }

  #mutate(): void {
    this.#check();
    this.#operations += 1;
    if (this.#operations >= this.#failAt) {
      this.#dead = true;
      throw new PowerLossError();
    }
  }

  #lookup(target: string): Node | null {
    const parts = path.posix.resolve(target).split('/').filter(Boolean);
    let node: Node = this.#root;
    for (const part of parts) {
      if (node.kind !== 'directory') return null;
      const child = node.entries.get(part);
      if (!child) return null;
      node = child;
    }
    return node;
  }

  #parentOf(target: string, operation: string): { parent: DirectoryNode; name: string } {
    const resolved = path.posix.resolve(target);
    const parent = this.#lookup(path.posix.dirname(resolved));
    if (!parent) throw fileSystemError('ENOENT', operation, target);
    if (parent.kind !== 'directory') throw fileSystemError('ENOTDIR', operation, target);
    return { parent, name: path.posix.basename(resolved) };
  }

  #file(target: string, operation: string): FileNode {
    const node = this.#lookup(target);
    if (!node) throw fileSystemError('ENOENT', operation, target);
    if (node.kind !== 'file') throw fileSystemError('EISDIR', operation, target);
    return node;
  }

  #setEntry(parent: DirectoryNode, name: string, node: Node | null): void {
    if (node) parent.entries.set(name, node);
    else parent.entries.delete(name);
    parent.log.push({ name, node });
  }

  #handle(file: FileNode, append: boolean): WritableFile {
    let position = 0;
    let closed = false;
    const usable = () => {
      this.#check();
      if (closed) throw fileSystemError('EBADF', 'write', 'closed file');
    };
    return {
      write: async (data) => {
        usable();
        this.#takeSpace('write', 'file');
        const offset = append ? file.data.length : position;
        const bytes = Buffer.from(data);
        const apply = () => {
          const end = offset + bytes.length;
          if (file.data.length < end) file.data = Buffer.concat([file.data, Buffer.alloc(end - file.data.length)]);
          bytes.copy(file.data, offset);
          file.pending.push({ offset, bytes });
          position = end;
        };
        try {
          this.#mutate();
        } catch (error) {
          // The power went out during the write: any part of it may have reached the disk.
          apply();
          throw error;
        }
        apply();
      },
      datasync: async () => {
        usable();
        this.#mutate();
        file.durable = Buffer.from(file.data);
        file.pending = [];
      },
      size: async () => {
        usable();
        return file.data.length;
      },
      close: async () => {
        closed = true;
      },
    };
  }

  async openAppend(target: string): Promise<WritableFile> {
    this.#check();
    return this.#handle(this.#file(target, 'open'), true);
  }

  async createExclusive(target: string): Promise<WritableFile> {
    this.#mutate();
    this.#takeSpace('open', target);
    const { parent, name } = this.#parentOf(target, 'open');
    if (parent.entries.has(name)) throw fileSystemError('EEXIST', 'open', target);
    const file = newFile();
    this.#setEntry(parent, name, file);
    return this.#handle(file, false);
  }

  async readFile(target: string): Promise<Buffer> {
    this.#check();
    return Buffer.from(this.#file(target, 'open').data);
  }

  async readRange(target: string, position: number, length: number): Promise<Buffer> {
    this.#check();
    const data = this.#file(target, 'open').data;
    return Buffer.from(data.subarray(position, position + length));
  }

  async status(target: string): Promise<FileStatus | null> {
    this.#check();
    const node = this.#lookup(target);
    if (!node) return null;
    return {
      size: node.kind === 'file' ? node.data.length : 4096,
      isFile: node.kind === 'file',
      isDirectory: node.kind === 'directory',
      isSymbolicLink: false,
    };
  }

  async readDirectory(target: string): Promise<string[]> {
    this.#check();
    const node = this.#lookup(target);
    if (!node) throw fileSystemError('ENOENT', 'scandir', target);
    if (node.kind !== 'directory') throw fileSystemError('ENOTDIR', 'scandir', target);
    return [...node.entries.keys()].sort();
  }

  async makeDirectory(target: string): Promise<void> {
    this.#mutate();
    const { parent, name } = this.#parentOf(target, 'mkdir');
    if (parent.entries.has(name)) throw fileSystemError('EEXIST', 'mkdir', target);
    this.#takeSpace('mkdir', target);
    this.#setEntry(parent, name, newDirectory());
  }

  async rename(from: string, to: string): Promise<void> {
    this.#mutate();
    const source = this.#parentOf(from, 'rename');
    const node = source.parent.entries.get(source.name);
    if (!node) throw fileSystemError('ENOENT', 'rename', from);
    const destination = this.#parentOf(to, 'rename');
    const replaced = destination.parent.entries.get(destination.name);
    if (replaced && replaced.kind !== node.kind) throw fileSystemError('EISDIR', 'rename', to);
    if (replaced?.kind === 'directory' && replaced.entries.size > 0) throw fileSystemError('ENOTEMPTY', 'rename', to);
    this.#setEntry(source.parent, source.name, null);
    this.#setEntry(destination.parent, destination.name, node);
  }

  async link(from: string, to: string): Promise<void> {
    this.#mutate();
    this.#takeSpace('link', to);
    const node = this.#file(from, 'link');
    const destination = this.#parentOf(to, 'link');
    if (destination.parent.entries.has(destination.name)) throw fileSystemError('EEXIST', 'link', to);
    this.#setEntry(destination.parent, destination.name, node);
  }

  async remove(target: string): Promise<void> {
    this.#mutate();
    const { parent, name } = this.#parentOf(target, 'unlink');
    const node = parent.entries.get(name);
    if (!node) throw fileSystemError('ENOENT', 'unlink', target);
    if (node.kind === 'directory') throw fileSystemError('EISDIR', 'unlink', target);
    this.#setEntry(parent, name, null);
  }

  async removeTree(target: string): Promise<void> {
    this.#mutate();
    const resolved = path.posix.resolve(target);
    const parent = this.#lookup(path.posix.dirname(resolved));
    if (parent?.kind !== 'directory') return;
    const name = path.posix.basename(resolved);
    if (parent.entries.has(name)) this.#setEntry(parent, name, null);
  }

  async truncate(target: string, length: number): Promise<void> {
    this.#mutate();
    const file = this.#file(target, 'open');
    const data = Buffer.alloc(length);
    file.data.copy(data, 0, 0, Math.min(length, file.data.length));
    file.data = data;
    file.durable = Buffer.from(data);
    file.pending = [];
  }

  async syncDirectory(target: string): Promise<void> {
    this.#mutate();
    const node = this.#lookup(target);
    if (!node) throw fileSystemError('ENOENT', 'open', target);
    if (node.kind !== 'directory') throw fileSystemError('ENOTDIR', 'open', target);
    node.durableEntries = new Map(node.entries);
    node.log = [];
  }
}
