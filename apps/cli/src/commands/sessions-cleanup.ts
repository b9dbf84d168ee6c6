// `conclave sessions cleanup` (and `--cleanup-sessions --older-than N`): moves old sessions
// to the trash by age and status, or applies the config's retention and archival policy, and
// deletes for good what stayed in the trash longer than `trash.keepDays`.
// Never removes running sessions, nor interrupted ones unless --status names them.

import { sessionStatusSchema, UsageError } from '@resume/core/spec';
import { ambiguousDuration, parseDurationDays, type RetentionPolicy } from '@resume/runner';
import { z } from 'zod';
import type { CliContext } from '../context/cli-context.js';
import { formatWhen, padText, truncate } from '../output/format.js';
import { applyRetention } from '../sessions/apply-retention.js';
import { shortIdsOfStore } from '../sessions/short-ids.js';
import { blobsRemovedLine, sweepUnnamedBlobs } from '../sessions/sweep-blobs.js';

const cleanupOptionsSchema = z.object({
  olderThan: z.string().optional(),
  status: z.string().optional(),
  dryRun: z.boolean().default(false),
});

export async function cleanupSessionsCommand(
  context: CliContext,
  rawOptions: Record<string, unknown>,
): Promise<number> {
  const options = cleanupOptionsSchema.parse(rawOptions);
  const statuses = options.status ? parseStatuses(options.status) : undefined;
  const { config } = context.config();
  let policy: RetentionPolicy;
  if (options.olderThan !== undefined) {
    const days = parseDurationDays(options.olderThan);
    if (days === null) {
      const ambiguous = ambiguousDuration(options.olderThan);
      throw new UsageError(
        ambiguous ? `Invalid --older-than: ${ambiguous}.` : `Invalid --older-than "${options.olderThan}".`,
        { hint: 'Give an age such as 30d, 12h, 10min or 2w (a bare number is days).' },
      );
    }
    policy = { maxAgeDays: days, minKeep: 0, ...(statuses ? { statuses } : {}) };
  } else {
    const retention = config.retention;
    if (
      retention.maxAgeDays === null &&
      retention.maxSessions === null &&
      retention.maxBytes === null &&
      config.archive.afterDays === null
    ) {
      throw new UsageError('Nothing to clean up: no --older-than given and no retention policy configured.', {
        hint: 'Pass --older-than 30d, or set retention.maxAgeDays / maxSessions / maxBytes in the config (conclave config shows it).',
      });
    }
    policy = {
      maxAgeDays: retention.maxAgeDays,
      maxSessions: retention.maxSessions,
      maxBytes: retention.maxBytes,
      minKeep: retention.minKeep,
      archiveAfterDays: config.archive.afterDays,
      statuses:
        statuses ?? (retention.includeInterrupted ? ['completed', 'failed', 'interrupted'] : ['completed', 'failed']),
    };
  }
  const engine = await context.engine();
  const outcome = await applyRetention(engine, policy, {
    now: context.environment.now(),
    dryRun: options.dryRun,
    trashKeepDays: config.trash.keepDays,
  });
  const blobsRemoved = options.dryRun ? 0 : await sweepUnnamedBlobs(context);
  const terminal = context.terminal;
  const describe = (entry: { session: { id: string; title: string; updatedAt: string }; reason: string }) => ({
    id: entry.session.id,
    title: entry.session.title,
    updatedAt: entry.session.updatedAt,
    reason: entry.reason,
  });
  if (context.options.json) {
    terminal.data(
      JSON.stringify({
        dryRun: options.dryRun,
        delete: outcome.selection.remove.map(describe),
        archive: outcome.selection.archive.map(describe),
        keptPinned: outcome.selection.pinned.map(describe),
        deleted: outcome.deleted,
        archived: outcome.archived,
        purged: outcome.purged,
        skipped: outcome.skipped,
        blobsRemoved,
      }),
    );
    return 0;
  }
  const verb = options.dryRun ? 'Would move to the trash' : 'Moved to the trash';
  const pinned = outcome.selection.pinned;
  if (pinned.length > 0)
    terminal.note(
      `Kept ${pinned.length} pinned session${pinned.length === 1 ? '' : 's'} the policy would delete (${pinned.map((entry) => entry.session.name ?? entry.session.id).join(', ')}): unpin to let it go.`,
    );
  if (outcome.purged.length > 0)
    terminal.out(
      `Deleted ${outcome.purged.length} session${outcome.purged.length === 1 ? '' : 's'} for good: in the trash for more than ${config.trash.keepDays} days.`,
    );
  const blobsLine = blobsRemovedLine(blobsRemoved);
  if (blobsLine) terminal.out(blobsLine);
  if (outcome.selection.remove.length === 0 && outcome.selection.archive.length === 0) {
    terminal.out('Nothing to clean up.');
    return 0;
  }
  const shortId = await shortIdsOfStore(context, [
    ...outcome.selection.remove.map((entry) => entry.session.id),
    ...outcome.selection.archive.map((entry) => entry.session.id),
  ]);
  const removed = options.dryRun
    ? outcome.selection.remove
    : outcome.selection.remove.filter((entry) => outcome.deleted.includes(entry.session.id));
  if (removed.length > 0) {
    terminal.out(`${verb} ${removed.length} session${removed.length === 1 ? '' : 's'}:`);
    // Short ids differ in length where sessions share a long prefix: padded, the columns line up.
    const idWidth = Math.max(...removed.map((entry) => shortId(entry.session.id).length));
    if (!options.dryRun)
      terminal.note(`Kept ${config.trash.keepDays} days: conclave sessions trash lists them, restore brings one back.`);
    for (const entry of removed)
      terminal.out(
        `  ${shortId(entry.session.id).padEnd(idWidth)}  ${formatWhen(entry.session.updatedAt)}  ${padText(entry.session.title.trim(), 50)}  ${terminal.dim(entry.reason)}`,
      );
  }
  const archived = options.dryRun
    ? outcome.selection.archive
    : outcome.selection.archive.filter((entry) => outcome.archived.includes(entry.session.id));
  if (archived.length > 0) {
    terminal.out(
      `${options.dryRun ? 'Would archive' : 'Archived'} ${archived.length} session${archived.length === 1 ? '' : 's'} (gzip, still readable):`,
    );
    for (const entry of archived) terminal.out(`  ${shortId(entry.session.id)}  ${truncate(entry.session.title, 50)}`);
  }
  for (const skipped of outcome.skipped) terminal.warn(`Skipped ${skipped.id}: ${skipped.reason}`);
  if (options.dryRun) terminal.note('Dry run: nothing was changed.');
  return 0;
}

function parseStatuses(text: string) {
  const parsed = z.array(sessionStatusSchema).safeParse(text.split(',').map((status) => status.trim()));
  if (!parsed.success)
    throw new UsageError(
      `Invalid --status "${text}": use ${sessionStatusSchema.options.join(', ')} (comma-separated).`,
    );
  return parsed.data;
}
