// `conclave sessions encrypt <id>|--all [--rekey]`: seals sessions written in the clear (with
// `--rekey`, also those sealed with an older key) with the current data key, crash-safely
// (docs/encryption.md#rotation).
import { type SessionStore, UsageError } from '@resume/core/spec';
import { ExitCode } from '@resume/runner/exit-codes';
import type { FsStore } from '@resume/storage-fs';
import type { PostgresStore } from '@resume/storage-postgres';
import type { CliContext } from '../context/cli-context.js';
import { damagedSessionId } from './sessions-repair.js';

/** The stores that can convert their sessions: the file store and PostgreSQL; any other is refused by name. */
export async function encryptingStore(context: CliContext): Promise<FsStore | PostgresStore> {
  const store: SessionStore = await context.store();
  if (store.kind !== 'fs' && store.kind !== 'postgres') {
    throw new UsageError(`The ${store.kind} store at ${store.location} cannot convert sessions to encryption.`, {
      hint: 'Export its sessions and import them into an encrypted file store or PostgreSQL store.',
    });
  }
  return store as FsStore | PostgresStore;
}

export async function encryptSessionsCommand(
  context: CliContext,
  input: { reference: string; options: Record<string, unknown> },
): Promise<number> {
  const all = input.options.all === true;
  const rekey = input.options.rekey === true;
  if (all === (input.reference !== '')) {
    throw new UsageError('Name one session, or pass --all for every session.', {
      hint: 'conclave sessions encrypt 01jf3k   or   conclave sessions encrypt --all [--rekey]',
    });
  }
  if (context.config().config.encryption !== 'on') {
    throw new UsageError('Encryption is off: there is no current key to encrypt with.', {
      hint: 'Turn it on with "encryption: on" in the config (and create a key with conclave keys init), then run this again.',
    });
  }
  const store = await encryptingStore(context);
  const listed = all ? await store.list() : [];
  // With --all, a session sealed with a key that is not held cannot be opened: the others are
  // converted, and it is named with its key (exit 69 at the end).
  const locked = listed.flatMap((summary) => (summary.locked ? [{ id: summary.id, key: summary.locked.key }] : []));
  const ids = all
    ? listed.filter((summary) => !summary.locked).map((summary) => summary.id)
    : [await damagedSessionId(context, input.reference)];
  const terminal = context.terminal;
  const reports = [];
  for (const id of ids) {
    const report = await store.encrypt(id, { rekey });
    reports.push(report);
    if (context.options.json) continue;
    const changed = report.records > 0 || report.header || report.snapshot;
    terminal.out(
      changed
        ? `${terminal.green('encrypted')}  ${id}  with key ${report.key} (${report.records} journal records${report.header ? ', header' : ''}${report.snapshot ? ', snapshot' : ''})`
        : `${terminal.dim('unchanged')}  ${id}  already encrypted${rekey ? ` with key ${report.key}` : ''}`,
    );
  }
  if (context.options.json) terminal.data(JSON.stringify(reports));
  else if (ids.length === 0 && locked.length === 0) terminal.note('No sessions to encrypt.');
  for (const session of locked) {
    terminal.warn(
      `skipped  ${session.id}  encrypted with key ${session.key}, which is not available: supply it ($CONCLAVE_ENCRYPTION_KEY, or its file in keys/data/) and run this again`,
    );
  }
  return locked.length > 0 ? ExitCode.unavailable : 0;
}
