// Runs a fixture entry point as a real child process with the project's Node:
// the TypeScript sources are bundled once per test file with esbuild (resolving
// workspace packages to their sources), then spawned with `process.execPath`.
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export interface BundledChild {
  spawn(args: string[]): ChildProcessByStdio<null, Readable, Readable>;
  remove(): Promise<void>;
}

export async function bundleChild(entryName: string): Promise<BundledChild> {
  const directory = await mkdtemp(path.join(tmpdir(), 'conclave-child-'));
  const outfile = path.join(directory, `${entryName}.mjs`);
  await build({
    entryPoints: [fileURLToPath(new URL(`./${entryName}.ts`, import.meta.url))],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    conditions: ['@resume/source'],
    logLevel: 'error',
  });
  return {
    spawn: (args) => spawn(process.execPath, [outfile, ...args], { stdio: ['ignore', 'pipe', 'pipe'] }),
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

export function exited(child: {
  exitCode: number | null;
  signalCode: string | null;
  once: (event: 'exit', listener: () => void) => unknown;
}): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}
