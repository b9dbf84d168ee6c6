import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createFsStore } from '@resume/storage-fs';
import { validateOnStore } from './testing/validation.js';

validateOnStore('file store', async () => {
  const directory = await mkdtemp(path.join(tmpdir(), 'conclave-langgraph-'));
  return {
    store: createFsStore({ dir: directory }),
    cleanup: () => rm(directory, { recursive: true, force: true }),
  };
});
