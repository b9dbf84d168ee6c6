// How the crash suites' worker processes end on an error: `error <code> <message>` on stderr
// and the error's exit code (1 for an error that is not a ConclaveError).
import { ConclaveError } from '@resume/core/spec';
import { exitCodeFor } from '@resume/runner/exit-codes';

export function exitWithError(error: unknown): void {
  if (ConclaveError.isInstance(error)) {
    process.stderr.write(`error ${error.code} ${error.message}\n`);
    process.exitCode = exitCodeFor(error);
  } else {
    process.stderr.write(`error internal ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  }
}
