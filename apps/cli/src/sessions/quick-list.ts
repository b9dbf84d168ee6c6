// `conclave sessions list --json` (optionally with `--home <dir>`) answered without the command
// line parser, the config loader, zod or the engine: the data home is found as the config
// loader finds it, and the summaries come from the store's listing index when its stamp vouches
// for it (`@resume/storage-fs/listing`). Anything this path does not handle exactly as the full
// command would (other options, a config file, a store URL, a running session whose lease must
// be checked, an index that cannot vouch for itself) returns null, and the full command runs.
import { statSync } from 'node:fs';
import path from 'node:path';
import { defaultHome, expandHome, HOME_CONFIG_FILE, WORKSPACE_CONFIG_FILE } from '@resume/runner/home';
import { readStampedListing } from '@resume/storage-fs/listing';
import { listItem } from './list-item.js';

export interface QuickListEnvironment {
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  userHome: string;
}

/** The `--home` of a plain `sessions list --json` (undefined when not given); null for any other command line. */
export function quickListArguments(args: readonly string[]): { home: string | undefined } | null {
  if (args[0] !== 'sessions' || (args[1] !== 'list' && args[1] !== 'ls')) return null;
  let json = false;
  let home: string | undefined;
  for (let position = 2; position < args.length; position += 1) {
    const argument = args[position] as string;
    if (argument === '--json' && !json) json = true;
    else if (argument === '--home' && home === undefined) {
      const value = args[position + 1];
      if (value === undefined || value === '' || value.startsWith('-')) return null;
      home = value;
      position += 1;
    } else if (argument.startsWith('--home=') && home === undefined && argument.length > '--home='.length)
      home = argument.slice('--home='.length);
    else return null;
  }
  return json ? { home } : null;
}

/** The JSON `sessions list --json` prints, or null when the full command must answer. */
export function quickListJson(args: readonly string[], environment: QuickListEnvironment): string | null {
  const parsed = quickListArguments(args);
  if (!parsed) return null;
  const home = plainHome(parsed.home, environment);
  if (home === null) return null;
  const summaries = readStampedListing(home);
  // A running session is shown as interrupted when no live process holds it: the engine checks.
  if (!summaries || summaries.some((summary) => summary.status === 'running')) return null;
  // Sessions in the trash are not listed (nor numbered); archived ones keep their number, unlisted.
  const items = [];
  let position = 0;
  for (const summary of summaries) {
    if (summary.trashedAt) continue;
    position += 1;
    if (!summary.archivedAt) items.push(listItem(summary, position));
  }
  return JSON.stringify(items);
}

/**
 * The data home as the config loader finds it (`--home`, `$CONCLAVE_HOME`, the default), when
 * no config file or store URL could say otherwise (null then: the full command resolves those).
 */
export function plainHome(given: string | undefined, environment: QuickListEnvironment): string | null {
  const { env, cwd, userHome } = environment;
  if (env.CONCLAVE_STORE_URL || mayExist(path.resolve(cwd, WORKSPACE_CONFIG_FILE))) return null;
  const home = given
    ? expandHome(given, userHome, cwd)
    : env.CONCLAVE_HOME
      ? expandHome(env.CONCLAVE_HOME, userHome, cwd)
      : defaultHome(userHome);
  return mayExist(path.join(home, HOME_CONFIG_FILE)) ? null : home;
}

function mayExist(file: string): boolean {
  try {
    return statSync(file, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return true;
  }
}
