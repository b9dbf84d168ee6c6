// Short session ids for people to read and type back: at least 10 characters, longer where
// sessions created in the same second would otherwise look the same (and resolve to neither).
import { uniqueIdPrefixes } from '@resume/core/spec';
import type { CliContext } from '../context/cli-context.js';

/** The shortest unique prefix of each id among `ids`. */
export function shortIdsAmong(ids: Iterable<string>): (id: string) => string {
  const prefixes = uniqueIdPrefixes(ids);
  return (id) => prefixes.get(id) ?? id;
}

/** The same among every session of the store, plus `alsoShown` (e.g. sessions just deleted). */
export async function shortIdsOfStore(
  context: CliContext,
  alsoShown: Iterable<string> = [],
): Promise<(id: string) => string> {
  const sessions = await (await context.engine()).listSessions();
  return shortIdsAmong([...sessions.map((session) => session.id), ...alsoShown]);
}
