import { ConclaveError, type ConclaveErrorOptions } from '@resume/core/spec';

/**
 * A worktree run cannot go on or be merged as things are: its worktree is gone, is on another
 * branch or at a commit the session did not make, or its branch conflicts with the repository.
 * Nothing was changed; the hint says how to put things right.
 */
export class WorktreeRefusedError extends ConclaveError {
  static override readonly code = 'worktree-refused';
  constructor(message: string, hint: string, options: ConclaveErrorOptions = {}) {
    super(WorktreeRefusedError.code, message, { hint, ...options });
    this.name = 'WorktreeRefusedError';
  }
}
