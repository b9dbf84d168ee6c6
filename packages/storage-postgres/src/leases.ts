// Writer leases across machines. A lease row names its holder (host, pid), carries an
// epoch and an expiry on the database's clock (so machines' clocks need not agree), and
// is renewed by a heartbeat while held. Taking over bumps the epoch; appends compare
// it (fencing), so a holder that lost its lease can no longer write.

import type { LeaseHolderInfo, ProcessProbe, SessionLease } from '@resume/core/spec';
import { createProcessProbe, SessionLockedError, SessionNotFoundError } from '@resume/core/spec';
import type pg from 'pg';

export interface LeaseRow {
  holder_host: string | null;
  holder_pid: number | null;
  since: Date | null;
  epoch: string | number;
  live: boolean;
}

export interface LeaseContext {
  schema: string;
  /** This machine's name: a lease held on it by a dead pid is taken over at once. */
  localHost: string;
  isProcessAlive: (pid: number) => boolean;
}

let probe: ProcessProbe | null = null;

/** Whether a process on this machine can still run (the file store's judgement: a zombie cannot). */
export function isProcessAlive(pid: number): boolean {
  probe ??= createProcessProbe();
  return probe.isRunning(pid);
}

/** The holder of a lease row if that holder is alive: not expired, and not a dead pid on this machine. */
export function liveHolder(row: LeaseRow | undefined, context: LeaseContext): LeaseHolderInfo | null {
  if (!row || row.holder_host === null || row.holder_pid === null || row.since === null || !row.live) return null;
  if (row.holder_host === context.localHost && !context.isProcessAlive(row.holder_pid)) return null;
  return { host: row.holder_host, pid: row.holder_pid, since: row.since.toISOString() };
}

export const leaseSelect = (schema: string) =>
  `SELECT holder_host, holder_pid, since, epoch, (expires_at > clock_timestamp()) AS live
     FROM ${schema}.leases WHERE session_id = $1`;

/**
 * Takes the lease inside an open transaction (the caller commits). The session row is
 * locked first, so a takeover and an append of the same session are serialized.
 */
export async function takeLease(
  client: pg.PoolClient,
  context: LeaseContext,
  sessionId: string,
  holder: { host: string; pid: number },
  ttlMs: number,
): Promise<{ epoch: number; holder: LeaseHolderInfo }> {
  const session = await client.query(`SELECT 1 FROM ${context.schema}.sessions WHERE id = $1 FOR UPDATE`, [sessionId]);
  if (session.rowCount === 0) throw new SessionNotFoundError(sessionId);
  const current = await client.query<LeaseRow>(`${leaseSelect(context.schema)} FOR UPDATE`, [sessionId]);
  const row = current.rows[0];
  const live = liveHolder(row, context);
  if (live) throw new SessionLockedError(sessionId, live);
  const epoch = Number(row?.epoch ?? 0) + 1;
  const written = await client.query<{ since: Date }>(
    `INSERT INTO ${context.schema}.leases (session_id, holder_host, holder_pid, since, epoch, expires_at)
     VALUES ($1, $2, $3, clock_timestamp(), $4, clock_timestamp() + $5 * interval '1 millisecond')
     ON CONFLICT (session_id) DO UPDATE SET holder_host = EXCLUDED.holder_host, holder_pid = EXCLUDED.holder_pid,
       since = EXCLUDED.since, epoch = EXCLUDED.epoch, expires_at = EXCLUDED.expires_at
     RETURNING since`,
    [sessionId, holder.host, holder.pid, epoch, ttlMs],
  );
  const since = written.rows[0]?.since ?? new Date();
  return { epoch, holder: { host: holder.host, pid: holder.pid, since: since.toISOString() } };
}

export interface HeldLeaseOptions {
  pool: pg.Pool;
  schema: string;
  sessionId: string;
  epoch: number;
  holder: LeaseHolderInfo;
  ttlMs: number;
  heartbeatMs: number;
  onSettled: (lease: HeldLease) => void;
}

export interface HeldLease extends SessionLease {
  /** Stops renewing without releasing (the store is closing, or the lease was lost). */
  stopHeartbeat(): void;
  /** False once a heartbeat found the lease taken over. */
  readonly held: boolean;
}

/** A lease this process holds: renews it until released; a renewal that finds it taken over stops. */
export function holdLease(options: HeldLeaseOptions): HeldLease {
  const { pool, schema, sessionId, epoch, ttlMs } = options;
  let held = true;
  let released: Promise<void> | null = null;
  let renewing = false;

  const renew = async () => {
    if (renewing || !held) return;
    renewing = true;
    try {
      const result = await pool.query(
        `UPDATE ${schema}.leases SET expires_at = clock_timestamp() + $3 * interval '1 millisecond'
          WHERE session_id = $1 AND epoch = $2 AND holder_host IS NOT NULL`,
        [sessionId, epoch, ttlMs],
      );
      if (result.rowCount === 0) {
        held = false;
        lease.stopHeartbeat();
      }
    } catch {
      // A failed renewal is retried at the next beat; if the lease expires meanwhile and is
      // taken over, the epoch check refuses this holder's appends, so nothing is lost.
    } finally {
      renewing = false;
    }
  };

  const timer = setInterval(() => void renew(), options.heartbeatMs);
  timer.unref();

  const lease: HeldLease = {
    sessionId,
    epoch,
    holder: options.holder,
    get held() {
      return held;
    },
    stopHeartbeat() {
      clearInterval(timer);
    },
    release() {
      released ??= (async () => {
        clearInterval(timer);
        const wasHeld = held;
        held = false;
        options.onSettled(lease);
        if (!wasHeld) return;
        await pool.query(
          `UPDATE ${schema}.leases SET holder_host = NULL, holder_pid = NULL, since = NULL, expires_at = NULL
            WHERE session_id = $1 AND epoch = $2`,
          [sessionId, epoch],
        );
      })();
      return released;
    },
  };
  return lease;
}
