import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createFsStore } from '@resume/storage-fs';
import { describe } from 'vitest';
import { describePruneCases } from '../testing/prune-cases.js';
import { sessionBytes } from '../testing/session-bytes.js';

describe('pruning a thread on the file store', () => {
  describePruneCases(async () => {
    const directory = await mkdtemp(path.join(tmpdir(), 'conclave-langgraph-prune-'));
    const stores = [createFsStore({ dir: directory })];
    return {
      store: stores[0] as (typeof stores)[number],
      reopen() {
        const store = createFsStore({ dir: directory });
        stores.push(store);
        return store;
      },
      size: (sessionId) => sessionBytes(directory, sessionId),
      async cleanup() {
        for (const store of stores) await store.close();
        await rm(directory, { recursive: true, force: true });
      },
    };
  });
});
