import { ConclaveError, type ConclaveErrorOptions } from '@resume/core/spec';

export interface FailedBranch {
  /** The step's id. */
  id: string;
  /** Why it failed (its last attempt's error, first line). */
  message: string;
}

/**
 * One or more steps of a parallel group failed after their retries. The group's other steps
 * ran to their end first (their results are journaled), so resuming the session runs only
 * the failed steps again, each with a fresh set of attempts.
 */
export class ParallelGroupFailedError extends ConclaveError {
  static override readonly code = 'parallel-group-failed';
  readonly group: string;
  readonly failed: FailedBranch[];
  readonly completed: string[];
  constructor(
    details: { group: string; number: number; failed: FailedBranch[]; completed: string[] },
    options: ConclaveErrorOptions = {},
  ) {
    const names = details.failed.map((branch) => `"${branch.id}"`).join(', ');
    const reasons = details.failed.map((branch) => `  ${branch.id}: ${branch.message}`);
    super(
      ParallelGroupFailedError.code,
      [
        `Parallel step ${details.number} (${details.group}) failed: ${names} failed after ${details.failed.length === 1 ? 'its' : 'their'} retries${details.completed.length > 0 ? `; ${details.completed.join(', ')} completed` : ''}.`,
        ...reasons,
      ].join('\n'),
      {
        hint: 'Fix the cause and resume the session: only the failed steps of the group run again.',
        ...options,
      },
    );
    this.name = 'ParallelGroupFailedError';
    this.group = details.group;
    this.failed = details.failed;
    this.completed = details.completed;
  }
}
