// `conclave sessions search <words> --json` (with `--limit`, `--home`) answered without the
// command line parser, the config loader, zod or the store, while the content index can vouch
// for itself: the sessions folder keeps the stamp the index last saw, so nothing changed since
// and no journal needs reading. Anything else (other options, a config file, a store URL, a
// changed folder, a hit in a running session whose lease must be checked) returns null, and
// the full command runs.
import { statSync } from 'node:fs';
import path from 'node:path';
import type { SessionStore } from '@resume/core/spec';
import { openContentIndex, parseQuery } from '@resume/runner/search';
import { resolveHome, sessionsStamp } from '@resume/storage-fs/listing';
import { plainHome, type QuickListEnvironment } from './quick-list.js';
import { JSON_DEFAULT_LIMIT, searchHitsJson } from './search-json.js';

/** The words, `--limit` and `--home` of a plain `sessions search … --json`; null for any other command line. */
export function quickSearchArguments(
  args: readonly string[],
): { query: string; limit: number | undefined; home: string | undefined } | null {
  if (args[0] !== 'sessions' || args[1] !== 'search') return null;
  const words: string[] = [];
  const options = new Map<string, string>();
  let json = false;
  for (let position = 2; position < args.length; position += 1) {
    const argument = args[position] as string;
    if (argument === '--json' && !json) json = true;
    else if ((argument === '--home' || argument === '--limit') && !options.has(argument)) {
      const value = args[position + 1];
      if (value === undefined || value === '' || value.startsWith('-')) return null;
      options.set(argument, value);
      position += 1;
    } else if (argument.startsWith('-')) return null;
    else words.push(argument);
  }
  const limit = options.get('--limit');
  if (!json || words.length === 0 || (limit !== undefined && !/^[1-9][0-9]{0,8}$/.test(limit))) return null;
  return {
    query: words.join(' '),
    limit: limit === undefined ? undefined : Number(limit),
    home: options.get('--home'),
  };
}

/** Thrown to the index when it would have to ask the store: the full command answers then. */
class StoreNeeded extends Error {}

const noStore: Pick<SessionStore, 'list' | 'read'> = {
  list: () => Promise.reject(new StoreNeeded()),
  read: () => {
    throw new StoreNeeded();
  },
};

/** The JSON `sessions search … --json` prints, or null when the full command must answer. */
export async function quickSearchJson(
  args: readonly string[],
  environment: QuickListEnvironment,
): Promise<string | null> {
  const parsed = quickSearchArguments(args);
  if (!parsed || parseQuery(parsed.query).length === 0) return null;
  const home = plainHome(parsed.home, environment);
  if (home === null) return null;
  const file = path.join(resolveHome(home), 'index', 'content.sqlite');
  if (!statSync(file, { throwIfNoEntry: false })?.isFile()) return null;
  let index: Awaited<ReturnType<typeof openContentIndex>> | null = null;
  try {
    index = await openContentIndex({ file, store: noStore, storeStamp: (previous) => sessionsStamp(home, previous) });
    const hits = await index.search(parsed.query, { limit: parsed.limit ?? JSON_DEFAULT_LIMIT });
    // A running session is shown as interrupted when no live process holds it: the store checks.
    if (hits.some((hit) => index?.summary(hit.sessionId)?.status === 'running')) return null;
    return await searchHitsJson(index, hits, async (summary) => summary);
  } catch {
    // The index could not answer alone (a change to read, no node:sqlite, a damaged file): the full command will.
    return null;
  } finally {
    index?.close();
  }
}
