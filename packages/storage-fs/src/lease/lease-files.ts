// The single-writer lease of one session, as files in `<session>/lease/`:
// `epoch-0000000007` is the lease of epoch 7 and the highest number is the current
// lease. A new lease is created only as "highest + 1" by `link`ing a fully written
// file into place, which fails if that name exists: when two processes both see a
// dead holder and race to take over, exactly one link succeeds and the loser finds
// a live holder. Nobody ever removes or rewrites another holder's current lease;
// the holder marks its own lease released (atomic replace). Epochs only grow, and
// an append is fenced by checking that no higher epoch exists.
import path from 'node:path';
import { checkedSafeParser, lazySchema } from '@resume/core/lazy-schema';
import {
  isHolderAlive,
  type LeaseHolder,
  type LeaseHolderInfo,
  type ProcessProbe,
  SessionLockedError,
} from '@resume/core/spec';
import { z } from 'zod';
import { writeFileAtomically, writeTemporary } from '../file-system/atomic-write.js';
import { errorCode, type FileSystem } from '../file-system/file-system.js';
import { frameObject, unframe } from '../journal/framing.js';
import { checkLeaseRecord } from '../store/store-files-check.generated.js';

/** A lease file's record (built on first use; a valid file is read by its generated check). */
export const leaseRecordSchema = lazySchema(() =>
  z.object({
    v: z.literal(1),
    epoch: z.number().int().positive(),
    pid: z.number().int(),
    host: z.string(),
    since: z.string(),
    bootId: z.string().nullable(),
    processStart: z.string().nullable(),
    released: z.boolean(),
    /** The journal's last seq when the holder released the lease: evidence a later cut cannot hide. */
    lastSeq: z.number().int().nonnegative().optional(),
    /**
     * The journal's size and change time when the holder released the lease, after checking
     * it at open: while both still match, nobody touched the journal since, and the next open
     * need not check its whole prefix again.
     */
    journal: z.object({ size: z.number().int().nonnegative(), changedMs: z.number() }).optional(),
  }),
);
const parseLeaseRecord = checkedSafeParser(leaseRecordSchema, checkLeaseRecord);
export type LeaseRecord = z.infer<typeof leaseRecordSchema>;

const leaseNamePattern = /^epoch-(\d{10})$/;
export const leaseName = (epoch: number) => `epoch-${String(epoch).padStart(10, '0')}`;

export interface LeaseFilesContext {
  fileSystem: FileSystem;
  probe: ProcessProbe;
  now: () => Date;
}

/** The highest lease epoch of a session (0 when no lease was ever taken). */
export async function currentEpoch(fileSystem: FileSystem, leaseDirectory: string): Promise<number> {
  let highest = 0;
  for (const name of await fileSystem.readDirectory(leaseDirectory)) {
    const match = leaseNamePattern.exec(name);
    if (match) highest = Math.max(highest, Number(match[1]));
  }
  return highest;
}

async function readLease(fileSystem: FileSystem, leaseDirectory: string, epoch: number): Promise<LeaseRecord | null> {
  let content: Buffer;
  try {
    content = await fileSystem.readFile(path.join(leaseDirectory, leaseName(epoch)));
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return null;
    throw error;
  }
  const line = content.at(-1) === 0x0a ? content.subarray(0, -1) : content;
  const framed = unframe(line);
  if (!framed.ok) return null;
  const record = parseLeaseRecord(framed.value);
  return record.success ? record.data : null;
}

const holderInfo = (record: LeaseRecord): LeaseHolderInfo => ({
  pid: record.pid,
  host: record.host,
  since: record.since,
});

/** The live holder of the current lease, or null (none, released, or its holder died). */
export async function liveHolder(
  context: LeaseFilesContext,
  leaseDirectory: string,
): Promise<{ record: LeaseRecord; epoch: number } | { record: null; epoch: number }> {
  const epoch = await currentEpoch(context.fileSystem, leaseDirectory);
  if (epoch === 0) return { record: null, epoch };
  const record = await readLease(context.fileSystem, leaseDirectory, epoch);
  // An unreadable lease file can only come from damage to the disk; it must not lock the session forever.
  if (!record || record.released || !isHolderAlive(record, context.probe)) return { record: null, epoch };
  return { record, epoch };
}

export async function inspectLease(
  context: LeaseFilesContext,
  leaseDirectory: string,
): Promise<LeaseHolderInfo | null> {
  const { record } = await liveHolder(context, leaseDirectory);
  return record ? holderInfo(record) : null;
}

export interface HeldLease {
  epoch: number;
  holder: LeaseHolderInfo;
  /** The lease this one followed (released, or left by a holder that died), if readable. */
  previous: LeaseRecord | null;
  /** Marks the lease released, recording the journal's last seq (and its stamp) at that moment when known. */
  release(lastSeq?: number, journal?: LeaseRecord['journal']): Promise<void>;
}

/** Takes the lease or throws SessionLockedError naming the live holder. */
export async function acquireLease(
  context: LeaseFilesContext,
  sessionId: string,
  leaseDirectory: string,
  holder: LeaseHolder,
): Promise<HeldLease> {
  const { fileSystem, probe } = context;
  const sameHost = holder.host === probe.hostname;
  for (let attempt = 0; attempt < 8; attempt += 1) {
    const current = await liveHolder(context, leaseDirectory);
    if (current.record) throw new SessionLockedError(sessionId, holderInfo(current.record));
    const previous = current.epoch === 0 ? null : await readLease(fileSystem, leaseDirectory, current.epoch);
    const epoch = current.epoch + 1;
    const record: LeaseRecord = {
      v: 1,
      epoch,
      pid: holder.pid,
      host: holder.host,
      since: context.now().toISOString(),
      bootId: sameHost ? probe.bootId : null,
      processStart: sameHost ? probe.startTime(holder.pid) : null,
      released: false,
    };
    const target = path.join(leaseDirectory, leaseName(epoch));
    const temporary = await writeTemporary(fileSystem, target, frameObject(record));
    try {
      await fileSystem.link(temporary, target);
    } catch (error) {
      if (errorCode(error) === 'EEXIST') continue; // another process took this epoch first: look again
      throw error;
    } finally {
      await fileSystem.remove(temporary).catch(() => {});
    }
    await fileSystem.syncDirectory(leaseDirectory);
    // A process that looked at an old listing could recreate a long-removed lower epoch;
    // only the highest epoch is the lease, so such a file is withdrawn at once.
    if ((await currentEpoch(fileSystem, leaseDirectory)) !== epoch) {
      await fileSystem.remove(target).catch(() => {});
      continue;
    }
    await removeOldLeases(fileSystem, leaseDirectory, epoch);
    return {
      epoch,
      holder: holderInfo(record),
      previous,
      release: async (lastSeq, journal) => {
        // Only this holder's own current lease is marked released; a lease that was
        // taken over since is left alone.
        if ((await currentEpoch(fileSystem, leaseDirectory)) !== epoch) return;
        await writeFileAtomically(
          fileSystem,
          target,
          frameObject({
            ...record,
            released: true,
            ...(lastSeq === undefined ? {} : { lastSeq }),
            ...(journal === undefined ? {} : { journal }),
          }),
        );
      },
    };
  }
  const latest = await liveHolder(context, leaseDirectory);
  if (latest.record) throw new SessionLockedError(sessionId, holderInfo(latest.record));
  throw new SessionLockedError(sessionId, { pid: 0, host: 'unknown', since: context.now().toISOString() });
}

/** Keeps the current and the previous lease (for diagnosis); older ones only take space. */
async function removeOldLeases(fileSystem: FileSystem, leaseDirectory: string, epoch: number): Promise<void> {
  for (const name of await fileSystem.readDirectory(leaseDirectory)) {
    const match = leaseNamePattern.exec(name);
    if (match && Number(match[1]) < epoch - 1) await fileSystem.remove(path.join(leaseDirectory, name)).catch(() => {});
  }
}

/** The current lease record (released or not), null when none was ever taken or it is unreadable. */
export async function latestLease(fileSystem: FileSystem, leaseDirectory: string): Promise<LeaseRecord | null> {
  const epoch = await currentEpoch(fileSystem, leaseDirectory);
  return epoch === 0 ? null : readLease(fileSystem, leaseDirectory, epoch);
}
