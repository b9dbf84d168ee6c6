import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describeStoreConformance } from '@resume/core/testing';
import { afterEach, beforeEach, describe, it } from 'vitest';
import { createFsStore } from './fs-store.js';

describeStoreConformance(
  'fs',
  async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'conclave-fs-conformance-'));
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
