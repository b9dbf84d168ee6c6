// Runs the `conclave` CLI in this process (its own entry point, `runCli`), with an
// injected environment: no user home, no keys, no terminal, a fixed clock. Returns
// the exit code and what it printed, as a user would see them.
import { runCli } from '@resume/cli';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliRunOptions {
  home: string;
  cwd: string;
  env?: Record<string, string>;
}

export async function runConclave(argv: string[], options: CliRunOptions): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    env: { CONCLAVE_HOME: options.home, NO_COLOR: '1', ...options.env },
    cwd: options.cwd,
    userHome: options.cwd,
    streams: {
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
    },
    interactive: false,
    now: () => new Date('2026-01-15T12:00:00.000Z'),
    version: '0.0.0-test',
    onSignal: () => () => {},
    exitNow: (exitCode: number) => {
      throw new Error(`the CLI tried to leave the process with ${exitCode}`);
    },
  });
  return { code, stdout, stderr };
}
