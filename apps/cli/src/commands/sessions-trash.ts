// `conclave sessions trash [--empty | --older-than 3d]` and `conclave sessions restore <id>`:
// the sessions `sessions delete` and retention moved to the trash, kept `trash.keepDays`
// (their files untouched, compressed or not as they were), brought back with their lineage
// (a session in the trash keeps its id, so parents and children still point at it), or
// deleted for good to free the space.
import { type SessionSummary, UsageError } from '@resume/core/spec';
import { ambiguousDuration, formatBytes, parseDurationDays } from '@resume/runner';
import { z } from 'zod';
import type { CliContext } from '../context/cli-context.js';
import { formatWhen, truncate } from '../output/format.js';
import { expiredTrash, trashExpiry } from '../sessions/apply-retention.js';
import { resolveSession } from '../sessions/resolve-session.js';
import { shortIdsAmong } from '../sessions/short-ids.js';
import { blobsRemovedLine, sweepUnnamedBlobs } from '../sessions/sweep-blobs.js';

const trashOptionsSchema = z.object({ empty: z.boolean().default(false), olderThan: z.string().optional() });

export async function trashCommand(context: CliContext, rawOptions: Record<string, unknown>): Promise<number> {
  const options = trashOptionsSchema.parse(rawOptions);
  if (options.empty && options.olderThan !== undefined)
    throw new UsageError('Give --empty or --older-than, not both.', {
      hint: 'conclave sessions trash --empty deletes everything in it; --older-than 3d what has been there longer.',
    });
  const engine = await context.engine();
  const keepDays = context.config().config.trash.keepDays;
  const trash = await engine.listTrash();
  const terminal = context.terminal;
  if (options.empty || options.olderThan !== undefined) {
    const chosen = options.empty
      ? trash
      : expiredTrash(trash, olderThanDays(options.olderThan ?? ''), context.environment.now());
    const deleted: string[] = [];
    let bytes = 0;
    for (const session of chosen) {
      await engine.deleteSession(session.id);
      deleted.push(session.id);
      bytes += session.bytes ?? 0;
    }
    const blobsRemoved = await sweepUnnamedBlobs(context);
    if (context.options.json) {
      terminal.data(JSON.stringify({ deleted, bytes, blobsRemoved }));
      return 0;
    }
    terminal.out(
      deleted.length === 0
        ? `Nothing to delete: ${trash.length === 0 ? 'the trash is empty' : `the ${trash.length} in the trash are newer`}.`
        : `Deleted ${deleted.length} session${deleted.length === 1 ? '' : 's'} from the trash for good${bytes > 0 ? ` (${formatBytes(bytes)} freed)` : ''}.`,
    );
    const blobsLine = blobsRemovedLine(blobsRemoved);
    if (blobsLine) terminal.out(blobsLine);
    return 0;
  }
  if (context.options.json) {
    terminal.data(JSON.stringify(trash.map((session) => trashItem(session, keepDays))));
    return 0;
  }
  if (trash.length === 0) {
    terminal.note('The trash is empty.');
    return 0;
  }
  const shortId = shortIdsAmong(trash.map((session) => session.id));
  const idWidth = Math.max(10, ...trash.map((session) => shortId(session.id).length));
  terminal.out(
    terminal.dim(`${'ID'.padEnd(idWidth)}  ${'TRASHED'.padEnd(16)}  ${'DELETED FOR GOOD'.padEnd(16)}  TITLE`),
  );
  for (const session of trash) {
    const expires = trashExpiry(session, keepDays);
    terminal.out(
      `${shortId(session.id).padEnd(idWidth)}  ${formatWhen(session.trashedAt ?? '').padEnd(16)}  ${(expires ? formatWhen(expires) : '?').padEnd(16)}  ${truncate(session.name ?? session.title, 60)}`,
    );
  }
  terminal.note(
    terminal.dim('Bring one back: conclave sessions restore <id>. Free the space: conclave sessions trash --empty'),
  );
  return 0;
}

function trashItem(session: SessionSummary, keepDays: number) {
  return {
    id: session.id,
    title: session.title,
    name: session.name ?? null,
    mode: session.mode,
    status: session.status,
    parentId: session.parentId,
    updatedAt: session.updatedAt,
    trashedAt: session.trashedAt ?? null,
    expiresAt: trashExpiry(session, keepDays),
    bytes: session.bytes ?? null,
  };
}

function olderThanDays(text: string): number {
  const days = parseDurationDays(text);
  if (days !== null) return days;
  const ambiguous = ambiguousDuration(text);
  throw new UsageError(ambiguous ? `Invalid --older-than: ${ambiguous}.` : `Invalid --older-than "${text}".`, {
    hint: 'Give how long a session has been in the trash: 3d, 12h, 2w (a bare number is days).',
  });
}

export async function restoreCommand(
  context: CliContext,
  input: { reference: string; options: Record<string, unknown> },
): Promise<number> {
  const engine = await context.engine();
  const id = await resolveSession(context, input.reference);
  const before = await engine.store.getSummary(id);
  if (!before?.trashedAt)
    throw new UsageError(`Session ${id} is not in the trash.`, {
      hint: 'The sessions in the trash: conclave sessions trash',
    });
  const summary = await engine.changeMetadata(id, { trashed: false });
  if (context.options.json) context.terminal.data(JSON.stringify({ restored: id }));
  else context.terminal.out(`Restored session ${id} "${summary.name ?? summary.title}" from the trash.`);
  return 0;
}
