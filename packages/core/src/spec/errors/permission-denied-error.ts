import { ConclaveError, type ConclaveErrorOptions } from './conclave-error.js';

/** What to check when the operating system refuses `path` (the error's hint, and listings' note on an unreadable session). */
export function permissionDeniedHint(path: string): string {
  return `Check the owner and mode of ${path} (and of the folders above it).`;
}

/**
 * The operating system refused access to a path (EACCES or EPERM): the data may be intact, but
 * this process may not read or write it. `path` is the file or folder that was refused and
 * `access` what was attempted.
 */
export class PermissionDeniedError extends ConclaveError {
  static override readonly code = 'permission-denied';
  readonly path: string;
  readonly access: 'read' | 'write';
  constructor(path: string, access: 'read' | 'write', options: ConclaveErrorOptions = {}) {
    super(PermissionDeniedError.code, `Permission denied: cannot ${access} ${path}`, {
      hint: options.hint ?? permissionDeniedHint(path),
      ...(options.cause === undefined ? {} : { cause: options.cause }),
    });
    this.name = 'PermissionDeniedError';
    this.path = path;
    this.access = access;
  }
}
