// `conclave tui`: the full-screen session browser. What the user picks there is run
// like the matching command: resumed in place, or continued with a follow-up typed in the TUI.
import { UsageError } from '@resume/core/spec';
import type { CliContext } from '../context/cli-context.js';
import { screenIo } from '../runs/decisions.js';
import { openSessionBackend } from '../runs/session-backend.js';

export async function openBrowserCommand(context: CliContext): Promise<number> {
  if (!context.environment.interactive)
    throw new UsageError('The session browser needs a terminal.', {
      hint: 'In scripts use: conclave sessions list --json   and   conclave sessions show <id> --json',
    });
  const { tui, backend } = await openSessionBackend(context);
  const picked = await tui.openSessionBrowser(backend, {
    workspaceDir: context.environment.cwd,
    ...screenIo(context),
  });
  if (!picked) return 0;
  const [{ parseRunFlags }, { runPicked }] = await Promise.all([
    import('../runs/run-flags.js'),
    import('../runs/session-flows.js'),
  ]);
  return runPicked(context, picked, parseRunFlags({}));
}
