// The wording a person reads under an error: details worth a line of their own (who holds
// the session, where the damage is, what to do about a missing model) and the next step.
// Library errors carry a code and data; the next step is worded by `hintFor`, shared with
// the session browser so both front ends say the same thing.
import {
  ConclaveError,
  JournalCorruptedError,
  ProviderError,
  SessionLockedError,
  StepFailedError,
} from '@resume/core/spec';
import { hintFor } from '@resume/tui/error-hints';

export interface ErrorWording {
  /** Lines printed under the message (a blank line first when there are any). */
  details: string[];
  /** What to do next, printed last; undefined when there is nothing to add. */
  hint: string | undefined;
}

export function describeError(error: ConclaveError): ErrorWording {
  // A step that failed for good wraps its last error: that error says what to do about it.
  const reason = StepFailedError.isInstance(error) && ConclaveError.isInstance(error.cause) ? error.cause : error;
  return { details: detailsOf(reason), hint: hintFor(error) ?? hintFor(reason) };
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
