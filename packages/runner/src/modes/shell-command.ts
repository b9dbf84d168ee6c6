// Runs one shell step attempt in the workspace. The binding environment (docs/architecture.md#workflow-specs-and-shell-steps):
// CONCLAVE_SESSION_ID, CONCLAVE_STEP and CONCLAVE_ATTEMPT (1-based, continued across resumes).
import { spawn } from 'node:child_process';
import { ConclaveError, type ConclaveErrorOptions, type StepProcess } from '@resume/core/spec';
import { processProbe, stopProcessGroup } from '../processes/process-group.js';
import { StepTimedOutError } from './step-timed-out-error.js';

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
      [`Command \`${command}\` exited with code ${result.exitCode}.`, ...tails].join('\n'),
      { hint: 'Fix the cause and resume the session; completed steps will not run again.', ...options },
    );
    this.name = 'ShellCommandFailedError';
    this.result = result;
  }
}

const tail = (text: string) => (text.length <= TAIL_CHARS ? text : text.slice(-TAIL_CHARS));

export interface ShellCommandInput {
  command: string;
  cwd: string;
  env: Record<string, string | undefined>;
  /** Told what the command prints (stdout and stderr) as it prints it, for live views. */
  onOutput?: (text: string) => void;
}

/** A command started and held before it runs (see holdShellCommand). */
export interface HeldShellCommand {
  /** The process it runs in (null when it could not be started): journaled with the attempt's start. */
  process: StepProcess | null;
  /**
   * Lets the command run; resolves with its result whatever the exit code, rejects when aborted,
   * unable to start, or still running after `timeoutMs` (a StepTimedOutError, once its group is stopped).
   */
  run(signal: AbortSignal, timeoutMs?: number): Promise<ShellResult>;
  /** The command will not run: its held shell ends without running it. */
  cancel(): void;
}

// The held shell waits for one line on its stdin before it runs the command (same pid, same
// group): the line is written once the attempt's start, with this pid, is durable. If the process
// holding it dies first, the pipe closes, the read fails and the command never runs. The command
// then runs as `sh -c` would run it (stdin /dev/null, no positional parameters), in this shell:
// no second exec per step.
const HOLD_SCRIPT = [
  'IFS= read -r go || exit 125',
  'exec </dev/null',
  'conclave_command=$1',
  'shift',
  'eval "unset conclave_command go',
  '$conclave_command"',
].join('\n');

/**
 * Starts a shell step's command held: its process exists (pid, process group, start time can be
 * recorded) but the command runs only when `run` is called. Its own process group, so an interrupt,
 * a timeout or a resume finding it still running stops the command's children too.
 */
export function holdShellCommand(input: ShellCommandInput): HeldShellCommand {
  const child = spawn('/bin/sh', ['-c', HOLD_SCRIPT, 'sh', input.command], {
    cwd: input.cwd,
    env: input.env,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
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
  // A pipe closed by a command that ended early is no error of ours.
  child.stdin.on('error', () => undefined);
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>((resolve) => {
    child.on('error', (error) => resolve({ code: null, signal: null, error }));
    child.on('close', (code, signal) => resolve({ code, signal }));
  });
  const probe = processProbe();
  const pid = child.pid;
  const recorded: StepProcess | null =
    pid === undefined
      ? null
      : { pid, processGroup: pid, startTime: probe.startTime(pid), host: probe.hostname, bootId: probe.bootId };
  let released = false;
  return {
    process: recorded,
    cancel() {
      if (released) return;
      released = true;
      child.stdin.destroy();
    },
    async run(signal, timeoutMs) {
      if (released) throw new Error('This command was already run or cancelled.');
      released = true;
      if (signal.aborted) {
        child.stdin.destroy();
        throw signal.reason;
      }
      let stopping: Promise<unknown> | null = null;
      const onAbort = () => {
        if (pid !== undefined) stopping ??= stopProcessGroup(pid);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      let timedOut: Promise<'SIGTERM' | 'SIGKILL' | null> | null = null;
      const timer =
        timeoutMs === undefined || pid === undefined
          ? undefined
          : setTimeout(() => {
              timedOut = stopProcessGroup(pid);
            }, timeoutMs);
      child.stdin.end('go\n');
      try {
        const outcome = await closed;
        clearTimeout(timer);
        if (outcome.error) throw outcome.error;
        if (signal.aborted) {
          // The whole group is gone before the interrupt is reported: nothing of it keeps running.
          await (stopping ?? timedOut ?? (pid !== undefined ? stopProcessGroup(pid) : null));
          throw signal.reason;
        }
        if (timedOut !== null && timeoutMs !== undefined) {
          const stoppedWith = await (timedOut as Promise<'SIGTERM' | 'SIGKILL' | null>);
          throw new StepTimedOutError({ what: `Command \`${input.command}\``, timeoutMs, stoppedWith });
        }
        return {
          exitCode: outcome.code ?? (outcome.signal ? 128 : 1),
          stdoutTail: stdout,
          stderrTail: stderr,
        };
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
    },
  };
}

/**
 * Runs a command at once (held and let run in one go): for shell commands whose start records
 * no process, such as a scored step's checks. Resolves with the result whatever the exit code.
 */
export function runShellCommand(
  input: ShellCommandInput & { signal: AbortSignal; timeoutMs?: number },
): Promise<ShellResult> {
  return holdShellCommand(input).run(input.signal, input.timeoutMs);
}
