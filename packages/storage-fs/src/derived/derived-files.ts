// Derived data of a session (`putDerived` / `getDerived`): one file per name in the session's
// `derived/` folder, written by rename, so a reader sees the old bytes or the new ones. The file
// is a framed line, then the bytes:
//   {"crc":"…","derived":{"bytes":N,"crc":…}}\n<N bytes>            in the clear
//   {"crc":"…","derived":{"bytes":N,"key":"3f2a9c0d11e4"}}\n<N sealed bytes>   under a key
// A file that is cut, garbled or fails its tag reads as none: whoever derived it rebuilds it
// from the journal. An operation that rewrites the journal removes the folder (`forget`).
import { crc32 } from 'node:zlib';
import { type DataKey, derivedPlace, openBytes, sealBytes } from '@resume/core/encryption';
import { checkDerivedName } from '@resume/core/spec';
import { writeFileAtomically } from '../file-system/atomic-write.js';
import { errorCode } from '../file-system/file-system.js';
import { FRAME_PREFIX_LENGTH, frameObject, unframe } from '../journal/framing.js';
import { type Layout, makeDirectory } from '../store/layout.js';
import type { StoreContext } from '../store/store-context.js';

const DERIVED = 'derived';

export interface DerivedFiles {
  put(sessionId: string, name: string, bytes: Uint8Array): Promise<void>;
  get(sessionId: string, name: string): Promise<Uint8Array | null>;
  /** Removes every derived file of the session (the journal was rewritten). */
  forget(sessionId: string): Promise<void>;
}

function encodeDerived(sessionId: string, name: string, bytes: Uint8Array, key: DataKey | null): Buffer {
  if (!key) return Buffer.concat([frameObject({ derived: { bytes: bytes.length, crc: crc32(bytes) } }), bytes]);
  const sealed = sealBytes(key, derivedPlace(sessionId, name), bytes);
  return Buffer.concat([frameObject({ derived: { bytes: sealed.length, key: key.id } }), sealed]);
}

export function createDerivedFiles(context: StoreContext, layout: Layout): DerivedFiles {
  const { paths, plain } = context;
  const folder = (id: string) => paths.inSession(id, DERIVED);
  const file = (id: string, name: string) => `${folder(id)}/${name}.bin`;

  const decode = (id: string, name: string, content: Buffer): Uint8Array | null => {
    const newline = content.indexOf(0x0a, FRAME_PREFIX_LENGTH);
    if (newline === -1) return null;
    const framed = unframe(content.subarray(0, newline));
    const head = framed.ok ? (framed.value as { derived?: { bytes?: unknown; crc?: unknown; key?: unknown } }) : null;
    const body = content.subarray(newline + 1);
    if (!head?.derived || head.derived.bytes !== body.length) return null;
    const { key, crc } = head.derived;
    if (typeof key === 'string') {
      const opened = openBytes(context.keyring, derivedPlace(id, name), key, body, file(id, name));
      return opened.ok ? new Uint8Array(opened.plaintext) : null;
    }
    return crc === crc32(body) ? new Uint8Array(body) : null;
  };

  return {
    async put(id, name, bytes) {
      context.files.refuseIfBroken();
      checkDerivedName(name);
      await layout.require(id);
      await makeDirectory(plain, folder(id));
      await writeFileAtomically(
        plain,
        file(id, name),
        encodeDerived(id, name, bytes, context.keyring?.current() ?? null),
      );
    },

    async get(id, name) {
      checkDerivedName(name);
      await layout.require(id);
      let content: Buffer;
      try {
        content = await plain.readFile(file(id, name));
      } catch (error) {
        if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') return null;
        throw error;
      }
      return decode(id, name, content);
    },

    async forget(id) {
      await plain.removeTree(folder(id));
    },
  };
}
