// The content index as the CLI opens it: beside the file store's listing index
// (`<home>/index/content.sqlite`), or in the data home for another store, one file per store.
// Loaded only by the commands that search.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { type SessionStore, type SessionSummary, UsageError } from '@resume/core/spec';
import type { ContentHit, ContentIndex } from '@resume/runner/search';
import type { CliContext } from '../context/cli-context.js';

export function contentIndexFile(store: Pick<SessionStore, 'kind' | 'location'>, home: string): string {
  if (store.kind === 'fs') return path.join(store.location, 'index', 'content.sqlite');
  const which = createHash('sha256').update(store.location).digest('hex').slice(0, 16);
  return path.join(home, 'index', `content-${store.kind}-${which}.sqlite`);
}

/** The index over `sessions` (the listing the command just made), up to date with them. */
export async function openContentSearch(context: CliContext, sessions: SessionSummary[]): Promise<ContentIndex> {
  if (context.config().config.encryption === 'on') {
    throw new UsageError(
      'Content search is off while encryption at rest is on: its index would keep the sessions’ words unencrypted.',
      {
        hint: 'Filter by what the listing shows instead (conclave sessions list --tag, --status, --since), or read one session: conclave sessions show <id> --transcript.',
      },
    );
  }
  const [{ openContentIndex }, store] = await Promise.all([import('@resume/runner/search'), context.store()]);
  return openContentIndex({
    file: contentIndexFile(store, context.config().config.home),
    store,
    listSessions: async () => sessions,
    onIndexing: (count) =>
      context.terminal.note(
        context.terminal.dim(`Indexing ${count} sessions for search (later searches read only what changed)…`),
      ),
  });
}

/** Where a hit is, in a few words: `round 2, critic`, `task`, `title`. */
export function describeHitPlace(hit: ContentHit): string {
  if (hit.field !== 'message') return hit.field;
  const parts = [hit.round === null ? null : `round ${hit.round}`, hit.speaker ?? hit.role];
  return parts.filter((part) => part !== null).join(', ');
}

/** The hit's snippet with its match in bold (on a terminal). */
export function highlightedSnippet(hit: ContentHit, terminal: CliContext['terminal']): string {
  return `${hit.snippet.slice(0, hit.matchStart)}${terminal.bold(hit.snippet.slice(hit.matchStart, hit.matchEnd))}${hit.snippet.slice(hit.matchEnd)}`;
}

/** What a JSON listing says of a session's first hit. */
export function hitAsJson(hit: ContentHit) {
  return {
    field: hit.field,
    seq: hit.seq,
    round: hit.round,
    role: hit.role,
    speaker: hit.speaker,
    snippet: hit.snippet,
    matchStart: hit.matchStart,
    matchEnd: hit.matchEnd,
  };
}
