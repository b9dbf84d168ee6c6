import { ConclaveError, type ConclaveErrorOptions } from '@resume/core/spec';

export type WorkspaceToolErrorReason = 'unknown-tool' | 'invalid-arguments' | 'command-refused' | 'too-large';

/**
 * A workspace tool call was refused before it ran (bad arguments, a command not on the
 * allow-list). The runner turns it into an error result the model can read and adapt to.
 */
export class WorkspaceToolError extends ConclaveError {
  static override readonly code = 'workspace-tool';
  readonly reason: WorkspaceToolErrorReason;
  constructor(reason: WorkspaceToolErrorReason, message: string, options: ConclaveErrorOptions = {}) {
    super(WorkspaceToolError.code, message, options);
    this.name = 'WorkspaceToolError';
    this.reason = reason;
  }
}
