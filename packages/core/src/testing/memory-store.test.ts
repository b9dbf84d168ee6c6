import { afterEach, beforeEach, describe, it } from 'vitest';
import { describeStoreConformance } from './conformance.js';
import { createMemoryStore } from './memory-store.js';

describeStoreConformance(
  'memory',
  async () => {
    const store = createMemoryStore();
    return { store, cleanup: () => store.close() };
  },
  { describe, it, beforeEach, afterEach },
);
