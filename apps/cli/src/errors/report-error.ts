// The one place that turns an error into what the user reads and the exit code
// (DESIGN 9). Conclave errors print their message, their details and what to do next
// (worded in hints.ts from the error's code and data); anything else is a bug, printed
// briefly; stack traces only with --debug.
import { ConclaveError, ExitCode, maskUrlCredentials, printableText } from '@resume/core/spec';
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
    return error.exitCode;
  }
  const message = error instanceof Error ? error.message : String(error);
  terminal.warn(`${terminal.red('Error:')} unexpected failure: ${scrub(message)}`);
  if (options.debug && error instanceof Error && error.stack) terminal.warn(terminal.dim(error.stack));
  else terminal.warn('Run again with --debug to see where it happened, and please report it.');
  return ExitCode.failed;
}
