// Content-addressed blobs (file snapshots, large tool outputs): `blobs/ab/cdef...`, named
// by the sha256 of their content, written atomically, checked against the name on read.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { JournalCorruptedError } from '@resume/core/spec';
import { writeFileAtomically } from '../file-system/atomic-write.js';
import { errorCode } from '../file-system/file-system.js';
import { type Layout, makeDirectory } from '../store/layout.js';
import type { StoreContext } from '../store/store-context.js';

const blobHashPattern = /^[0-9a-f]{64}$/;

export interface BlobStore {
  put(content: Uint8Array): Promise<string>;
  get(hash: string): Promise<Uint8Array | null>;
}

export function createBlobStore(context: StoreContext, layout: Layout): BlobStore {
  const { paths, plain, durable } = context;
  const blobPath = (hash: string) => path.join(paths.blobs, hash.slice(0, 2), hash.slice(2));

  return {
    async put(content) {
      context.files.refuseIfBroken();
      await layout.ensure();
      const hash = createHash('sha256').update(content).digest('hex');
      const target = blobPath(hash);
      const directory = path.dirname(target);
      const created = await makeDirectory(plain, directory);
      // A blob folder replaced by a symlink would take the write out of the store.
      await layout.requireDirectory(directory);
      if ((await plain.status(target))?.isFile) return hash;
      await writeFileAtomically(durable, target, content);
      if (created) await durable.syncDirectory(paths.blobs);
      return hash;
    },

    async get(hash) {
      if (!blobHashPattern.test(hash)) return null;
      await layout.ensure();
      // Only the file itself is opened without following links: the folder is checked here.
      if (!(await plain.status(path.dirname(blobPath(hash))))?.isDirectory) return null;
      let content: Buffer;
      try {
        content = await plain.readFile(blobPath(hash));
      } catch (error) {
        if (errorCode(error) === 'ENOENT') return null;
        throw error;
      }
      if (createHash('sha256').update(content).digest('hex') !== hash) {
        throw new JournalCorruptedError({
          sessionId: null,
          file: blobPath(hash),
          offset: null,
          problem: 'the blob content does not match its hash',
        });
      }
      return new Uint8Array(content.buffer, content.byteOffset, content.byteLength);
    },
  };
}
