// `conclave tui`: the full-screen session browser. What the user picks there is run
// like the matching command (resume in place, or continue with a follow-up).
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
  const picked = await tui.openSessionBrowser(backend, screenIo(context));
  if (!picked) return 0;
  const { runSessionFlow } = await import('../runs/session-flows.js');
  if (picked.action === 'resume')
    return runSessionFlow(context, { kind: 'resume', task: '', options: { resume: picked.sessionId } });
  context.terminal.note(`Continue it with: ${tui.commandFor(picked)}`);
  return runSessionFlow(context, { kind: 'resume', task: '', options: { resume: picked.sessionId } });
}
