// The one place that turns an error into what the user reads and the exit code
// (DESIGN 9). Conclave errors print their message and what to do next; anything else
// is a bug, printed briefly; stack traces only with --debug.
import {
  ConclaveError,
  ExitCode,
  JournalCorruptedError,
  ProviderError,
  SessionLockedError,
  StepFailedError,
} from '@resume/core/spec';
import type { Terminal } from '../output/terminal.js';

export function reportError(error: unknown, terminal: Terminal, options: { debug: boolean }): number {
  if (ConclaveError.isInstance(error)) {
    terminal.warn(`${terminal.red('Error:')} ${error.message}`);
    // A step that failed for good wraps its last error: that error says what to do about it.
    const reason = StepFailedError.isInstance(error) && ConclaveError.isInstance(error.cause) ? error.cause : error;
    for (const line of detailsOf(reason)) terminal.warn(line);
    const hint = error.hint ?? reason.hint;
    if (hint) {
      terminal.warn();
      terminal.warn(hint);
    }
    if (options.debug && error.stack) terminal.warn(terminal.dim(error.stack));
    return error.exitCode;
  }
  const message = error instanceof Error ? error.message : String(error);
  terminal.warn(`${terminal.red('Error:')} unexpected failure: ${message}`);
  if (options.debug && error instanceof Error && error.stack) terminal.warn(terminal.dim(error.stack));
  else terminal.warn('Run again with --debug to see where it happened, and please report it.');
  return ExitCode.failed;
}

function detailsOf(error: ConclaveError): string[] {
  if (SessionLockedError.isInstance(error)) {
    const holder = error.holder;
    return ['', `  held by: pid ${holder.pid} on ${holder.host}`, `  since:   ${holder.since}`];
  }
  if (JournalCorruptedError.isInstance(error)) {
    return ['', `  file:   ${error.file}`, ...(error.offset === null ? [] : [`  offset: byte ${error.offset}`])];
  }
  if (ProviderError.isInstance(error) && error.reason === 'model-not-found') {
    const model = error.model ?? 'the model';
    return [
      '',
      'Options:',
      `  1. Continue with '${model}' anyway if the provider serves it under that name: --force`,
      '  2. Use other models: --models <a,b> (or --model <id>)',
      '  3. Use another provider: --provider openai|anthropic|scripted',
    ];
  }
  if (ProviderError.isInstance(error) && error.reason === 'authentication') {
    return ['', `The ${error.provider} API key was refused. Check the key in the environment (it is never stored).`];
  }
  return [];
}
