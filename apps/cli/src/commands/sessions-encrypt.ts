// `conclave sessions encrypt <id>|--all [--rekey]`: seals sessions written in the clear (with
// `--rekey`, also those sealed with an older key) with the current data key, crash-safely
// (docs/encryption.md#rotation).
import { type SessionStore, UsageError } from '@resume/core/spec';
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
  const ids = all
    ? (await store.list()).map((summary) => summary.id)
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
  else if (ids.length === 0) terminal.note('No sessions to encrypt.');
  return 0;
}
