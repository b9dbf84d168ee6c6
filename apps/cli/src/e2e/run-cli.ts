// Test helper: runs the built CLI (`dist/conclave.mjs`) as a real subprocess against a
// temporary CONCLAVE_HOME and workspace, never the user's own home or environment.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const CLI_PATH = fileURLToPath(new URL('../../dist/conclave.mjs', import.meta.url));

export function assertBuilt(): void {
  if (!existsSync(CLI_PATH))
    throw new Error(`The CLI is not built (${CLI_PATH}); run: ./bin/pnpm --filter @resume/cli build`);
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface Sandbox {
  root: string;
  home: string;
  workspace: string;
  env: Record<string, string>;
  run(args: string[], options?: RunOptions): Promise<CliResult>;
  start(args: string[], options?: RunOptions): RunningCli;
  json<T = unknown>(args: string[], options?: RunOptions): Promise<T>;
  remove(): Promise<void>;
}

export interface RunOptions {
  cwd?: string;
  env?: Record<string, string | undefined>;
  /** Runs the CLI as this user (a test running as root meets file modes only as another user). */
  user?: { uid: number; gid: number };
  /** Standard output to this descriptor (a file the test opened) instead of a pipe read into `stdout`. */
  stdout?: number;
}

export interface RunningCli {
  child: ChildProcess;
  /** Resolves once stderr has contained `text`. */
  waitFor(text: string | RegExp): Promise<void>;
  done: Promise<CliResult>;
}

/** A minimal environment: PATH for shell steps, nothing of the user's (no API keys, no HOME config). */
function baseEnvironment(root: string, home: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: path.join(root, 'user-home'),
    CONCLAVE_HOME: home,
    NO_COLOR: '1',
    LANG: 'C.UTF-8',
  };
}

export async function createSandbox(): Promise<Sandbox> {
  const root = await mkdtemp(path.join(tmpdir(), 'conclave-cli-'));
  const home = path.join(root, 'home');
  const workspace = path.join(root, 'workspace');
  await mkdir(workspace, { recursive: true });
  await mkdir(path.join(root, 'user-home'), { recursive: true });
  const env = baseEnvironment(root, home);
  const start = (args: string[], options: RunOptions = {}): RunningCli => {
    const merged: Record<string, string> = { ...env };
    for (const [key, value] of Object.entries(options.env ?? {})) {
      if (value === undefined) delete merged[key];
      else merged[key] = value;
    }
    const child = spawn(process.execPath, [CLI_PATH, ...args], {
      cwd: options.cwd ?? workspace,
      env: merged,
      stdio: ['ignore', options.stdout ?? 'pipe', 'pipe'],
      ...options.user,
    });
    let stdout = '';
    let stderr = '';
    const waiters: { pattern: string | RegExp; resolve: () => void }[] = [];
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      for (const waiter of [...waiters]) {
        const matched =
          typeof waiter.pattern === 'string' ? stderr.includes(waiter.pattern) : waiter.pattern.test(stderr);
        if (matched) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      }
    });
    const done = new Promise<CliResult>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
    return {
      child,
      done,
      waitFor: (pattern) =>
        new Promise<void>((resolve, reject) => {
          const matched = typeof pattern === 'string' ? stderr.includes(pattern) : pattern.test(stderr);
          if (matched) return resolve();
          waiters.push({ pattern, resolve });
          void done.then(() => reject(new Error(`process ended before printing ${pattern}:\n${stderr}`)));
        }),
    };
  };
  const sandbox: Sandbox = {
    root,
    home,
    workspace,
    env,
    start,
    run: (args, options) => start(args, options).done,
    async json<T>(args: string[], options?: RunOptions) {
      const result = await start([...args, '--json'], options).done;
      if (result.code !== 0) throw new Error(`conclave ${args.join(' ')} exited ${result.code}:\n${result.stderr}`);
      return JSON.parse(result.stdout) as T;
    },
    remove: () => rm(root, { recursive: true, force: true }),
  };
  return sandbox;
}
