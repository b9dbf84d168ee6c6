// Real child processes for the crash, lease and load suites: a worker written in
// TypeScript is bundled once with esbuild (workspace packages resolved to their
// sources) and spawned with the project's Node (`process.execPath`).
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

export type WorkerProcess = ChildProcessByStdio<null, Readable, Readable>;

export interface BundledWorker {
  /** Runs the worker with `args`, only `env` (and PATH) in its environment, in `cwd` (default: this process's). */
  spawn(args: string[], env?: Record<string, string>, cwd?: string): WorkerProcess;
  remove(): Promise<void>;
}

// Ink imports React's devtools only when DEV=true, and the package is not installed: the bundle
// of the CLI gets an empty module instead (the built CLI keeps it external).
const withoutDevtools: Plugin = {
  name: 'without-react-devtools',
  setup(build) {
    build.onResolve({ filter: /^react-devtools-core$/ }, () => ({ path: 'react-devtools-core', namespace: 'empty' }));
    build.onLoad({ filter: /.*/, namespace: 'empty' }, () => ({ contents: 'export default {};' }));
  },
};

/** The `conclave` executable's sources (its real process wiring: environment, streams, signals, exit). */
export const CONCLAVE_BIN = new URL('../../../../apps/cli/src/bin/conclave.ts', import.meta.url);

/** Bundles `src/__fixtures__/<name>.ts` (or `entry`) into a temporary directory. */
export async function bundleWorker(
  name: string,
  entry = new URL(`../__fixtures__/${name}.ts`, import.meta.url),
): Promise<BundledWorker> {
  const directory = await mkdtemp(path.join(tmpdir(), 'conclave-worker-'));
  const outfile = path.join(directory, `${name}.mjs`);
  await build({
    entryPoints: [fileURLToPath(entry)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    conditions: ['@resume/source'],
    logLevel: 'error',
    plugins: [withoutDevtools],
    // Bundled CommonJS dependencies may call require(); give the ESM bundle one.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
  });
  return {
    spawn: (args, env = {}, cwd) =>
      spawn(process.execPath, [outfile, ...args], {
        stdio: ['ignore', 'pipe', 'pipe'],
        ...(cwd === undefined ? {} : { cwd }),
        // Only what the worker needs: never the user's keys or home.
        env: { PATH: process.env.PATH ?? '', ...env },
      }),
    remove: () => rm(directory, { recursive: true, force: true }),
  };
}

/** Calls `onLine` for each complete line the stream writes. */
export function onLines(stream: Readable, onLine: (line: string) => void): void {
  let buffered = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    buffered += chunk;
    let end = buffered.indexOf('\n');
    while (end !== -1) {
      onLine(buffered.slice(0, end));
      buffered = buffered.slice(end + 1);
      end = buffered.indexOf('\n');
    }
  });
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export function exited(child: WorkerProcess): Promise<Exit> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  }
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

/** Collects everything a stream writes. */
export function collect(stream: Readable): () => string {
  let text = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    text += chunk;
  });
  return () => text;
}
