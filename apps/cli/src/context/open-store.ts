// Opens the session store the config points at: PostgreSQL for a `postgres://` URL,
// otherwise the embedded file store in the data home. Each store is imported only
// when chosen, so the file-store path never loads the PostgreSQL driver.
import type { Keyring } from '@resume/core/encryption';
import type { SessionStore } from '@resume/core/spec';
import { UsageError } from '@resume/core/spec';
import type { ServerWait } from '@resume/storage-postgres';
import { maskUrlCredentials } from '../output/mask-credentials.js';

export interface OpenStoreOptions {
  url: string | null;
  home: string;
  /** Where a line saying that the store waits for its server goes (stderr). */
  say?: (line: string) => void;
  /** The data keys (keys/data-keys.ts): null when there are none and encryption is off. */
  keyring?: Keyring | null;
  /** The space limits of the file store (`limits.maxHomeBytes`, `limits.maxSessionBytes`; null: none). */
  quota?: { maxHomeBytes: number | null; maxSessionBytes: number | null };
}

export async function openStore(options: OpenStoreOptions): Promise<SessionStore> {
  const url = options.url;
  if (url && /^[a-z][a-z0-9+.-]*:\/\//i.test(url) && !URL.canParse(url)) {
    throw new UsageError(`The store URL "${maskUrlCredentials(url)}" is not a valid URL.`, {
      hint: 'Write it as postgres://user@host:5432/database (an IPv6 host in brackets: postgres://user@[::1]:5432/database; a password with @, : or / percent-encoded).',
    });
  }
  if (url && /^postgres(ql)?:\/\//i.test(url)) {
    const { createPostgresStore } = await import('@resume/storage-postgres');
    const say = options.say;
    return createPostgresStore({
      connectionString: url,
      onWaiting: say ? (wait) => say(describeServerWait(wait)) : undefined,
      encryption: options.keyring ?? null,
    });
  }
  if (url && !url.startsWith('file:') && /^[a-z][a-z0-9+.-]*:\/\//i.test(url)) {
    throw new UsageError(`The store URL scheme of "${maskUrlCredentials(url)}" is not supported.`, {
      hint: 'Use a postgres:// URL for a shared store, or leave --store unset for the file store in the data home.',
    });
  }
  const dir = url ? (url.startsWith('file://') ? new URL(url).pathname : url.replace(/^file:/, '')) : options.home;
  const { createFsStore } = await import('@resume/storage-fs');
  return createFsStore({
    dir,
    ...(options.keyring ? { encryption: options.keyring } : {}),
    ...(options.quota ? { quota: options.quota } : {}),
  });
}

/** The line a person reads while a run waits for a PostgreSQL server that does not answer. */
export function describeServerWait(wait: ServerWait): string {
  const seconds = Math.round(wait.waitedMs / 1000);
  return wait.answered
    ? `The PostgreSQL server at ${wait.host} answered after ${seconds} s; going on.`
    : `Waiting for the PostgreSQL server at ${wait.host} (${wait.action}): ${seconds} s so far. It goes on when the server answers; Ctrl+C stops.`;
}
