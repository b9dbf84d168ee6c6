// Real child processes for the crash, lease and load suites: a worker in
// `src/__fixtures__/` is bundled once and spawned with the project's Node, with only the
// environment it is given (never the user's keys or home).
import type { Readable } from 'node:stream';
import { bundleChild } from '@resume/test-support';

export { type ChildExit as Exit, collect, exited, onLines } from '@resume/test-support';

export type WorkerProcess = import('node:child_process').ChildProcessByStdio<null, Readable, Readable>;

export interface BundledWorker {
  spawn(args: string[], env?: Record<string, string>): WorkerProcess;
  remove(): Promise<void>;
}

/** Bundles `src/__fixtures__/<name>.ts` into a temporary directory. */
export async function bundleWorker(name: string): Promise<BundledWorker> {
  const bundled = await bundleChild(new URL(`../__fixtures__/${name}.ts`, import.meta.url));
  return {
    spawn: (args, env = {}) => bundled.spawn(args, { PATH: process.env.PATH ?? '', ...env }),
    remove: bundled.remove,
  };
}
