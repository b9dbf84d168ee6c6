// The file store passes the store conformance suite under node:test, with no other test
// framework installed: `@resume/core/testing` takes the test functions it registers with.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { describeStoreConformance } from '@resume/core/testing';
import { createFsStore } from '@resume/storage-fs';

describeStoreConformance(
  'fs (installed from npm)',
  async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'library-app-conformance-'));
    const store = createFsStore({ dir });
    const reopened: Array<{ close(): Promise<void> }> = [];
    return {
      store,
      async reopen() {
        const again = createFsStore({ dir });
        reopened.push(again);
        return again;
      },
      async cleanup() {
        await store.close();
        for (const other of reopened) await other.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  },
  { describe, it, beforeEach, afterEach },
);
