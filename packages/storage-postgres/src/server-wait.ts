// Waiting for a server that does not answer, out loud. A frozen server (or a network that
// drops packets without closing the connection) leaves a query waiting with no error: the
// store tells whoever opened it, after `waitNoticeMs`, whom it waits for and for what, then
// again every twice that long, and once more when the server answered. The work itself is
// never cut short: it goes on as soon as the server does (or the user interrupts it).

/** One notice about a wait for the server. */
export interface ServerWait {
  /** The server's host and port (never a secret). */
  host: string;
  /** What the store was doing, e.g. `append to session 01jh…`. */
  action: string;
  /** How long the oldest pending operation has waited so far. */
  waitedMs: number;
  /** True for the last notice of a wait: the server answered again. */
  answered: boolean;
}

export type ServerWaitListener = (wait: ServerWait) => void;

export type WaitWatch = <T>(action: string, work: () => Promise<T>) => Promise<T>;

interface Pending {
  action: string;
  since: number;
}

/** Wraps store operations so that a long wait for the server is reported to `listener`. */
export function watchServerWaits(host: string, listener: ServerWaitListener | undefined, noticeMs: number): WaitWatch {
  if (!listener) return (_action, work) => work();
  // Insertion order: the first entry is the operation that has waited longest.
  const pending = new Set<Pending>();
  let repeating: NodeJS.Timeout | null = null;

  const report = () => {
    const oldest = pending.values().next().value;
    if (oldest) listener({ host, action: oldest.action, waitedMs: Date.now() - oldest.since, answered: false });
  };
  const startReporting = () => {
    if (repeating) return;
    report();
    repeating = setInterval(report, noticeMs * 2);
    repeating.unref();
  };

  return async (action, work) => {
    const entry: Pending = { action, since: Date.now() };
    pending.add(entry);
    const first = setTimeout(startReporting, noticeMs);
    first.unref();
    try {
      return await work();
    } finally {
      clearTimeout(first);
      pending.delete(entry);
      if (repeating && pending.size === 0) {
        clearInterval(repeating);
        repeating = null;
        listener({ host, action, waitedMs: Date.now() - entry.since, answered: true });
      }
    }
  };
}
