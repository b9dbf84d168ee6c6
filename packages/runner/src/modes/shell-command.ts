// Runs one shell step attempt in the workspace. The binding environment (docs/architecture.md#workflow-specs-and-shell-steps):
// CONCLAVE_SESSION_ID, CONCLAVE_STEP and CONCLAVE_ATTEMPT (1-based, continued across resumes).
import { spawn } from 'node:child_process';
import { ConclaveError, type ConclaveErrorOptions, ExitCode } from '@resume/core/spec';

const TAIL_CHARS = 4000;

export interface ShellResult {
  exitCode: number;
  stdoutTail: string;
  stderrTail: string;
}

/** A shell step attempt exited non-zero; its message carries the exit code and output tails. */
export class ShellCommandFailedError extends ConclaveError {
  static override readonly code = 'shell-command-failed';
  readonly result: ShellResult;
  constructor(command: string, result: ShellResult, options: ConclaveErrorOptions = {}) {
    const tails = [
      result.stderrTail.trim() ? `stderr (tail):\n${result.stderrTail.trim()}` : '',
      result.stdoutTail.trim() ? `stdout (tail):\n${result.stdoutTail.trim()}` : '',
    ].filter(Boolean);
    super(
      ShellCommandFailedError.code,
      ExitCode.failed,
      [`Command \`${command}\` exited with code ${result.exitCode}.`, ...tails].join('\n'),
      { hint: 'Fix the cause and resume the session; completed steps will not run again.', ...options },
    );
    this.name = 'ShellCommandFailedError';
    this.result = result;
  }
}

const tail = (text: string) => (text.length <= TAIL_CHARS ? text : text.slice(-TAIL_CHARS));

export interface RunShellInput {
  command: string;
  cwd: string;
  env: Record<string, string | undefined>;
  signal: AbortSignal;
  /** Told what the command prints (stdout and stderr) as it prints it, for live views. */
  onOutput?: (text: string) => void;
}

/** Resolves with the result whatever the exit code; rejects only when aborted or unable to start. */
export function runShellCommand(input: RunShellInput): Promise<ShellResult> {
  return new Promise((resolve, reject) => {
    if (input.signal.aborted) {
      reject(input.signal.reason);
      return;
    }
    // Its own process group, so an interrupt stops the command's children too.
    const child = spawn(input.command, {
      cwd: input.cwd,
      env: input.env,
      shell: true,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (data: string) => {
      stdout = tail(stdout + data);
      input.onOutput?.(data);
    });
    child.stderr.setEncoding('utf8').on('data', (data: string) => {
      stderr = tail(stderr + data);
      input.onOutput?.(data);
    });
    const onAbort = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
      } catch {
        child.kill('SIGTERM');
      }
    };
    input.signal.addEventListener('abort', onAbort, { once: true });
    child.on('error', (error) => {
      input.signal.removeEventListener('abort', onAbort);
      reject(error);
    });
    child.on('close', (code, signal) => {
      input.signal.removeEventListener('abort', onAbort);
      if (input.signal.aborted) {
        reject(input.signal.reason);
        return;
      }
      resolve({ exitCode: code ?? (signal ? 128 : 1), stdoutTail: stdout, stderrTail: stderr });
    });
  });
}
