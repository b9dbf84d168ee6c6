// `conclave [options] "task"` and the root flags: the source document's
// `--list-sessions` style aliases, `--continue`, `--resume`, `--branch-from`, or a new
// discussion. Decides which flow runs; the flows live in runs/.
import { UsageError } from '@resume/core/spec';
import type { CliContext } from '../context/cli-context.js';
import type { CommandNames } from './mistyped-command.js';

export interface RootInput {
  task: string;
  options: Record<string, unknown>;
  /** How the task was typed: a task that looks like a mistyped command is not run as a topic. */
  typed?: {
    argv: readonly string[];
    words: readonly string[];
    commands: CommandNames;
    rerun(argv: readonly string[]): Promise<number>;
  };
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
    return deleteSessionCommand(context, {
      reference: options.deleteSession,
      options: { yes: options.yes, force: options.force },
    });
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
  if (input.task) {
    const corrected = input.typed ? await checkMistypedCommand(context, input.typed) : null;
    if (corrected !== null) return corrected;
    return runSessionFlow(context, { kind: 'start', task: input.task, options });
  }
  throw new UsageError('No task given.', {
    hint: 'Start a discussion with: conclave "your task"   (or see conclave --help)',
  });
}

/**
 * A task that looks like a mistyped command: in a terminal the user says what was meant (the
 * corrected command runs, or the topic does); without one it is refused. Null: run the task.
 * After `--` the task is always a topic.
 */
async function checkMistypedCommand(
  context: CliContext,
  typed: NonNullable<RootInput['typed']>,
): Promise<number | null> {
  if (typed.argv.includes('--')) return null;
  const { mistypedCommand, mistypedCommandError, mistypedCommandQuestion } = await import('./mistyped-command.js');
  const mistyped = mistypedCommand(typed.words, typed.commands);
  if (mistyped === null) return null;
  if (!context.environment.interactive || context.options.json) throw mistypedCommandError(mistyped, typed.commands);
  const { askYesNo } = await import('../output/ask-yes-no.js');
  const yes = await askYesNo(context.environment.streams.stderr, mistypedCommandQuestion(mistyped));
  if (!yes) {
    context.terminal.note(`Nothing was started. To discuss it as a topic: conclave -- "${mistyped.task}"`);
    return 0;
  }
  if (mistyped.suggestion === null) return null;
  return typed.rerun(correctedArgv(typed, mistyped.suggestion));
}

/** The command line with the task's words replaced by the corrected command. */
function correctedArgv(typed: NonNullable<RootInput['typed']>, suggestion: string): string[] {
  const rest = [...typed.argv];
  for (const word of [...typed.words].reverse()) {
    const index = rest.lastIndexOf(word);
    if (index >= 0) rest.splice(index, 1);
  }
  return [...suggestion.split(' ').slice(1), ...rest];
}
