// `conclave sessions list` (and `--list-sessions`): every session newest first, with the
// index other commands accept. `--json` lists every match unless --limit (docs/architecture.md#the-cli).
// Kept light: summaries come from the store's index, no journal is opened.

import { checkTags } from '@resume/core/engine';
import { permissionDeniedHint, type SessionSummary, sessionStatusSchema, UsageError } from '@resume/core/spec';
import { parseDurationDays } from '@resume/runner/config';
import type { ContentHit } from '@resume/runner/search';
import { z } from 'zod';
import type { CliContext } from '../context/cli-context.js';
import { listableModes, parseModeName } from '../modes/mode-names.js';
import { formatCost, formatWhen, padText, truncate } from '../output/format.js';
import { describeHitPlace, highlightedSnippet, openContentSearch } from '../sessions/content-search.js';
import { listedStatus, listItem } from '../sessions/list-item.js';
import { hitAsJson } from '../sessions/search-json.js';
import { describeProgress } from '../sessions/session-view.js';
import { shortIdsAmong } from '../sessions/short-ids.js';

const HUMAN_DEFAULT_LIMIT = 50;

/** Every status a listing shows: a session's own, and what the listing finds of its files. */
const LISTED_STATUSES = [...sessionStatusSchema.options, 'damaged', 'unreadable'] as const;
const STATUSES_HINT = `Statuses: ${LISTED_STATUSES.join(', ')} (several: --status interrupted,failed).`;

const listOptionsSchema = z.object({
  mode: z.string().optional(),
  status: z
    .string()
    .transform((value) => value.split(',').map((status) => status.trim()))
    .pipe(
      z.array(
        z.enum(LISTED_STATUSES, {
          error: (issue) => `Unknown status "${String(issue.input)}" for --status.`,
        }),
      ),
    )
    .optional(),
  since: z.string().optional(),
  workspace: z.boolean().optional(),
  tag: z
    .string()
    .transform((value) => value.split(',').filter((tag) => tag.trim() !== ''))
    .transform((tags) => checkTags(tags))
    .optional(),
  pinned: z.boolean().optional(),
  archived: z.boolean().optional(),
  search: z.string().optional(),
  limit: z.coerce.number().int().positive().optional(),
});

export async function listSessionsCommand(context: CliContext, rawOptions: Record<string, unknown>): Promise<number> {
  const parsed = listOptionsSchema.safeParse(rawOptions);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const option = String(issue?.path[0] ?? 'option');
    if (option === 'status') throw new UsageError(issue?.message ?? 'Unknown status.', { hint: STATUSES_HINT });
    throw new UsageError(`Invalid --${option}: ${issue?.message ?? 'invalid value'}.`, {
      hint: `Modes: ${listableModes().join(', ')}. ${STATUSES_HINT}`,
    });
  }
  const options = parsed.data;
  const since = options.since ? sinceToIso(options.since, context.environment.now()) : undefined;
  const engine = await context.engine();
  // Indexes are positions in the whole list, so they stay valid whatever the filters.
  const all = await engine.listSessions();
  const mode =
    options.mode === undefined
      ? undefined
      : parseModeName(options.mode, { listing: true, stored: all.map((summary) => summary.mode) });
  const matching = all
    .map((summary, index) => ({ summary, index: index + 1 }))
    .filter(({ summary }) => {
      if (mode && summary.mode !== mode) return false;
      if (options.status && !options.status.includes(listedStatus(summary))) return false;
      if (since && summary.updatedAt < since) return false;
      if (options.workspace && summary.workspaceDir !== context.environment.cwd) return false;
      if (options.tag && !options.tag.every((tag) => summary.tags?.includes(tag))) return false;
      if (options.pinned && !summary.pinned) return false;
      // Archived sessions are left out unless asked for, and then they are all that is listed.
      return Boolean(summary.archivedAt) === Boolean(options.archived);
    });
  const archivedLeftOut = options.archived ? 0 : all.filter((summary) => summary.archivedAt).length;
  const terminal = context.terminal;
  const limit = options.limit ?? (context.options.json ? undefined : HUMAN_DEFAULT_LIMIT);
  // With --search: the sessions with a hit, and the first hit of each one listed.
  const search =
    options.search === undefined
      ? null
      : await searchFor(context, options.search, (found) =>
          matching
            .filter(({ summary }) => found.has(summary.id))
            .slice(0, limit)
            .map(({ summary }) => summary.id),
        );
  const found = search ? matching.filter(({ summary }) => search.found.has(summary.id)) : matching;
  if (context.options.json) {
    const limited = found.slice(0, limit);
    terminal.data(
      JSON.stringify(
        limited.map(({ summary, index }) => {
          if (!search) return listItem(summary, index);
          const hit = search.hits.get(summary.id);
          return { ...listItem(summary, index), match: hit ? hitAsJson(hit) : null };
        }),
      ),
    );
    return 0;
  }
  if (found.length === 0) {
    terminal.note(
      all.length === 0
        ? 'No sessions yet. Start one with: conclave "your task"'
        : `No session matches${search ? ` "${options.search}"` : ''} (${all.length} in total${archivedLeftOut > 0 ? `, ${archivedLeftOut} archived: --archived lists them` : ''}).`,
    );
    return 0;
  }
  const shown = found.slice(0, limit);
  const shortId = shortIdsAmong(
    all.flatMap((summary) => [summary.id, ...(summary.parentId ? [summary.parentId] : [])]),
  );
  const idWidth = Math.max(10, ...shown.map(({ summary }) => shortId(summary.id).length));
  // As wide as the longest shown ("10002 checkpoints" of a LangGraph thread), within 12 to 20.
  const progressWidth = Math.min(20, Math.max(12, ...shown.map(({ summary }) => describeProgress(summary).length)));
  terminal.out(
    terminal.dim(
      `${'#'.padStart(4)}  ${'ID'.padEnd(idWidth)}  ${'UPDATED'.padEnd(16)}  ${'STATUS'.padEnd(11)}  ${'MODE'.padEnd(12)}  ${'PROGRESS'.padEnd(progressWidth)}  ${'COST'.padEnd(9)}  TITLE`,
    ),
  );
  for (const { summary, index } of shown) {
    const status = listedStatus(summary).padEnd(11);
    const coloured =
      summary.status === 'completed' && !summary.damage && !summary.unreadable
        ? terminal.green(status)
        : summary.status === 'failed' || summary.damage || summary.unreadable
          ? terminal.red(status)
          : terminal.yellow(status);
    terminal.out(
      `${String(index).padStart(4)}  ${shortId(summary.id).padEnd(idWidth)}  ${formatWhen(summary.updatedAt).padEnd(16)}  ${coloured}  ${summary.mode.padEnd(12)}  ${padText(describeProgress(summary), progressWidth)}  ${formatCost(summary.costUsd, '?').padEnd(9)}  ${organizedTitle(summary, terminal)}${wakeNote(summary, context.environment.now(), terminal)}${summary.parentId ? terminal.dim(` ← ${shortId(summary.parentId)}`) : ''}`,
    );
    const hit = search?.hits.get(summary.id);
    if (hit)
      terminal.out(`${' '.repeat(6)}${terminal.dim(`${describeHitPlace(hit)}:`)} ${highlightedSnippet(hit, terminal)}`);
  }
  if (found.length > shown.length)
    terminal.note(
      terminal.dim(`… ${found.length - shown.length} more (use --limit ${found.length}, or --json for all)`),
    );
  if (archivedLeftOut > 0)
    terminal.note(
      terminal.dim(
        `${archivedLeftOut} archived session${archivedLeftOut === 1 ? '' : 's'} not shown (--archived lists them)`,
      ),
    );
  for (const { summary } of shown.filter(({ summary }) => summary.unreadable)) {
    terminal.note(
      `${terminal.red('unreadable:')} ${shortId(summary.id)}: ${summary.unreadable?.problem}. ${permissionDeniedHint(summary.unreadable?.path ?? '')}`,
    );
  }
  for (const { summary } of shown.filter(({ summary }) => summary.damage && !summary.unreadable)) {
    terminal.note(
      `${terminal.red('damaged:')} ${shortId(summary.id)}: ${summary.damage?.problem}. See what a repair would do: conclave sessions repair ${summary.id} --dry-run`,
    );
  }
  return 0;
}

/**
 * The sessions with a hit for `query` (from the content index, no journal scanned), and the
 * first hit of each one the listing shows (`shownOf` picks them among those found).
 */
async function searchFor(
  context: CliContext,
  query: string,
  shownOf: (found: Set<string>) => string[],
): Promise<{ found: Set<string>; hits: Map<string, ContentHit> }> {
  const { parseQuery } = await import('@resume/runner/search');
  if (parseQuery(query).length === 0) {
    throw new UsageError('--search needs at least one word.', {
      hint: 'conclave sessions list --search "event sourcing"',
    });
  }
  const index = await openContentSearch(context);
  try {
    const found = await index.matchingSessions(query);
    const hits = new Map<string, ContentHit>();
    for await (const hit of index.sessionHits(query, { sessionIds: shownOf(found) })) hits.set(hit.sessionId, hit);
    return { found, hits };
  } finally {
    index.close();
  }
}

/** A sleeping session's wake time; one past it is due, for whoever recovers it. */
function wakeNote(summary: SessionSummary, now: Date, terminal: CliContext['terminal']): string {
  if (summary.status !== 'sleeping' || !summary.wakeAt) return '';
  const due = Date.parse(summary.wakeAt) <= now.getTime();
  return terminal.dim(`  ${due ? 'due to wake since' : 'wakes'} ${formatWhen(summary.wakeAt)}`);
}

/** The title, after the session's name when it has one, then its pin and tags. */
function organizedTitle(summary: SessionSummary, terminal: CliContext['terminal']): string {
  const name = summary.name ? `${terminal.bold(truncate(summary.name, 40))}  ` : '';
  const marks = [
    ...(summary.pinned ? ['pinned'] : []),
    ...(summary.tags ?? []).map((tag) => `#${tag}`),
    ...(summary.job ? [`job ${summary.job.name} v${summary.job.version}`] : []),
  ];
  return `${name}${truncate(summary.title, summary.name ? 40 : 60)}${marks.length > 0 ? terminal.dim(`  ${marks.join(' ')}`) : ''}`;
}

/** `--since`: a date (2026-06-01) or an age (7d, 12h) before `now`, as an ISO time. */
export function sinceToIso(value: string, now: Date): string {
  const days = parseDurationDays(value);
  if (days !== null) return new Date(now.getTime() - days * 24 * 60 * 60 * 1000).toISOString();
  const date = new Date(value);
  if (Number.isNaN(date.getTime()))
    throw new UsageError(`Invalid --since "${value}": give a date (2026-06-01) or an age (7d, 12h).`);
  return date.toISOString();
}
