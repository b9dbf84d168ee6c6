// An in-memory SessionStore for unit tests of core and for measuring the engine's
// own overhead. Passes the conformance suite; durability is trivially "in memory".
import { createHash } from 'node:crypto';
import {
  type AcquireLeaseOptions,
  type AppendBatch,
  AppendConflictError,
  type FoldSnapshot,
  type JournalEvent,
  type LeaseHolderInfo,
  LeaseLostError,
  type ReadRange,
  SessionExistsError,
  type SessionHeader,
  type SessionLease,
  SessionLockedError,
  SessionNotFoundError,
  type SessionQuery,
  type SessionRequest,
  type SessionStore,
  type SessionSummary,
  STORE_SPECIFICATION_VERSION,
} from '../spec/index.js';
import { matchesQuery } from '../spec/query.js';

interface MemorySession {
  header: SessionHeader;
  events: JournalEvent[];
  summary: SessionSummary | null;
  snapshot: FoldSnapshot | null;
  epoch: number;
  lease: { holder: LeaseHolderInfo; epoch: number; alive: () => boolean } | null;
  requests: SessionRequest[];
}

export interface MemoryStoreOptions {
  /** Whether a lease holder is still alive (default: holders in this process are alive until released). */
  isAlive?: (holder: LeaseHolderInfo) => boolean;
  now?: () => Date;
}

export interface MemoryStore extends SessionStore {
  /** Test hook: forget a holder as if its process died. */
  killHolder(sessionId: string): void;
}

const clone = <T>(value: T): T => structuredClone(value);

export function createMemoryStore(options: MemoryStoreOptions = {}): MemoryStore {
  const sessions = new Map<string, MemorySession>();
  const blobs = new Map<string, Uint8Array>();
  const now = options.now ?? (() => new Date());

  const need = (sessionId: string): MemorySession => {
    const session = sessions.get(sessionId);
    if (!session) throw new SessionNotFoundError(sessionId);
    return session;
  };

  const liveLease = (session: MemorySession) => {
    if (!session.lease) return null;
    const alive = session.lease.alive() && (options.isAlive?.(session.lease.holder) ?? true);
    return alive ? session.lease : null;
  };

  return {
    specificationVersion: STORE_SPECIFICATION_VERSION,
    kind: 'memory',
    location: 'memory',

    async create(header) {
      if (sessions.has(header.id)) throw new SessionExistsError(header.id);
      sessions.set(header.id, {
        header: clone(header),
        events: [],
        summary: null,
        snapshot: null,
        epoch: 0,
        lease: null,
        requests: [],
      });
    },

    async append(sessionId, batch: AppendBatch) {
      const session = need(sessionId);
      const lastSeq = session.events.at(-1)?.seq ?? 0;
      if (batch.epoch < session.epoch) throw new LeaseLostError(sessionId);
      if (batch.expectedSeq !== lastSeq) throw new AppendConflictError(sessionId, batch.expectedSeq, lastSeq);
      batch.events.forEach((event, index) => {
        if (event.seq !== batch.expectedSeq + index + 1) {
          throw new AppendConflictError(sessionId, batch.expectedSeq + index, event.seq - 1);
        }
      });
      session.events.push(...clone(batch.events));
      session.summary = clone(batch.summary);
    },

    async *read(sessionId, range: ReadRange = {}) {
      const session = need(sessionId);
      const from = range.fromSeq ?? 1;
      const to = range.toSeq ?? Number.POSITIVE_INFINITY;
      for (const event of session.events) {
        if (event.seq >= from && event.seq <= to) yield clone(event);
      }
    },

    async getHeader(sessionId) {
      const session = sessions.get(sessionId);
      return session ? clone(session.header) : null;
    },

    async getSummary(sessionId) {
      const session = sessions.get(sessionId);
      return session?.summary ? clone(session.summary) : null;
    },

    async list(query: SessionQuery = {}) {
      const summaries = [...sessions.values()]
        .map((session) => session.summary)
        .filter((summary): summary is SessionSummary => summary !== null && matchesQuery(summary, query))
        .sort((a, b) =>
          a.updatedAt === b.updatedAt ? b.id.localeCompare(a.id) : b.updatedAt.localeCompare(a.updatedAt),
        );
      const offset = query.offset ?? 0;
      return clone(summaries.slice(offset, query.limit === undefined ? undefined : offset + query.limit));
    },

    async delete(sessionId) {
      return sessions.delete(sessionId);
    },

    async acquireLease(sessionId, leaseOptions: AcquireLeaseOptions): Promise<SessionLease> {
      const session = need(sessionId);
      const current = liveLease(session);
      if (current) throw new SessionLockedError(sessionId, current.holder);
      let released = false;
      session.epoch += 1;
      const epoch = session.epoch;
      const holder: LeaseHolderInfo = { ...leaseOptions.holder, since: now().toISOString() };
      session.lease = { holder, epoch, alive: () => !released };
      return {
        sessionId,
        epoch,
        holder,
        async release() {
          released = true;
          if (session.lease?.epoch === epoch) session.lease = null;
        },
      };
    },

    async inspectLease(sessionId) {
      const session = sessions.get(sessionId);
      if (!session) return null;
      const lease = liveLease(session);
      return lease ? clone(lease.holder) : null;
    },

    async putSnapshot(sessionId, snapshot) {
      need(sessionId).snapshot = clone(snapshot);
    },

    async getSnapshot(sessionId) {
      const snapshot = need(sessionId).snapshot;
      return snapshot ? clone(snapshot) : null;
    },

    async putBlob(content) {
      const hash = createHash('sha256').update(content).digest('hex');
      if (!blobs.has(hash)) blobs.set(hash, new Uint8Array(content));
      return hash;
    },

    async getBlob(hash) {
      const blob = blobs.get(hash);
      return blob ? new Uint8Array(blob) : null;
    },

    async postRequest(sessionId, input) {
      const session = need(sessionId);
      const request: SessionRequest = {
        id: `${session.requests.length + 1}-${createHash('sha256').update(`${sessionId}${now().toISOString()}${Math.random()}`).digest('hex').slice(0, 8)}`,
        kind: input.kind,
        label: input.label,
        requestedBy: { ...input.requestedBy },
        requestedAt: now().toISOString(),
      };
      session.requests.push(request);
      return clone(request);
    },

    async listRequests(sessionId) {
      return clone(need(sessionId).requests);
    },

    killHolder(sessionId) {
      const session = sessions.get(sessionId);
      if (session) session.lease = null;
    },

    async close() {},
  };
}
