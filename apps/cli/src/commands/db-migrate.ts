// `conclave db migrate`: creates or upgrades the PostgreSQL schema.
import { UsageError } from '@resume/core/spec';
import type { CliContext } from '../context/cli-context.js';

export async function migrateDatabaseCommand(context: CliContext): Promise<number> {
  const url = context.config().config.store.url;
  const postgres = await import('@resume/storage-postgres');
  if (!url || !postgres.isPostgresUrl(url))
    throw new UsageError('db migrate needs a PostgreSQL store.', {
      hint: 'Pass --store postgres://user@host/database or set CONCLAVE_STORE_URL.',
    });
  const report = await postgres.migrate({ connectionString: url });
  if (context.options.json) context.terminal.data(JSON.stringify(report));
  else
    context.terminal.out(
      report.applied.length === 0
        ? `Schema "${report.schema}" at ${postgres.maskConnectionString(url)} is up to date (version ${report.version}).`
        : `Migrated schema "${report.schema}" at ${postgres.maskConnectionString(url)} to version ${report.version} (applied ${report.applied.join(', ')}).`,
    );
  return 0;
}
