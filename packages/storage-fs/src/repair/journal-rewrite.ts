// A session's journal replaced by a shorter history made from it (`rewrite` of the store
// contract; LangGraph's pruning uses it). The caller holds the lease; the new journal is
// written beside the old one and renamed over it, so a crash leaves one or the other. What
// a reader or a later writer would trust about the old journal goes first: the snapshot (its
// seq and checksum name the old journal), then the listing entry (it would take a shorter
// journal for a cut one).
import {
  AppendConflictError,
  type JournalRewrite,
  LeaseLostError,
  type RewriteReport,
  SessionLockedError,
} from '@resume/core/spec';
import { writeFileAtomically } from '../file-system/atomic-write.js';
import type { SummaryIndex } from '../index/summary-index.js';
import type { JournalAppender } from '../journal/journal-appender.js';
import { encodeBatch, keyOfLastRecord, type RecordSealing, scanJournal } from '../journal/journal-codec.js';
import type { JournalFiles } from '../journal/journal-files.js';
import { currentEpoch, liveHolder } from '../lease/lease-files.js';
import type { SnapshotFiles } from '../snapshot/snapshot-files.js';
import type { Layout } from '../store/layout.js';
import type { StoreContext } from '../store/store-context.js';
import { JOURNAL, LEASE_DIRECTORY, SNAPSHOT_NAMES } from '../store/store-paths.js';

export interface RewriteParts {
  layout: Layout;
  journals: JournalFiles;
  snapshots: SnapshotFiles;
  appender: JournalAppender;
  index: () => SummaryIndex;
}

export function createJournalRewrite(
  context: StoreContext,
  parts: RewriteParts,
): (sessionId: string, rewrite: JournalRewrite) => Promise<RewriteReport> {
  const { paths, plain } = context;
  const { layout, journals, snapshots, appender } = parts;

  const sealingOf = async (id: string, bytes: Buffer): Promise<RecordSealing | null> => {
    const keyring = context.keyring;
    if (!keyring) return null;
    const current = keyring.current();
    if (current) return { key: current, sessionId: id };
    // No key to seal new records with: a session sealed with an older key stays sealed with it.
    const lastKey = keyOfLastRecord(bytes, true);
    const key = typeof lastKey === 'string' ? keyring.get(lastKey) : null;
    return key ? { key, sessionId: id } : null;
  };

  return async (id, rewrite) => {
    context.files.refuseIfBroken();
    await layout.require(id);
    const leaseDirectory = paths.inSession(id, LEASE_DIRECTORY);
    const { record: holder } = await liveHolder(context.lease, leaseDirectory);
    const epoch = await currentEpoch(plain, leaseDirectory);
    if (epoch !== rewrite.epoch) {
      if (holder) throw new SessionLockedError(id, { pid: holder.pid, host: holder.host, since: holder.since });
      throw new LeaseLostError(id);
    }
    return context.exclusive(id, () =>
      parts.index().whileWriting(id, async () => {
        await journals.unarchive(id);
        const journal = await journals.readBytes(id);
        const file = paths.inSession(id, JOURNAL);
        const old = journal?.bytes ?? Buffer.alloc(0);
        const scan = scanJournal(old, { sessionId: id, file, keyring: context.keyring, eventsWanted: false });
        if (scan.lastSeq !== rewrite.expectedSeq) throw new AppendConflictError(id, rewrite.expectedSeq, scan.lastSeq);
        const sealing = await sealingOf(id, old.subarray(0, scan.validLength));
        const records: Buffer[] = [];
        let lastSeq = 0;
        for (const batch of rewrite.batches) {
          for (const event of batch.events) {
            if (event.seq !== lastSeq + 1) {
              throw new TypeError(`a rewritten journal of session ${id} holds event ${event.seq} after ${lastSeq}`);
            }
            lastSeq = event.seq;
          }
          records.push(
            encodeBatch({ epoch: rewrite.epoch, events: batch.events, summary: batch.summary }, null, sealing),
          );
        }
        const bytes = Buffer.concat(records);
        const summary = rewrite.batches.at(-1)?.summary;
        if (!summary) throw new TypeError(`a rewritten journal of session ${id} holds no batch`);

        await appender.drop(id);
        snapshots.forget(id);
        for (const { name } of SNAPSHOT_NAMES) await plain.remove(paths.inSession(id, name)).catch(() => {});
        parts.index().record({ id, summary, journalSize: bytes.length, archived: false, damage: null, missing: [] });
        await parts.index().save();
        await writeFileAtomically(context.durable, file, bytes);
        // The caller's lease goes on with the new journal: its release records where that one ends.
        await appender.openWriter(id);
        return {
          sessionId: id,
          lastSeqBefore: scan.lastSeq,
          lastSeqAfter: lastSeq,
          bytesBefore: old.length,
          bytesAfter: bytes.length,
        };
      }),
    );
  };
}
