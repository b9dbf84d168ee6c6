// The one place that turns an error into what the user reads and the exit code
// (docs/architecture.md#the-cli). Conclave errors print their message, their details and what to do next
// (worded in hints.ts from the error's code and data) and exit with their code's entry in the
// exit-code table; anything else is a bug, printed briefly; stack traces only with --debug.
import { ConclaveError, maskUrlCredentials, printableText } from '@resume/core/spec';
import { ExitCode, exitCodeFor } from '@resume/runner/exit-codes';
import type { Terminal } from '../output/terminal.js';
import { describeError } from './hints.js';

export interface ReportOptions {
  debug: boolean;
  /**
   * What a message goes through before it is printed: the secrets of the environment in every
   * form replaced (a message may quote a file the user named, or what a server answered) and
   * passwords in URLs masked. The hint is Conclave's own words and is printed as it is.
   */
  scrub?: (text: string) => string;
  /** `--json` was given: the error is also printed on stdout as `{ "error": {...} }` for scripts. */
  json?: boolean;
}

/** What a script reads on stdout when a `--json` command fails. */
export function errorJson(error: { code: string; message: string; exitCode: number; hint: string | null }): string {
  return JSON.stringify({ error }, null, 2);
}

export function reportError(error: unknown, terminal: Terminal, options: ReportOptions): number {
  const scrub = (text: string) =>
    printableText(maskUrlCredentials(options.scrub ? options.scrub(text) : text), 'lines');
  if (ConclaveError.isInstance(error)) {
    const wording = describeError(error);
    terminal.warn(`${terminal.red('Error:')} ${scrub(error.message)}`);
    for (const line of wording.details) terminal.warn(scrub(line));
    if (wording.hint) {
      terminal.warn();
      terminal.warn(wording.hint);
    }
    if (options.debug && error.stack) terminal.warn(terminal.dim(error.stack));
    if (options.json) {
      const hint = wording.hint ?? null;
      terminal.data(errorJson({ code: error.code, message: scrub(error.message), exitCode: exitCodeFor(error), hint }));
    }
    return exitCodeFor(error);
  }
  const message = error instanceof Error ? error.message : String(error);
  const hint = 'Run again with --debug to see where it happened, and please report it.';
  terminal.warn(`${terminal.red('Error:')} unexpected failure: ${scrub(message)}`);
  if (options.debug && error instanceof Error && error.stack) terminal.warn(terminal.dim(error.stack));
  else terminal.warn(hint);
  if (options.json) {
    const unexpected = {
      code: 'unexpected',
      message: `unexpected failure: ${scrub(message)}`,
      exitCode: ExitCode.failed,
    };
    terminal.data(errorJson({ ...unexpected, hint }));
  }
  return ExitCode.failed;
}
