// Where the data home is and which config files can move it, without zod, the YAML parser or
// anything else: the config loader and the CLI's quick listing (which answers before either
// loads) both find the home with these, so they cannot drift apart.
import path from 'node:path';

/** The workspace config file, looked up in the working directory. */
export const WORKSPACE_CONFIG_FILE = '.conclave.yaml';
/** The config file inside the data home. */
export const HOME_CONFIG_FILE = 'config.yaml';

/** The data home when neither `--home`, `$CONCLAVE_HOME` nor a workspace config names one. */
export function defaultHome(userHome: string): string {
  return path.join(userHome, '.conclave');
}

/** A home as written in `--home`, `$CONCLAVE_HOME` or a config file: `~` is the user's home, relative paths start at `base`. */
export function expandHome(value: string, userHome: string, base: string): string {
  if (value === '~') return userHome;
  if (value.startsWith('~/')) return path.join(userHome, value.slice(2));
  return path.resolve(base, value);
}
