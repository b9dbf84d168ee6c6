// `conclave [options] "task"` and the root flags: the source document's
// `--list-sessions` style aliases, `--continue`, `--resume`, `--branch-from`, or a new
// discussion. Decides which flow runs; the flows live in runs/.
import { UsageError } from '@resume/core/spec';
import type { CliContext } from '../context/cli-context.js';

export interface RootInput {
  task: string;
  options: Record<string, unknown>;
}

export async function runRootCommand(context: CliContext, input: RootInput): Promise<number> {
  const options = input.options;
  if (options.listSessions) {
    const { listSessionsCommand } = await import('./sessions-list.js');
    return listSessionsCommand(context, { mode: options.mode, status: options.status, limit: options.limit });
  }
  if (typeof options.showSession === 'string') {
    const { showSessionCommand } = await import('./sessions-show.js');
    return showSessionCommand(context, { reference: options.showSession, options: {} });
  }
  if (typeof options.deleteSession === 'string') {
    const { deleteSessionCommand } = await import('./sessions-delete.js');
    return deleteSessionCommand(context, { reference: options.deleteSession, options: { force: options.force } });
  }
  if (options.cleanupSessions) {
    const { cleanupSessionsCommand } = await import('./sessions-cleanup.js');
    return cleanupSessionsCommand(context, {
      olderThan: options.olderThan,
      status: options.status,
      dryRun: options.dryRun,
    });
  }
  const [{ checkFlagCombinations }, { runSessionFlow }] = await Promise.all([
    import('../runs/flag-combinations.js'),
    import('../runs/session-flows.js'),
  ]);
  checkFlagCombinations({ options, task: input.task });
  if (options.branchFrom !== undefined) return runSessionFlow(context, { kind: 'branch', task: input.task, options });
  if (options.continue !== undefined) return runSessionFlow(context, { kind: 'continue', task: input.task, options });
  if (options.resume !== undefined) return runSessionFlow(context, { kind: 'resume', task: input.task, options });
  if (input.task) return runSessionFlow(context, { kind: 'start', task: input.task, options });
  throw new UsageError('No task given.', {
    hint: 'Start a discussion with: conclave "your task"   (or see conclave --help)',
  });
}
