// `@resume/storage-fs`: the embedded file store (docs/architecture.md#the-store-contract).

export { createProcessProbe, type ProcessProbe } from '@resume/core/spec';
export type { FileStatus, FileSystem, WritableFile } from './file-system/file-system.js';
export { createNodeFileSystem } from './file-system/file-system.js';
export { createFsStore, type FsStore, type FsStoreOptions } from './fs-store.js';
export type { EncryptReport } from './repair/session-encryption.js';
export { type HomeUsage, type MeasureHomeOptions, measureHome, type SessionUsage } from './usage/home-usage.js';
