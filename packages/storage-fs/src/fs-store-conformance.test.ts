import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createKeyring, generateDataKey, type Keyring } from '@resume/core/encryption';
import { describeStoreConformance } from '@resume/core/testing';
import { afterEach, beforeEach, describe, it } from 'vitest';
import { createFsStore } from './fs-store.js';

/** Every file under `dir`, as one text. */
async function filesText(dir: string): Promise<string> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  const files = entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
  return (await Promise.all(files.map((file) => readFile(file, 'latin1')))).join('\n');
}

for (const encrypted of [false, true]) {
  describeStoreConformance(
    encrypted ? 'fs, encrypted' : 'fs',
    async () => {
      const dir = await mkdtemp(path.join(tmpdir(), 'conclave-fs-conformance-'));
      const key = generateDataKey();
      const keyring: Keyring | undefined = encrypted
        ? createKeyring({ keys: { [key.id]: key.key }, current: key.id })
        : undefined;
      const open = (encryption: Keyring | undefined) => createFsStore({ dir, ...(encryption ? { encryption } : {}) });
      const store = open(keyring);
      const reopened: Array<{ close(): Promise<void> }> = [];
      const again = async (encryption: Keyring | undefined) => {
        const other = open(encryption);
        reopened.push(other);
        return other;
      };
      return {
        store,
        reopen: () => again(keyring),
        ...(keyring
          ? {
              keyring,
              storedText: () => filesText(dir),
              reopenWithoutKey: () => again(undefined),
            }
          : {}),
        async cleanup() {
          await store.close();
          for (const other of reopened) await other.close();
          await rm(dir, { recursive: true, force: true });
        },
      };
    },
    { describe, it, beforeEach, afterEach },
    { encrypted },
  );
}
