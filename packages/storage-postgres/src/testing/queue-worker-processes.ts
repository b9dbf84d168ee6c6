// Test support: the queue worker process (queue-worker-process.ts) bundled once per test file, a
// temporary directory for its logs, and copies of it started with a configuration each.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BundledChild, bundleChild, collect, onLines } from '@resume/test-support';
import { afterAll, beforeAll } from 'vitest';

export interface QueueWorkerProcess {
  child: ChildProcess;
  stderr: () => string;
  /** The items it started so far, with when (from its `started <session>` lines). */
  starts: { sessionId: string; at: number }[];
  /** Resolves once it takes items; rejects if it exits first. */
  ready: Promise<void>;
}

/** Registers the bundle's build and removal around the file's tests. */
export function useQueueWorkers(): {
  directory(): string;
  start(config: Record<string, unknown>): QueueWorkerProcess;
} {
  let worker: BundledChild | null = null;
  let directory = '';
  beforeAll(async () => {
    directory = mkdtempSync(path.join(tmpdir(), 'conclave-queue-'));
    worker = await bundleChild(new URL('./queue-worker-process.ts', import.meta.url), { external: ['pg-native'] });
  }, 60_000);
  afterAll(async () => {
    await worker?.remove();
    rmSync(directory, { recursive: true, force: true });
  });
  return {
    directory: () => directory,
    start(config) {
      if (!worker) throw new Error('The queue worker is built only while the tests run');
      const child = worker.spawn([], { ...process.env, CONCLAVE_QUEUE_WORKER: JSON.stringify(config) });
      const stderr = collect(child.stderr);
      const starts: QueueWorkerProcess['starts'] = [];
      // A worker that exits before it takes items fails its test at once, with what it said.
      const ready = new Promise<void>((resolve, reject) => {
        onLines(child.stdout, (line) => {
          if (line === 'ready') resolve();
          const started = /^started (\S+)$/.exec(line);
          if (started?.[1]) starts.push({ sessionId: started[1], at: Date.now() });
        });
        child.once('exit', (code, signal) =>
          reject(new Error(`The queue worker exited (${signal ?? code}) before it took items: ${stderr()}`)),
        );
      });
      ready.catch(() => undefined);
      return { child, stderr, starts, ready };
    },
  };
}
