// The content index as the CLI opens it: beside the file store's listing index
// (`<home>/index/content.sqlite`), or in the data home for another store, one file per store.
// Loaded only by the commands that search.
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { SessionStore, SessionSummary } from '@resume/core/spec';
import type { ContentHit, ContentIndex, WordKey } from '@resume/runner/search';
import type { CliContext } from '../context/cli-context.js';

export function contentIndexFile(store: Pick<SessionStore, 'kind' | 'location'>, home: string): string {
  if (store.kind === 'fs') return path.join(store.location, 'index', 'content.sqlite');
  const which = createHash('sha256').update(store.location).digest('hex').slice(0, 16);
  return path.join(home, 'index', `content-${store.kind}-${which}.sqlite`);
}

/**
 * The content index of the configured store, as `sessions search`, `sessions list --search` and
 * `conclave usage` open it. For the file store nothing else is opened while the sessions folder
 * keeps the stamp the index last saw: the store (and its listing) only when something changed.
 */
export async function openContentSearch(
  context: CliContext,
  options: { onIndexing?: (count: number) => void } = {},
): Promise<ContentIndex> {
  const config = context.config().config;
  const wordKey = await contentWordKey(context);
  const directory = fileStoreDirectory(config.store.url, config.home);
  const [{ openContentIndex }, listing] = await Promise.all([
    import('@resume/runner/search'),
    directory === null ? null : import('@resume/storage-fs/listing'),
  ]);
  const file =
    directory === null
      ? contentIndexFile(await context.store(), config.home)
      : path.join(listing?.resolveHome(directory) ?? directory, 'index', 'content.sqlite');
  // The store is opened when the index must list it or read a journal, not before.
  const store: Pick<SessionStore, 'list' | 'read'> = {
    list: async (query) => (await context.store()).list(query),
    read: async function* (sessionId, range) {
      yield* (await context.store()).read(sessionId, range);
    },
  };
  return openContentIndex({
    file,
    store,
    ...(wordKey ? { wordKey } : {}),
    ...(listing && directory !== null ? { storeStamp: (previous) => listing.sessionsStamp(directory, previous) } : {}),
    onIndexing:
      options.onIndexing ??
      ((count) =>
        context.terminal.note(
          context.terminal.dim(`Indexing ${count} sessions for search (later searches read only what changed)…`),
        )),
  });
}

/**
 * The key an encrypted home's content index hashes its words under: the current data key (the
 * index is built again when it changes). Undefined in the clear; without a key, the same error
 * as any command that writes to the encrypted home (the way to make or supply one).
 */
export async function contentWordKey(context: CliContext): Promise<WordKey | undefined> {
  const loaded = context.config();
  if (loaded.config.encryption !== 'on') return undefined;
  const { configuredKeySource, loadKeyring } = await import('../keys/data-keys.js');
  const keyring = loadKeyring({
    home: loaded.config.home,
    env: context.environment.env,
    cwd: context.environment.cwd,
    encrypt: true,
    configured: configuredKeySource(loaded),
  });
  return keyring?.current() ?? undefined;
}

/** The file store's folder for the configured store URL (as `openStore` reads it); null for another store. */
function fileStoreDirectory(url: string | null, home: string): string | null {
  if (!url) return home;
  if (url.startsWith('file://')) return URL.canParse(url) ? new URL(url).pathname : null;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return null;
  return url.replace(/^file:/, '');
}

/**
 * The sessions as `sessions list` shows them: a session marked running whose process is gone
 * reads as interrupted (its lease is asked only then).
 */
export async function withLiveStatus<Summary extends Pick<SessionSummary, 'id' | 'status'>>(
  context: CliContext,
  summary: Summary,
): Promise<Summary> {
  if (summary.status !== 'running') return summary;
  const holder = await (await context.store()).inspectLease(summary.id);
  return holder ? summary : { ...summary, status: 'interrupted' };
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
