// The `conclave` executable: wires the real process (environment, streams, signals)
// into runCli and exits with its code. The only place the CLI leaves the process.
import { writeSync } from 'node:fs';
import module from 'node:module';
import { homedir } from 'node:os';
import { writeWithoutWaiting } from './write-out.js';

declare const __CONCLAVE_VERSION__: string;

// Node keeps the compiled code of the lazily loaded chunks on disk (in the OS temp
// directory), so every start after the first skips parsing them again.
module.enableCompileCache?.();

const version = typeof __CONCLAVE_VERSION__ === 'string' ? __CONCLAVE_VERSION__ : '0.0.0-source';

/** Whether a run started (it listens for interrupts): a run is never cut short by its reader leaving. */
let running = false;

/**
 * `conclave sessions show … | head`: the reader left; that is not an error worth a trace.
 * `conclave sessions show … > /dev/full`: the output cannot be written; one line says so and the
 * command exits 74. `conclave run x.yaml 2>&1 | head -2`: the run goes on to its end with that
 * stream's output dropped (stopping it there would leave a step started and never finished), and
 * exits with its own outcome. Set before anything uses `process.stdout` or `process.stderr`.
 */
function guardOutputStreams(): void {
  for (const [stream, name] of [
    [process.stdout, 'standard output'],
    [process.stderr, 'standard error'],
  ] as const) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      const readerLeft = error.code === 'EPIPE';
      if (!running) {
        if (readerLeft) process.exit(process.exitCode ?? 0);
        outputLost(name, error);
      }
      if (!readerLeft) sayOutputLost(name, error);
      dropOutput(stream);
    });
  }
}

/**
 * The exit code of a command whose output could not be written: `ExitCode.storeFull` of
 * `@resume/runner/exit-codes` (sysexits' EX_IOERR), which this entry does not import, since that
 * module loads `@resume/core/spec` and the quick answers never do (the tests hold them equal).
 */
const OUTPUT_LOST_EXIT = 74;

/** Says, on descriptor 2 (the stream may be the one that failed), that the output could not be written. */
function sayOutputLost(name: string, error: NodeJS.ErrnoException): void {
  const fix =
    error.code === 'ENOSPC' || error.code === 'EDQUOT'
      ? 'Free space on the disk it goes to, or send it elsewhere.'
      : 'Check where it goes, or send it elsewhere.';
  try {
    writeSync(2, `conclave: could not write to ${name} (${error.message}). ${fix}\n`);
  } catch {
    // Standard error is the one that failed: the exit code still says so.
  }
}

function outputLost(name: string, error: NodeJS.ErrnoException): never {
  sayOutputLost(name, error);
  process.exit(OUTPUT_LOST_EXIT);
}

function dropOutput(stream: NodeJS.WriteStream): void {
  stream.write = (_chunk: unknown, encoding?: unknown, callback?: unknown) => {
    const done = typeof encoding === 'function' ? encoding : callback;
    if (typeof done === 'function') queueMicrotask(() => done());
    return true;
  };
}

const args = process.argv.slice(2);
await maskProcessTitle(args);
// `conclave --version` needs nothing but the version: answer before loading the command line.
const quickAnswer =
  args.length === 1 && (args[0] === '--version' || args[0] === '-V') ? `${version}\n` : await listedQuickly(args);
if (quickAnswer === null) {
  guardOutputStreams();
  await run(args);
} else if (writtenWhole(quickAnswer)) {
  // Nothing is left to do: exiting now skips tearing down a heap that held the listing (about
  // 2 ms of a quick answer's 25).
  process.exit(0);
}

/**
 * A quick answer's whole output (write-out.ts): whether it all went (or its reader left), or
 * the stream took the rest, to write when the descriptor can take it.
 */
function writtenWhole(text: string): boolean {
  let rest: Buffer;
  try {
    rest = writeWithoutWaiting(1, Buffer.from(text));
  } catch (error) {
    outputLost('standard output', error as NodeJS.ErrnoException);
  }
  if (rest.length === 0) return true;
  guardOutputStreams();
  process.stdout.write(rest);
  return false;
}

/**
 * A password on the command line (`--store postgres://app:pw@db/x`) would stay in the process
 * list (`ps`, /proc/<pid>/cmdline) for the whole run: the title is rewritten with it masked.
 * Node writes the title over the original arguments (a masked one is never longer but by a few `*`).
 */
async function maskProcessTitle(args: string[]): Promise<void> {
  if (!args.some((arg) => arg.includes('@') || arg.includes('='))) return;
  const { maskUrlCredentials } = await import('@resume/core/spec');
  const masked = process.argv.map((arg) => maskUrlCredentials(arg));
  if (masked.some((arg, index) => arg !== process.argv[index])) process.title = masked.join(' ');
}

/**
 * What `sessions list --json` prints, from the stamped listing index, and `sessions search … --json`,
 * from the content index, when they can vouch for themselves (sessions/quick-list.ts,
 * quick-search.ts); null when the full command must answer.
 */
async function listedQuickly(args: string[]): Promise<string | null> {
  if (args[0] !== 'sessions' || !args.includes('--json')) return null;
  const environment = { env: process.env, cwd: process.cwd(), userHome: homedir() };
  let listed: string | null = null;
  if (args[1] === 'list' || args[1] === 'ls')
    listed = (await import('../sessions/quick-list.js')).quickListJson(args, environment);
  else if (args[1] === 'search')
    listed = await (await import('../sessions/quick-search.js')).quickSearchJson(args, environment);
  return listed === null ? null : `${listed}\n`;
}

async function run(args: string[]): Promise<void> {
  // Before the commands' modules build their zod schemas (see zod-without-jit.ts).
  await import('./zod-without-jit.js');
  const { runCli } = await import('../cli.js');
  const exitCode = await runCli(args, {
    env: process.env,
    cwd: process.cwd(),
    userHome: homedir(),
    streams: { stdout: process.stdout, stderr: process.stderr },
    interactive: Boolean(process.stdin.isTTY && process.stderr.isTTY),
    now: () => new Date(),
    version,
    onSignal(handler) {
      const onInterrupt = () => handler('SIGINT');
      const onTerminate = () => handler('SIGTERM');
      process.on('SIGINT', onInterrupt);
      process.on('SIGTERM', onTerminate);
      // Until the process ends: the run's outcome is still to be reported and exited with.
      running = true;
      return () => {
        process.off('SIGINT', onInterrupt);
        process.off('SIGTERM', onTerminate);
      };
    },
    exitNow(code) {
      process.exit(code);
    },
  });
  process.exitCode = exitCode;
}
