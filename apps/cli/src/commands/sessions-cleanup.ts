// `conclave sessions cleanup` (and `--cleanup-sessions --older-than N`): moves old sessions
// to the trash by age and status, or applies the config's retention and archival policy, and
// deletes for good what stayed in the trash longer than `trash.keepDays`.
// Never removes running sessions, nor interrupted ones unless --status names them.
// `--langgraph-keep N` prunes every LangGraph thread to its newest N checkpoints per namespace.

import { formatBytes, sessionStatusSchema, UsageError } from '@resume/core/spec';
import { ambiguousDuration, parseDurationDays, type RetentionPolicy } from '@resume/runner';
import { z } from 'zod';
import type { CliContext } from '../context/cli-context.js';
import { formatWhen, padText, truncate } from '../output/format.js';
import type { Terminal } from '../output/terminal.js';
import { applyRetention } from '../sessions/apply-retention.js';
import type { LangGraphPruneOutcome } from '../sessions/prune-langgraph-threads.js';
import { shortIdsOfStore } from '../sessions/short-ids.js';
import { blobsRemovedLine, sweepUnnamedBlobs } from '../sessions/sweep-blobs.js';

const cleanupOptionsSchema = z.object({
  olderThan: z.string().optional(),
  status: z.string().optional(),
  dryRun: z.boolean().default(false),
  langgraphKeep: z.string().optional(),
});

export async function cleanupSessionsCommand(
  context: CliContext,
  rawOptions: Record<string, unknown>,
): Promise<number> {
  const options = cleanupOptionsSchema.parse(rawOptions);
  const statuses = options.status ? parseStatuses(options.status) : undefined;
  const { config } = context.config();
  const keep = options.langgraphKeep === undefined ? null : parseKeep(options.langgraphKeep);
  let policy: RetentionPolicy | null;
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
    const noPolicy =
      retention.maxAgeDays === null &&
      retention.maxSessions === null &&
      retention.maxBytes === null &&
      config.archive.afterDays === null;
    if (noPolicy && keep !== null) policy = null;
    else if (noPolicy) {
      throw new UsageError('Nothing to clean up: no --older-than given and no retention policy configured.', {
        hint: 'Pass --older-than 30d, or --langgraph-keep 20 to prune LangGraph threads, or set retention.maxAgeDays / maxSessions / maxBytes in the config (conclave config shows it).',
      });
    } else
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
  const langGraph =
    keep === null
      ? null
      : await (await import('../sessions/prune-langgraph-threads.js')).pruneLangGraphThreads(
          context,
          keep,
          options.dryRun,
        );
  if (!policy) {
    // What the dropped checkpoints alone named goes too.
    const blobsRemoved = options.dryRun ? 0 : await sweepUnnamedBlobs(context);
    const blobsLine = blobsRemovedLine(blobsRemoved);
    if (context.options.json)
      context.terminal.data(JSON.stringify({ dryRun: options.dryRun, langgraph: langGraph, blobsRemoved }));
    else if (langGraph)
      printLangGraph(
        context.terminal,
        langGraph,
        options.dryRun,
        await shortIdsOfStore(
          context,
          langGraph.pruned.map((thread) => thread.sessionId),
        ),
      );
    if (blobsLine && !context.options.json) context.terminal.out(blobsLine);
    if (options.dryRun && !context.options.json) context.terminal.note('Dry run: nothing was changed.');
    return 0;
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
        ...(langGraph ? { langgraph: langGraph } : {}),
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
  if (langGraph)
    printLangGraph(
      terminal,
      langGraph,
      options.dryRun,
      await shortIdsOfStore(
        context,
        langGraph.pruned.map((thread) => thread.sessionId),
      ),
    );
  if (outcome.selection.remove.length === 0 && outcome.selection.archive.length === 0) {
    if (!langGraph) terminal.out('Nothing to clean up.');
    if (langGraph && options.dryRun) terminal.note('Dry run: nothing was changed.');
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

function parseKeep(text: string): number {
  const keep = /^\d+$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  if (!Number.isSafeInteger(keep) || keep < 1) {
    throw new UsageError(
      `Invalid --langgraph-keep "${text}": give how many checkpoints each thread keeps, at least 1.`,
      {
        hint: 'For example --langgraph-keep 20 keeps the newest 20 checkpoints of each LangGraph thread (per namespace); add --dry-run to see what would go.',
      },
    );
  }
  return keep;
}

/** The threads pruned (or that would be), each with its checkpoints and bytes before and after. */
function printLangGraph(
  terminal: Terminal,
  outcome: LangGraphPruneOutcome,
  dryRun: boolean,
  shortId: (id: string) => string,
): void {
  const threads = outcome.pruned;
  const kept = `the newest ${outcome.keep} checkpoint${outcome.keep === 1 ? '' : 's'} of each namespace`;
  if (threads.length === 0) {
    terminal.out(`No LangGraph thread has more than ${kept} to drop.`);
  } else {
    terminal.out(
      `${dryRun ? 'Would prune' : 'Pruned'} ${threads.length} LangGraph thread${threads.length === 1 ? '' : 's'} to ${kept}:`,
    );
    const idWidth = Math.max(...threads.map((thread) => shortId(thread.sessionId).length));
    let freed = 0;
    for (const thread of threads) {
      const bytes =
        thread.bytesAfter === null
          ? `about ${formatBytes(thread.droppedBytes)} to free`
          : `${formatBytes(thread.bytesBefore ?? 0)} -> ${formatBytes(thread.bytesAfter)}`;
      freed +=
        thread.bytesAfter === null ? thread.droppedBytes : Math.max(0, (thread.bytesBefore ?? 0) - thread.bytesAfter);
      terminal.out(
        `  ${shortId(thread.sessionId).padEnd(idWidth)}  ${padText(truncate(thread.threadId, 30), 30)}  ${thread.checkpointsBefore} -> ${thread.checkpointsAfter} checkpoints  ${bytes}`,
      );
    }
    terminal.out(`${dryRun ? 'Would free about' : 'Freed'} ${formatBytes(freed)}.`);
  }
  if (outcome.unchanged > 0)
    terminal.note(
      `${outcome.unchanged} other LangGraph thread${outcome.unchanged === 1 ? '' : 's'} already keep${outcome.unchanged === 1 ? 's' : ''} no more than that.`,
    );
  for (const skipped of outcome.skipped)
    terminal.warn(`Skipped thread ${JSON.stringify(skipped.threadId)}: ${skipped.reason}`);
}

function parseStatuses(text: string) {
  const parsed = z.array(sessionStatusSchema).safeParse(text.split(',').map((status) => status.trim()));
  if (!parsed.success)
    throw new UsageError(
      `Invalid --status "${text}": use ${sessionStatusSchema.options.join(', ')} (comma-separated).`,
    );
  return parsed.data;
}
