// What runs after every run: the trash is emptied of what it kept longer than
// `trash.keepDays`, and, when `retention.automatic` is on, the retention policy moves old
// sessions to the trash. A policy never acts silently for the first time: the first run after
// it was turned on or changed, or after an upgrade, prints what it will move and changes
// nothing; the policy it printed is remembered in the data home (`retention-seen.json`).
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { RetentionPolicy } from '@resume/runner';
import { z } from 'zod';
import type { CliContext } from '../context/cli-context.js';
import { truncate } from '../output/format.js';
import { applyRetention, expiredTrash } from './apply-retention.js';

export const RETENTION_SEEN_FILE = 'retention-seen.json';

const retentionSeenSchema = z.object({ fingerprint: z.string(), at: z.string() });

export async function runAfterRun(context: CliContext): Promise<void> {
  const { config } = context.config();
  const engine = await context.engine();
  const terminal = context.terminal;
  const now = context.environment.now();
  if (!config.retention.automatic) {
    const purged = [];
    for (const session of expiredTrash(await engine.listTrash(), config.trash.keepDays, now)) {
      await engine.deleteSession(session.id).then(
        () => purged.push(session.id),
        () => undefined,
      );
    }
    if (purged.length > 0) terminal.note(terminal.dim(emptiedNote(purged.length, config.trash.keepDays)));
    return;
  }
  const retention = config.retention;
  const policy: RetentionPolicy = {
    maxAgeDays: retention.maxAgeDays,
    maxSessions: retention.maxSessions,
    maxBytes: retention.maxBytes,
    minKeep: retention.minKeep,
    archiveAfterDays: config.archive.afterDays,
    statuses: retention.includeInterrupted ? ['completed', 'failed', 'interrupted'] : ['completed', 'failed'],
  };
  const fingerprint = createHash('sha256')
    .update(JSON.stringify({ version: context.environment.version, policy, keepDays: config.trash.keepDays }))
    .digest('hex');
  const seenFile = path.join(config.home, RETENTION_SEEN_FILE);
  if (readSeen(seenFile) !== fingerprint) {
    const preview = await applyRetention(engine, policy, { now, dryRun: true });
    const moving = preview.selection.remove;
    terminal.note(
      moving.length === 0
        ? 'Retention is on: it moves nothing to the trash now. It runs after every run from the next one on.'
        : `Retention will move ${moving.length} session${moving.length === 1 ? '' : 's'} to the trash after the next run (kept ${config.trash.keepDays} days, restorable):`,
    );
    for (const { session, reason } of moving.slice(0, 20))
      terminal.note(`  ${session.id}  ${truncate(session.title, 40)}  ${terminal.dim(reason)}`);
    if (moving.length > 20) terminal.note(`  … and ${moving.length - 20} more`);
    terminal.note(
      terminal.dim('See it any time: conclave sessions cleanup --dry-run. Turn it off: retention.automatic: false.'),
    );
    writeSeen(seenFile, fingerprint, now);
    return;
  }
  const outcome = await applyRetention(engine, policy, { now, dryRun: false, trashKeepDays: config.trash.keepDays });
  if (outcome.deleted.length > 0 || outcome.archived.length > 0)
    terminal.note(
      terminal.dim(
        `Retention: moved ${outcome.deleted.length} old session${outcome.deleted.length === 1 ? '' : 's'} to the trash, archived ${outcome.archived.length}.`,
      ),
    );
  if (outcome.purged.length > 0) terminal.note(terminal.dim(emptiedNote(outcome.purged.length, config.trash.keepDays)));
}

function emptiedNote(count: number, keepDays: number): string {
  return `Trash: deleted ${count} session${count === 1 ? '' : 's'} for good (in the trash for more than ${keepDays} days).`;
}

function readSeen(file: string): string | null {
  try {
    const parsed = retentionSeenSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data.fingerprint : null;
  } catch {
    // Missing or unreadable: the policy counts as not seen, so it is printed (never applied) again.
    return null;
  }
}

function writeSeen(file: string, fingerprint: string, now: Date): void {
  try {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(file, `${JSON.stringify({ fingerprint, at: now.toISOString() })}\n`, { mode: 0o600 });
  } catch {
    // Not remembered: the next run prints the same preview instead of acting, which is safe.
  }
}
