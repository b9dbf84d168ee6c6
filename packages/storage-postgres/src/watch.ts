// Change notifications across machines: every create, append and delete sends a NOTIFY
// in its own transaction (delivered only if it commits), and `watch` LISTENs on one
// dedicated connection, so a picker on one machine sees sessions made on another.
import type pg from 'pg';
import { z } from 'zod';
import { translateDatabaseError } from './database-errors.js';

export const sessionChangeSchema = z.object({
  sessionId: z.string(),
  change: z.enum(['created', 'updated', 'deleted']),
  /** The journal's last seq after the change (null for a deletion). */
  lastSeq: z.number().int().nonnegative().nullable(),
});
export type SessionChange = z.infer<typeof sessionChangeSchema>;

export type SessionWatchListener = (change: SessionChange) => void;

export interface SessionWatch {
  /** Stops listening and returns the connection to the pool (idempotent). */
  close(): Promise<void>;
}

export const notifySql = 'SELECT pg_notify($1, $2)';

export interface AppendAnnouncer {
  /** Announces a committed append (sent soon, with the others that came meanwhile). */
  announce(payload: string): void;
  /** Resolves once every announcement so far was sent (or failed). */
  settled(): Promise<void>;
}

/** After a NOTIFY, how long the announcements that follow wait to go together in the next one. */
export const ANNOUNCE_PAUSE_MS = 5;

/**
 * Announces appends after their commit, many in one statement. A NOTIFY inside the append's
 * own transaction would hold the server's notification lock through its commit (the WAL flush),
 * so the commits of all sessions would wait for one another instead of sharing flushes. An
 * announcement lost to a crash right after the commit only delays a watcher: waits also poll.
 *
 * The first announcement after a quiet moment goes at once; those that come while a NOTIFY is on
 * its way or within `pauseMs` after it go together when the pause ends. A session checkpointing
 * in a tight loop (a fast graph, a map of quick items) then sends one NOTIFY per pause instead of
 * one per checkpoint, each a statement of its own that competed with the next append for the
 * server; a watcher hears of a change at most `pauseMs` later.
 */
export function createAppendAnnouncer(
  send: (payloads: string[]) => Promise<unknown>,
  pauseMs = ANNOUNCE_PAUSE_MS,
): AppendAnnouncer {
  let pending: string[] = [];
  let sending: Promise<void> | null = null;
  const drain = async () => {
    while (pending.length > 0) {
      const batch = pending;
      pending = [];
      await send(batch).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
    sending = null;
  };
  return {
    announce(payload) {
      pending.push(payload);
      sending ??= drain();
    },
    async settled() {
      await sending;
    },
  };
}

/** The channel of a schema (channel names are identifiers of at most 63 bytes). */
export function notificationChannel(schema: string): string {
  return `conclave_sessions_${schema}`.slice(0, 63);
}

export async function watchSessions(
  pool: pg.Pool,
  channel: string,
  listener: SessionWatchListener,
  location: string,
  onClose: () => void,
): Promise<SessionWatch> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw translateDatabaseError(error, location, 'connect');
  }
  const onNotification = (message: pg.Notification) => {
    if (message.channel !== channel || message.payload === undefined) return;
    let payload: unknown;
    try {
      payload = JSON.parse(message.payload);
    } catch {
      return; // not ours: someone else notified on the channel
    }
    const change = sessionChangeSchema.safeParse(payload);
    if (change.success) listener(change.data);
  };
  // A dropped connection ends the watch; the pool discards the broken client on release.
  let broken = false;
  const onError = () => {
    broken = true;
  };
  client.on('notification', onNotification);
  client.on('error', onError);
  try {
    await client.query(`LISTEN "${channel}"`);
  } catch (error) {
    client.off('notification', onNotification);
    client.release(true);
    throw translateDatabaseError(error, location, 'listen for session changes');
  }
  let closed: Promise<void> | null = null;
  return {
    close() {
      closed ??= (async () => {
        client.off('notification', onNotification);
        if (!broken) await client.query(`UNLISTEN "${channel}"`).catch(() => {});
        client.off('error', onError);
        client.release(broken);
        onClose();
      })();
      return closed;
    },
  };
}
