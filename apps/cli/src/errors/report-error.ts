// The one place that turns an error into what the user reads and the exit code
// (DESIGN 9). Conclave errors print their message, their details and what to do next
// (worded in hints.ts from the error's code and data); anything else is a bug, printed
// briefly; stack traces only with --debug.
import { ConclaveError, ExitCode, printableText } from '@resume/core/spec';
import type { Terminal } from '../output/terminal.js';
import { describeError } from './hints.js';

export function reportError(error: unknown, terminal: Terminal, options: { debug: boolean }): number {
  if (ConclaveError.isInstance(error)) {
    const wording = describeError(error);
    terminal.warn(`${terminal.red('Error:')} ${printableText(error.message, 'lines')}`);
    for (const line of wording.details) terminal.warn(line);
    if (wording.hint) {
      terminal.warn();
      terminal.warn(wording.hint);
    }
    if (options.debug && error.stack) terminal.warn(terminal.dim(error.stack));
    return error.exitCode;
  }
  const message = printableText(error instanceof Error ? error.message : String(error), 'lines');
  terminal.warn(`${terminal.red('Error:')} unexpected failure: ${message}`);
  if (options.debug && error instanceof Error && error.stack) terminal.warn(terminal.dim(error.stack));
  else terminal.warn('Run again with --debug to see where it happened, and please report it.');
  return ExitCode.failed;
}
