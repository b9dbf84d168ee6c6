// A worker bundled once per test file: before its tests, removed after them.
import { afterAll, beforeAll } from 'vitest';
import { type BundledWorker, bundleWorker } from './child-process.js';

/** Call at the top of a test file; `spawn` works inside its tests. */
export function useBundledWorker(name: string): Pick<BundledWorker, 'spawn'> {
  let worker: BundledWorker | null = null;
  beforeAll(async () => {
    worker = await bundleWorker(name);
  }, 60_000);
  afterAll(async () => {
    await worker?.remove();
  });
  return {
    spawn(args, env, cwd) {
      if (!worker) throw new Error(`the ${name} worker was not bundled (useBundledWorker outside a test file?)`);
      return worker.spawn(args, env, cwd);
    },
  };
}
