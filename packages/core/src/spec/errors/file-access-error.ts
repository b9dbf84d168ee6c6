import type { ConclaveError } from './conclave-error.js';
import { FileNotFoundError } from './file-not-found-error.js';
import { PermissionDeniedError } from './permission-denied-error.js';

/**
 * The typed error for a failed access to a path the user named or the store owns: a refusal by
 * the operating system (EACCES, EPERM) is a `PermissionDeniedError` (77), a missing path a
 * `FileNotFoundError` (66). Anything else is not a question of access: `null`, and the caller
 * reports it its own way.
 */
export function fileAccessError(error: unknown, path: string, access: 'read' | 'write'): ConclaveError | null {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === 'EACCES' || code === 'EPERM') return new PermissionDeniedError(path, access, { cause: error });
  if (code === 'ENOENT') return new FileNotFoundError(path, undefined, { cause: error });
  return null;
}
