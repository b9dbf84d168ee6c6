// Real child processes for crash, lease and load tests: a TypeScript entry is bundled with
// esbuild (workspace packages resolved to their sources through the `@resume/source`
// condition) into one ESM file, then spawned with the project's Node (`process.execPath`).
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

export interface BundleOptions {
  /** Modules left out of the bundle (optional native add-ons such as `pg-native`). */
  external?: string[];
  /**
   * Modules replaced by an empty one: optional imports never taken at run time that are not
   * installed (Ink's `react-devtools-core`, loaded only when DEV=true). Left external instead, a
   * single-file bundle would import them at its top and fail to start.
   */
  empty?: string[];
}

function emptyModules(names: string[]): Plugin {
  const filter = new RegExp(`^(${names.map((name) => name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|')})$`);
  return {
    name: 'empty-modules',
    setup(build) {
      build.onResolve({ filter }, (resolved) => ({ path: resolved.path, namespace: 'empty-module' }));
      build.onLoad({ filter: /.*/, namespace: 'empty-module' }, () => ({ contents: 'export default {};' }));
    },
  };
}

/** Bundles `entry` into `outfile`: one ESM file that Node runs without the sources around it. */
export async function bundleForNode(entry: string | URL, outfile: string, options: BundleOptions = {}): Promise<void> {
  await build({
    entryPoints: [typeof entry === 'string' ? entry : fileURLToPath(entry)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    conditions: ['@resume/source'],
    external: options.external ?? [],
    plugins: options.empty?.length ? [emptyModules(options.empty)] : [],
    logLevel: 'error',
    // Bundled CommonJS dependencies may call require(); give the ESM bundle one.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
  });
}

export type ChildWithOutput = ChildProcessByStdio<null, Readable, Readable>;

export interface BundledChild {
  /** The bundled file. */
  outfile: string;
  /** Runs the bundle with the project's Node; `env` replaces the environment (default: this process's), in `cwd` (default: this process's). */
  spawn(args: string[], env?: NodeJS.ProcessEnv, cwd?: string): ChildWithOutput;
  /** Removes the bundle's temporary directory. */
  remove(): Promise<void>;
}

/** Bundles `entry` once into a temporary directory, to spawn as often as a test needs. */
export async function bundleChild(entry: string | URL, options: BundleOptions = {}): Promise<BundledChild> {
  const directory = await mkdtemp(path.join(tmpdir(), 'conclave-child-'));
  const name = path.basename(typeof entry === 'string' ? entry : fileURLToPath(entry)).replace(/\.[cm]?tsx?$/, '');
  const outfile = path.join(directory, `${name}.mjs`);
  try {
    await bundleForNode(entry, outfile, options);
  } catch (error) {
    await rm(directory, { recursive: true, force: true });
    throw error;
  }
  return {
    outfile,
    spawn: (args, env = process.env, cwd) =>
      spawn(process.execPath, [outfile, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env, ...(cwd ? { cwd } : {}) }),
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

export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Resolves once the child has exited (at once when it already has). */
export function exited(child: {
  exitCode: number | null;
  signalCode: NodeJS.Signals | null;
  once(event: 'exit', listener: (code: number | null, signal: NodeJS.Signals | null) => void): unknown;
}): Promise<ChildExit> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  }
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

/** Collects everything a stream writes; the returned function reads it so far. */
export function collect(stream: Readable): () => string {
  let text = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    text += chunk;
  });
  return () => text;
}
