// `conclave sessions delete <id>` (and `--delete-session`): moves the session to the trash
// (`sessions restore` brings it back; `--now` deletes it for good). In a terminal it asks first
// (`--yes`, or `--force`, skips the question), since a list index or a short prefix easily names the
// wrong session; sessions that continue from the deleted one are named, because they keep
// their own history and lose their parent link. A session a live process is running is never deleted (75):
// its files would vanish under the writer.
import { JournalCorruptedError, SessionLockedError } from '@resume/core/spec';
import { z } from 'zod';
import type { CliContext } from '../context/cli-context.js';
import { formatWhen, truncate } from '../output/format.js';
import { screenIo } from '../runs/decisions.js';
import { resolveSession } from '../sessions/resolve-session.js';

export async function deleteSessionCommand(
  context: CliContext,
  input: { reference: string; options: Record<string, unknown> },
): Promise<number> {
  const options = z
    .object({ yes: z.boolean().default(false), force: z.boolean().default(false), now: z.boolean().default(false) })
    .parse(input.options);
  const engine = await context.engine();
  const id = await resolveSession(context, input.reference);
  const summary = await engine.store.getSummary(id);
  // Refused before asking: the question would be pointless while the session runs.
  const holder = await engine.store.inspectLease(id);
  if (holder) throw new SessionLockedError(id, holder);
  const children = (await engine.listSessions({})).filter((session) => session.parentId === id);
  const childLines = children.map((child) => `${child.id} "${truncate(child.title, 50)}"`);
  const toTrash = !options.now && !summary?.trashedAt;
  if (!options.yes && !options.force && context.environment.interactive && !context.options.json) {
    const tui = await import('@resume/tui');
    const yes = await tui.confirmDelete(
      {
        sessionId: id,
        title: summary?.title ?? id,
        details: summary
          ? `${summary.status} · ${summary.mode} · updated ${formatWhen(summary.updatedAt)}`
          : 'no summary',
        children: childLines,
        toTrash,
      },
      screenIo(context),
    );
    if (!yes) {
      context.terminal.note(`Not deleted; session ${id} is unchanged.`);
      return 0;
    }
  }
  if (toTrash) {
    await engine.changeMetadata(id, { trashed: true }).catch((error: unknown) => {
      // Moving to the trash appends to the journal, which a damaged one refuses.
      if (JournalCorruptedError.isInstance(error))
        context.terminal.note(
          `Session ${id} cannot go to the trash while its journal is damaged: repair it first (conclave sessions repair ${id}), or delete it for good (conclave sessions delete ${id} --now).`,
        );
      throw error;
    });
    const keepDays = context.config().config.trash.keepDays;
    if (context.options.json)
      context.terminal.data(
        JSON.stringify({ deleted: [id], trash: true, orphaned: [], continuedBy: children.map((c) => c.id) }),
      );
    else {
      context.terminal.out(
        `Moved session ${id}${summary ? ` "${summary.title}"` : ''} to the trash (kept ${keepDays} days): conclave sessions restore ${id} brings it back; --now deletes it for good.`,
      );
      if (children.length > 0)
        context.terminal.note(
          `${children.length === 1 ? '1 child session keeps its parent link until the trash is emptied' : `${children.length} child sessions keep their parent link until the trash is emptied`}: ${childLines.join(', ')}`,
        );
    }
    return 0;
  }
  await engine.deleteSession(id);
  if (context.options.json)
    context.terminal.data(JSON.stringify({ deleted: [id], trash: false, orphaned: children.map((c) => c.id) }));
  else context.terminal.out(`Deleted session ${id}${summary ? ` "${summary.title}"` : ''} for good.`);
  if (children.length > 0)
    context.terminal.warn(
      `${children.length === 1 ? '1 child session keeps its own history and lost its parent link' : `${children.length} child sessions keep their own history and lost their parent link`}: ${childLines.join(', ')}`,
    );
  return 0;
}
