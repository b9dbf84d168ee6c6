// `conclave sessions du [--top N]`: what takes the space in the data home. The biggest sessions
// (their folder and the blobs their journal names: file snapshots and large outputs) and the
// home's total, the trash, the shared blobs and the index included, with what frees the space.
import { formatBytes, type SessionSummary, UsageError } from '@resume/core/spec';
import type { HomeUsage, SessionUsage } from '@resume/storage-fs';
import type { PostgresStore } from '@resume/storage-postgres';
import { z } from 'zod';
import type { CliContext } from '../context/cli-context.js';
import { truncate } from '../output/format.js';
import { shortIdsAmong } from '../sessions/short-ids.js';

const HUMAN_DEFAULT_TOP = 10;

const duOptionsSchema = z.object({ top: z.coerce.number().int().positive().optional() });

/** Folder and the blobs only it names: what deleting the session for good frees. */
const heldBytes = (usage: SessionUsage) =>
  usage.bytes + (usage.fileSnapshots?.bytes ?? 0) + (usage.blobs?.bytes ?? 0) - (usage.shared?.bytes ?? 0);

export async function duSessionsCommand(context: CliContext, rawOptions: Record<string, unknown>): Promise<number> {
  const parsed = duOptionsSchema.safeParse(rawOptions);
  if (!parsed.success) throw new UsageError('Invalid --top: give a whole number above 0 (--top 20).');
  const store = await context.store();
  let usage: HomeUsage;
  let listed: SessionSummary[];
  if (store.kind === 'postgres') {
    usage = await (store as PostgresStore).measureUsage();
    listed = await store.list();
  } else if (store.kind === 'fs') {
    // Titles and the trash from the listing index when it vouches for itself, else from the store.
    const { readStampedListing } = await import('@resume/storage-fs/listing');
    listed = readStampedListing(store.location) ?? (await store.list());
    const { measureHome } = await import('@resume/storage-fs');
    usage = measureHome(store.location, { blobs: true });
  } else {
    throw new UsageError(`sessions du measures the file store and PostgreSQL; this config uses ${store.location}.`, {
      hint: 'Unset store.url to measure the data home, or give a postgres:// URL.',
    });
  }
  const summaries = new Map(listed.map((summary) => [summary.id, summary]));
  const ranked = [...usage.bySession].sort(
    (left, right) => heldBytes(right) - heldBytes(left) || left.id.localeCompare(right.id),
  );
  const top = ranked.slice(0, parsed.data.top ?? (context.options.json ? ranked.length : HUMAN_DEFAULT_TOP));
  const trashed = usage.bySession.filter((session) => summaries.get(session.id)?.trashedAt);
  const trash = { count: trashed.length, bytes: trashed.reduce((sum, session) => sum + session.bytes, 0) };
  const terminal = context.terminal;
  if (context.options.json) {
    terminal.data(
      JSON.stringify({
        home: usage.home,
        bytes: usage.bytes,
        sessions: { count: usage.sessionCount, bytes: usage.sessions },
        trash,
        blobs: usage.blobs,
        sharedBlobs: usage.sharedBlobs,
        index: usage.index,
        other: usage.other,
        top: top.map((session) => sessionItem(session, summaries.get(session.id))),
      }),
    );
    return 0;
  }
  printTop(context, top, summaries);
  terminal.out(totalLine(usage, trash));
  terminal.note(
    terminal.dim(
      'Free space: conclave sessions cleanup (old sessions, per retention), conclave sessions trash --empty (the trash), conclave sessions delete <id> --now.',
    ),
  );
  return 0;
}

function sessionItem(session: SessionUsage, summary: SessionSummary | undefined) {
  return {
    id: session.id,
    title: summary?.title ?? null,
    name: summary?.name ?? null,
    status: summary?.status ?? null,
    trashed: Boolean(summary?.trashedAt),
    bytes: heldBytes(session),
    folder: session.bytes,
    journal: session.journal,
    snapshots: session.snapshots,
    other: session.other,
    fileSnapshots: session.fileSnapshots,
    blobs: session.blobs,
    shared: session.shared,
  };
}

function printTop(context: CliContext, top: SessionUsage[], summaries: Map<string, SessionSummary>): void {
  const terminal = context.terminal;
  if (top.length === 0) {
    terminal.note('No sessions in this home.');
    return;
  }
  const shortId = shortIdsAmong(top.map((session) => session.id));
  const idWidth = Math.max(10, ...top.map((session) => shortId(session.id).length));
  const columns = ['TOTAL', 'JOURNAL', 'SNAPSHOTS', 'FILE SNAPSHOTS', 'BLOBS', 'SHARED', 'OTHER'];
  const widths = columns.map((column) => Math.max(9, column.length));
  const row = (cells: string[]) => cells.map((cell, position) => cell.padStart(widths[position] ?? 9)).join('  ');
  terminal.out(terminal.dim(`${'ID'.padEnd(idWidth)}  ${row(columns)}  TITLE`));
  const blobCell = (blobs: SessionUsage['blobs']) =>
    blobs === null ? '?' : blobs.count === 0 ? '-' : `${formatBytes(blobs.bytes)} (${blobs.count})`;
  for (const session of top) {
    const summary = summaries.get(session.id);
    const title = `${summary?.trashedAt ? '[trash] ' : ''}${summary?.name ?? summary?.title ?? ''}`;
    const cells = [
      formatBytes(heldBytes(session)),
      formatBytes(session.journal),
      formatBytes(session.snapshots),
      blobCell(session.fileSnapshots),
      blobCell(session.blobs),
      blobCell(session.shared),
      formatBytes(session.other),
    ];
    terminal.out(`${shortId(session.id).padEnd(idWidth)}  ${row(cells)}  ${truncate(title, 50)}`);
  }
  if (top.some((session) => session.blobs === null))
    terminal.note(terminal.dim('?: an encrypted session names its blobs sealed; they count in the blobs total.'));
  terminal.note(
    terminal.dim(
      'Blobs are stored once per content (per key on an encrypted home). SHARED: the blobs other sessions name too, counted in their columns but not in TOTAL (deleting the session does not free them); a blob goes when its last session is deleted for good.',
    ),
  );
}

function totalLine(usage: HomeUsage, trash: { count: number; bytes: number }): string {
  const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;
  const blobs = `blobs ${formatBytes(usage.blobs.bytes)} (${plural(usage.blobs.count, 'blob')}${usage.sharedBlobs?.count ? `; ${formatBytes(usage.sharedBlobs.bytes)} of them shared by several sessions, counted once` : ''})`;
  return [
    `Total ${formatBytes(usage.bytes)} in ${usage.home}:`,
    `sessions ${formatBytes(usage.sessions)} (${plural(usage.sessionCount, 'session')}; in the trash ${formatBytes(trash.bytes)}, ${trash.count}),`,
    // A database keeps nothing beside its sessions and blobs.
    usage.index === 0 && usage.other === 0
      ? `${blobs}.`
      : `${blobs}, index ${formatBytes(usage.index)}, other ${formatBytes(usage.other)}.`,
  ].join(' ');
}
