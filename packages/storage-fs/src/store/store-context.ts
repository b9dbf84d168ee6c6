// What every part of the file store shares: the paths, the guarded file system, the
// clock, the lease context and the per-session queue that keeps appends, repairs and
// archiving of one session one at a time in this process.
import { randomBytes } from 'node:crypto';
import type { Keyring } from '@resume/core/encryption';
import type { FileSystem } from '../file-system/file-system.js';
import type { GuardedFileSystem } from '../file-system/guarded-file-system.js';
import type { LeaseFilesContext } from '../lease/lease-files.js';
import type { StoreQuota } from '../usage/store-quota.js';
import type { StorePaths } from './store-paths.js';

export interface StoreContext {
  paths: StorePaths;
  files: GuardedFileSystem;
  /** Reads and non-durable operations (links read as absent, a full disk typed). */
  plain: FileSystem;
  /** Writes whose failed fsync ends writing in this instance. */
  durable: FileSystem;
  now: () => Date;
  lease: LeaseFilesContext;
  /** Runs `work` after every earlier piece of work on the same session. */
  exclusive<T>(sessionId: string, work: () => Promise<T>): Promise<T>;
  /** The keys that seal and open session data (null: the store reads and writes in the clear). */
  keyring: Keyring | null;
  /** A fresh name for bytes kept aside beside `name` (`journal.jsonl.torn-2026-...`). */
  asideName(name: string, reason: string): string;
  /** The space limits (null: none set, nothing measured). */
  quota: StoreQuota | null;
}

export function sessionQueue(): <T>(sessionId: string, work: () => Promise<T>) => Promise<T> {
  const queues = new Map<string, Promise<unknown>>();
  return <T>(id: string, work: () => Promise<T>): Promise<T> => {
    const previous = queues.get(id) ?? Promise.resolve();
    const result = previous.then(work, work);
    const settled = result.catch(() => {});
    queues.set(id, settled);
    void settled.then(() => {
      if (queues.get(id) === settled) queues.delete(id);
    });
    return result;
  };
}

export function asideNamer(now: () => Date): (name: string, reason: string) => string {
  return (name, reason) =>
    `${name}.${reason}-${now().toISOString().replace(/[:.]/g, '-')}-${randomBytes(3).toString('hex')}`;
}
