// Real child processes for the crash, lease and load suites: a worker in
// `src/__fixtures__/` is bundled once and spawned with the project's Node, with only the
// environment it is given (never the user's keys or home).
import type { Readable } from 'node:stream';
import { bundleChild } from '@resume/test-support';

export { type ChildExit as Exit, collect, exited, onLines } from '@resume/test-support';

export type WorkerProcess = import('node:child_process').ChildProcessByStdio<null, Readable, Readable>;

export interface BundledWorker {
  /** Runs the worker with `args`, only `env` (and PATH) in its environment, in `cwd` (default: this process's). */
  spawn(args: string[], env?: Record<string, string>, cwd?: string): WorkerProcess;
  remove(): Promise<void>;
}

/** The `conclave` executable's sources (its real process wiring: environment, streams, signals, exit). */
export const CONCLAVE_BIN = new URL('../../../../apps/cli/src/bin/conclave.ts', import.meta.url);

/** Bundles `src/__fixtures__/<name>.ts` (or `entry`) into a temporary directory. */
export async function bundleWorker(
  name: string,
  entry = new URL(`../__fixtures__/${name}.ts`, import.meta.url),
): Promise<BundledWorker> {
  // The CLI's Ink imports React's devtools only when DEV=true; the package is not installed.
  const bundled = await bundleChild(entry, { empty: ['react-devtools-core'] });
  return {
    spawn: (args, env = {}, cwd) => bundled.spawn(args, { PATH: process.env.PATH ?? '', ...env }, cwd),
    remove: bundled.remove,
  };
}
