// Runs one allow-listed command in the workspace: no shell, a timeout, an abort signal
// that stops the whole process group, and only the tails of stdout and stderr kept (a
// chatty build must not fill the journal or the model's context).
import { spawn } from 'node:child_process';
import { InterruptedError } from '@resume/core/spec';

export interface RunCommandInput {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal;
}

export interface CommandResult {
  command: string;
  /** Null when the process was killed by a signal or could not start. */
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  /** Whether the start of the output was cut (only the tail is kept). */
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
}

/** Keeps the last `limit` bytes of a stream. */
class Tail {
  #chunks: Buffer[] = [];
  #size = 0;
  truncated = false;
  constructor(private readonly limit: number) {}
  push(chunk: Buffer): void {
    this.#chunks.push(chunk);
    this.#size += chunk.byteLength;
    while (this.#size > this.limit && this.#chunks.length > 0) {
      const first = this.#chunks[0] as Buffer;
      const excess = this.#size - this.limit;
      this.truncated = true;
      if (first.byteLength <= excess) {
        this.#chunks.shift();
        this.#size -= first.byteLength;
      } else {
        this.#chunks[0] = first.subarray(excess);
        this.#size -= excess;
      }
    }
  }
  text(): string {
    return Buffer.concat(this.#chunks).toString('utf8');
  }
}

const KILL_GRACE_MS = 2000;

export function runCommand(input: RunCommandInput): Promise<CommandResult> {
  const [file, ...args] = input.argv;
  const command = input.argv.join(' ');
  if (input.signal?.aborted)
    return Promise.reject(
      new InterruptedError(null, `The command "${command}" was not started: the run was interrupted.`),
    );
  return new Promise((resolve, reject) => {
    const stdout = new Tail(input.maxOutputBytes);
    const stderr = new Tail(input.maxOutputBytes);
    let timedOut = false;
    let aborted = false;
    let killTimer: NodeJS.Timeout | undefined;
    const child = spawn(file as string, args, {
      cwd: input.cwd,
      env: input.env,
      shell: false,
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, so a timeout or an interrupt stops the children it spawned too.
      detached: process.platform !== 'win32',
    });
    const stop = () => {
      const kill = (signalName: NodeJS.Signals) => {
        try {
          if (child.pid !== undefined && process.platform !== 'win32') process.kill(-child.pid, signalName);
          else child.kill(signalName);
        } catch {
          // Already gone.
        }
      };
      kill('SIGTERM');
      killTimer = setTimeout(() => kill('SIGKILL'), KILL_GRACE_MS);
      killTimer.unref();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, input.timeoutMs);
    timer.unref();
    const onAbort = () => {
      aborted = true;
      stop();
    };
    input.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    const finish = () => {
      clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      input.signal?.removeEventListener('abort', onAbort);
    };
    child.on('error', (error: NodeJS.ErrnoException) => {
      finish();
      if (error.code === 'ENOENT') {
        resolve({
          command,
          exitCode: 127,
          signal: null,
          timedOut: false,
          stdout: '',
          stderr: `${file}: command not found`,
          stdoutTruncated: false,
          stderrTruncated: false,
        });
      } else {
        reject(error);
      }
    });
    child.on('close', (exitCode, signalName) => {
      finish();
      if (aborted) {
        reject(new InterruptedError(null, `The command "${command}" was stopped: the run was interrupted.`));
        return;
      }
      resolve({
        command,
        exitCode,
        signal: signalName,
        timedOut,
        stdout: stdout.text(),
        stderr: stderr.text(),
        stdoutTruncated: stdout.truncated,
        stderrTruncated: stderr.truncated,
      });
    });
  });
}
