import { ConclaveError, type ConclaveErrorOptions } from '@resume/core/spec';

export type WorkspaceAccessReason =
  | 'outside-workspace'
  | 'symlink-escape'
  | 'invalid-path'
  | 'workspace-missing'
  | 'not-a-file'
  | 'not-a-directory'
  | 'file-changed'
  | 'snapshot-missing';

/**
 * A file operation was refused: the path leaves the workspace, the file is not what the
 * operation expects, or a snapshot cannot be restored. Tools turn it into an error result.
 */
export class WorkspaceAccessError extends ConclaveError {
  static override readonly code = 'workspace-access';
  readonly reason: WorkspaceAccessReason;
  readonly path: string;
  constructor(reason: WorkspaceAccessReason, path: string, message: string, options: ConclaveErrorOptions = {}) {
    super(WorkspaceAccessError.code, message, options);
    this.name = 'WorkspaceAccessError';
    this.reason = reason;
    this.path = path;
  }
}
