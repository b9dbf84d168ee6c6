// `conclave sessions delete <id>` (and `--delete-session`). In a terminal it asks first
// (`--force` skips the question), since a list index or a short prefix easily names the
// wrong session; sessions that continue from the deleted one are named, because they keep
// their own history and lose their parent link. A session a live process is running is never deleted (75):
// its files would vanish under the writer.
import { SessionLockedError } from '@resume/core/spec';
import { z } from 'zod';
import type { CliContext } from '../context/cli-context.js';
import { formatWhen, truncate } from '../output/format.js';
import { screenIo } from '../runs/decisions.js';
import { resolveSession } from '../sessions/resolve-session.js';

export async function deleteSessionCommand(
  context: CliContext,
  input: { reference: string; options: Record<string, unknown> },
): Promise<number> {
  const options = z.object({ force: z.boolean().default(false) }).parse(input.options);
  const engine = await context.engine();
  const id = await resolveSession(context, input.reference);
  const summary = await engine.store.getSummary(id);
  // Refused before asking: the question would be pointless while the session runs.
  const holder = await engine.store.inspectLease(id);
  if (holder) throw new SessionLockedError(id, holder);
  const children = (await engine.listSessions({})).filter((session) => session.parentId === id);
  const childLines = children.map((child) => `${child.id} "${truncate(child.title, 50)}"`);
  if (!options.force && context.environment.interactive && !context.options.json) {
    const tui = await import('@resume/tui');
    const yes = await tui.confirmDelete(
      {
        sessionId: id,
        title: summary?.title ?? id,
        details: summary
          ? `${summary.status} · ${summary.mode} · updated ${formatWhen(summary.updatedAt)}`
          : 'no summary',
        children: childLines,
      },
      screenIo(context),
    );
    if (!yes) {
      context.terminal.note(`Not deleted; session ${id} is unchanged.`);
      return 0;
    }
  }
  await engine.deleteSession(id);
  if (context.options.json)
    context.terminal.data(JSON.stringify({ deleted: [id], orphaned: children.map((c) => c.id) }));
  else context.terminal.out(`Deleted session ${id}${summary ? ` "${summary.title}"` : ''}.`);
  if (children.length > 0)
    context.terminal.warn(
      `${children.length === 1 ? '1 child session keeps its own history and lost its parent link' : `${children.length} child sessions keep their own history and lost their parent link`}: ${childLines.join(', ')}`,
    );
  return 0;
}
