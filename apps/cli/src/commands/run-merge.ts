// `conclave run merge <id>`: a worktree run's branch merged into the repository it was made from.
import { mergeWorktreeRun } from '@resume/runner';
import type { CliContext } from '../context/cli-context.js';
import { resolveSession } from '../sessions/resolve-session.js';

export async function mergeWorktreeCommand(
  context: CliContext,
  input: { reference: string; options: { keep?: boolean; force?: boolean } },
): Promise<number> {
  const engine = await context.engine();
  const id = await resolveSession(context, input.reference);
  const merged = await mergeWorktreeRun(engine, id, {
    keep: input.options.keep === true,
    force: input.options.force === true,
  });
  const terminal = context.terminal;
  if (context.options.json) {
    terminal.data(JSON.stringify(merged, null, 2));
    return 0;
  }
  const into = merged.into ?? 'the detached HEAD';
  if (merged.committedLeftovers > 0) {
    const files = `${merged.committedLeftovers} file${merged.committedLeftovers === 1 ? '' : 's'}`;
    terminal.out(`Committed the ${files} the run left uncommitted on ${merged.branch}.`);
  }
  const head = merged.head.slice(0, 7);
  const said = {
    'fast-forward': `Fast-forwarded ${into} to ${merged.branch} (now at ${head}).`,
    'merge-commit': `Merged ${merged.branch} into ${into} with a merge commit (${head}).`,
    'up-to-date': `${into} already contains ${merged.branch}; nothing to merge.`,
  }[merged.outcome];
  terminal.out(terminal.green(`✓ ${said}`));
  terminal.out(
    merged.removed
      ? `Removed its worktree and the branch ${merged.branch}.`
      : `Kept its worktree and the branch ${merged.branch} (--keep).`,
  );
  return 0;
}
