// Content-addressed blobs (file snapshots, large tool outputs): `blobs/ab/cdef...`, named
// by the sha256 of their content, written atomically, checked against the name on read.
// With a current key a blob is sealed (docs/encryption.md#formats): named by an HMAC of its
// content under the key (a plain hash would let anyone confirm a guess of the content), and
// stored as a framed line naming the key, then the sealed bytes, bound to that name.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { blobName, blobPlace, openBytes, sealBytes } from '@resume/core/encryption';
import { JournalCorruptedError } from '@resume/core/spec';
import { writeFileAtomically } from '../file-system/atomic-write.js';
import { errorCode } from '../file-system/file-system.js';
import { FRAME_PREFIX_LENGTH, frameObject, unframe } from '../journal/framing.js';
import { type Layout, makeDirectory } from '../store/layout.js';
import type { StoreContext } from '../store/store-context.js';

const blobHashPattern = /^[0-9a-f]{64}$/;

/** The key a sealed blob's first line names, or null when the file is not a sealed blob. */
function sealedBlobKey(content: Buffer): { key: string; bodyStart: number } | null {
  const newline = content.indexOf(0x0a, FRAME_PREFIX_LENGTH);
  if (newline === -1 || !content.subarray(0, newline).includes('"sealedBlob"')) return null;
  const framed = unframe(content.subarray(0, newline));
  const sealed = framed.ok ? (framed.value as { sealedBlob?: { key?: unknown } }).sealedBlob : undefined;
  return typeof sealed?.key === 'string' ? { key: sealed.key, bodyStart: newline + 1 } : null;
}

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
      const key = context.keyring?.current() ?? null;
      const hash = blobName(key, content);
      const target = blobPath(hash);
      const directory = path.dirname(target);
      const created = await makeDirectory(plain, directory);
      // A blob folder replaced by a symlink would take the write out of the store.
      await layout.requireDirectory(directory);
      if ((await plain.status(target))?.isFile) {
        // Put again: renewed, so a deletion looking for the blob's last reference keeps it.
        await plain.touch?.(target).catch(() => {});
        if ((await plain.status(target))?.isFile) return hash;
      }
      const stored = key
        ? Buffer.concat([frameObject({ sealedBlob: { key: key.id } }), sealBytes(key, blobPlace(hash), content)])
        : content;
      context.quota?.admit(null, stored.length);
      await writeFileAtomically(durable, target, stored);
      context.quota?.written(null, stored.length);
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
      if (createHash('sha256').update(content).digest('hex') === hash) {
        return new Uint8Array(content.buffer, content.byteOffset, content.byteLength);
      }
      const sealed = sealedBlobKey(content);
      const opened = sealed
        ? openBytes(context.keyring, blobPlace(hash), sealed.key, content.subarray(sealed.bodyStart), blobPath(hash))
        : null;
      if (!opened?.ok) {
        throw new JournalCorruptedError({
          sessionId: null,
          file: blobPath(hash),
          offset: null,
          problem: opened ? opened.problem : 'the blob content does not match its hash',
        });
      }
      return new Uint8Array(opened.plaintext.buffer, opened.plaintext.byteOffset, opened.plaintext.byteLength);
    },
  };
}
