// The PostgreSQL SessionStore: sessions shared by many machines. Appends are one
// transaction (session row locked, epoch and expected seq checked, events inserted under
// the (session_id, seq) key, summary columns updated); listing and filtering run in SQL.
import { hostname } from 'node:os';
import {
  blobName,
  type DataKey,
  derivedPlace,
  EncryptionKeyUnavailableError,
  headerPlace,
  openBytes,
  sealBytes,
  snapshotPlace,
  toKeyring,
} from '@resume/core/encryption';
import {
  type AcquireLeaseOptions,
  type AppendBatch,
  AppendConflictError,
  checkDerivedName,
  type FoldSnapshot,
  JournalCorruptedError,
  type JournalEvent,
  LeaseLostError,
  newSessionRequest,
  type ReadRange,
  type RepairReport,
  SessionExistsError,
  type SessionHeader,
  type SessionLease,
  SessionNotFoundError,
  type SessionQuery,
  type SessionRequest,
  type SessionRequestInput,
  type SessionStore,
  type SessionSummary,
  STORE_SPECIFICATION_VERSION,
  sessionHeaderSchema,
  sessionQuerySchema,
  sessionRequestSchema,
  sessionSummarySchema,
  UsageError,
  type VerifyReport,
} from '@resume/core/spec';
import type pg from 'pg';
import { type AppendOutcomeRow, appendStatements, createAppendQueue, type SessionAppend } from './append-batches.js';
import { createBlobCollector } from './blob-collection.js';
import {
  describeLocation,
  describeServer,
  openPool,
  type PostgresStoreOptions,
  parseStoreOptions,
  quoteIdentifier,
} from './connection.js';
import { databaseErrorCode, translateDatabaseError } from './database-errors.js';
import {
  chainBatch,
  chainStart,
  checkEventRow,
  createJournalHeads,
  type EventRow,
  eventRowColumns,
  headProblem,
} from './event-chain.js';
import { createJournalRewrite } from './journal-rewrite.js';
import {
  type HeldLease,
  holdLease,
  isProcessAlive,
  type LeaseContext,
  type LeaseRow,
  leaseSelect,
  liveHolder,
  takeLease,
} from './leases.js';
import { type MigrationReport, migratePool } from './migrations.js';
import {
  eventPlace,
  type ListedColumns,
  lockedSummary,
  openBlob,
  sealBlob,
  sealedJson,
  sealedKeyOf,
  workspaceToken,
} from './row-sealing.js';
import { corrupted, eventOf, missingEvent, parseHeader, parseSnapshot, parseSummary } from './rows.js';
import { watchServerWaits } from './server-wait.js';
import type { EncryptReport } from './session-encryption.js';
import { createSessionMaintenance } from './session-maintenance.js';
import { summaryValues } from './summary-columns.js';
import { measureSchema, type SchemaUsage } from './usage.js';
import {
  createAppendAnnouncer,
  notificationChannel,
  notifySql,
  type SessionWatch,
  type SessionWatchListener,
  watchSessions,
} from './watch.js';

export interface PostgresStore extends SessionStore {
  readonly kind: 'postgres';
  readNewestFirst(sessionId: string): AsyncIterable<JournalEvent[]>;
  /** The PostgreSQL schema holding the tables. */
  readonly schema: string;
  /** Applies pending migrations now (otherwise done on first use). */
  migrate(): Promise<MigrationReport>;
  /**
   * Calls `listener` whenever a session is created, appended to or deleted by any process
   * on any machine using this database (LISTEN/NOTIFY). Holds one connection until closed.
   */
  watch(listener: SessionWatchListener): Promise<SessionWatch>;
  /**
   * Seals the session with the current key (docs/encryption.md): what is in the clear, and with
   * `rekey` what an older key sealed, in one transaction (a crash leaves it as it was).
   */
  encrypt(sessionId: string, options?: { rekey?: boolean }): Promise<EncryptReport>;
  /** The ids of the keys the session's rows are sealed with (read without opening them). */
  keysOf(sessionId: string): Promise<string[]>;
  /** Reads every row of a session and names each damaged one (table and seq). */
  verify(sessionId: string): Promise<VerifyReport>;
  /**
   * Keeps the longest intact prefix of whole batches and moves every other row of the session
   * into the `damaged_rows` table; `dryRun` reports what would be done without changing anything.
   */
  repair(sessionId: string, options?: { dryRun?: boolean }): Promise<RepairReport>;
  putDerived(sessionId: string, name: string, bytes: Uint8Array): Promise<void>;
  getDerived(sessionId: string, name: string): Promise<Uint8Array | null>;
  /**
   * Removes the blobs no session names (docs/storage-postgres.md#blobs): those a deletion kept
   * because a live writer might still have named them. Resolves to how many went.
   */
  sweepBlobs(): Promise<number>;
  /** What each session's rows and the blobs take (`conclave sessions du`), as `measureHome` measures a home. */
  measureUsage(): Promise<SchemaUsage>;
}

/** Rows read per round trip when streaming a journal. */
const readPageSize = 500;

export function createPostgresStore(options: PostgresStoreOptions): PostgresStore {
  const resolved = parseStoreOptions(options);
  const location = describeLocation(resolved);
  const schema = quoteIdentifier(resolved.schema);
  const channel = notificationChannel(resolved.schema);
  const eventsTable = `${resolved.schema}.events`;
  const { pool, owned } = openPool(resolved);
  const localHost = resolved.holderHost ?? hostname();
  const leaseContext: LeaseContext = { schema, localHost, isProcessAlive };
  const heldLeases = new Set<HeldLease>();
  const watches = new Set<SessionWatch>();
  let ready: Promise<MigrationReport> | null = null;
  let closed = false;
  const keyring = toKeyring(resolved.encryption);
  const sessionsTable = `${resolved.schema}.sessions`;
  const opening = { keyring, table: eventsTable };
  /** Sessions sealed with a key that is not current, by the key they go on with (see `sealingKey`). */
  const sessionKeys = new Map<string, DataKey | null>();

  const ensureReady = (): Promise<MigrationReport> => {
    if (closed) return Promise.reject(new UsageError(`The PostgreSQL store at ${location} is closed.`));
    ready ??= migratePool(pool, resolved.schema, location).catch((error: unknown) => {
      ready = null; // let the next call retry (the server may come up)
      throw error;
    });
    return ready;
  };

  const waitingFor = watchServerWaits(describeServer(resolved), resolved.onWaiting, resolved.waitNoticeMs);

  /** Runs `work` on a pooled connection, translating driver errors. */
  const withClient = <T>(action: string, work: (client: pg.PoolClient) => Promise<T>): Promise<T> =>
    waitingFor(action, () => onClient(action, work));

  const onClient = async <T>(action: string, work: (client: pg.PoolClient) => Promise<T>): Promise<T> => {
    await ensureReady();
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      throw translateDatabaseError(error, location, 'connect');
    }
    try {
      return await work(client);
    } catch (error) {
      throw translateDatabaseError(error, location, action);
    } finally {
      client.release();
    }
  };

  const inTransaction = <T>(action: string, work: (client: pg.PoolClient) => Promise<T>): Promise<T> =>
    withClient(action, async (client) => {
      await client.query('BEGIN');
      try {
        const result = await work(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      }
    });

  const query = <Row extends pg.QueryResultRow>(action: string, text: string, values: unknown[]) =>
    waitingFor(action, async () => {
      await ensureReady();
      try {
        return await pool.query<Row>(text, values);
      } catch (error) {
        throw translateDatabaseError(error, location, action);
      }
    });

  /**
   * A session's event rows from seq `from` to `to`, in seq order: a page bounded by seq, not only
   * by LIMIT, since a planner whose statistics predate the journal's newest seqs may scan and sort
   * every row after the page to return its first.
   */
  const eventRows = (action: string, sessionId: string, from: number, to: number) =>
    query<EventRow>(
      action,
      `SELECT ${eventRowColumns} FROM ${schema}.events
        WHERE session_id = $1 AND seq >= $2 AND seq <= $3 ORDER BY seq`,
      [sessionId, from, to],
    );

  /**
   * Appends as statements committed on their own: one round trip and one commit for a lone
   * append, and for the appends of several sessions that arrive together (see append-batches.ts).
   */
  const appendQuery = appendStatements(schema);
  const submitAppend = createAppendQueue((appends) => pool.query<AppendOutcomeRow>(appendQuery(appends)));
  const appendStatement = (action: string, append: SessionAppend) =>
    waitingFor(action, async () => {
      await ensureReady();
      try {
        return await submitAppend(append);
      } catch (error) {
        // Only reachable if the row lock were bypassed; the key still refuses interleaving.
        if (databaseErrorCode(error) === '23505') {
          throw new AppendConflictError(append.sessionId, append.expectedSeq, append.expectedSeq + 1, { cause: error });
        }
        throw translateDatabaseError(error, location, action);
      }
    });

  /** Where each session's chain stood after this store's last append to it (a hint, checked by the append). */
  const journalHeads = createJournalHeads();
  const announcer = createAppendAnnouncer((payloads) =>
    pool.query(`SELECT pg_notify($1, payload) FROM unnest($2::text[]) AS payload`, [channel, payloads]),
  );

  const blobCollector = createBlobCollector({ schema, keyring, lease: leaseContext, query });

  /**
   * The key a session's new rows are sealed with: the current one; without one, the key its
   * header was sealed with, so an encrypted session goes on encrypted (none: in the clear).
   */
  const sealingKey = async (sessionId: string): Promise<DataKey | null> => {
    if (!keyring) return null;
    const current = keyring.current();
    if (current) return current;
    if (!sessionKeys.has(sessionId)) {
      const result = await query<{ header: string }>(
        `read session ${sessionId}`,
        `SELECT header::text AS header FROM ${schema}.sessions WHERE id = $1`,
        [sessionId],
      );
      const keyId = sealedKeyOf(result.rows[0]?.header ?? null);
      sessionKeys.set(sessionId, keyId === null ? null : keyring.get(keyId));
    }
    return sessionKeys.get(sessionId) ?? null;
  };

  const notifyUpdated = async (client: pg.PoolClient, sessionId: string, lastSeq: number) => {
    await client.query(notifySql, [channel, JSON.stringify({ sessionId, change: 'updated', lastSeq })]);
  };

  const maintenance = createSessionMaintenance({
    keyring,
    schema,
    schemaName: resolved.schema,
    notify: notifyUpdated,
    withClient,
    inTransaction,
    acquireLease: (sessionId, leaseOptions) => store.acquireLease(sessionId, leaseOptions),
    inspectLease: (sessionId) => store.inspectLease(sessionId),
  });

  const store: PostgresStore = {
    specificationVersion: STORE_SPECIFICATION_VERSION,
    kind: 'postgres',
    location,
    schema: resolved.schema,

    migrate: () => waitingFor('prepare its tables', ensureReady),

    async create(header: SessionHeader) {
      const valid = sessionHeaderSchema.parse(header);
      await inTransaction(`create session ${valid.id}`, async (client) => {
        try {
          await client.query(`INSERT INTO ${schema}.sessions (id, header) VALUES ($1, $2)`, [
            valid.id,
            sealedJson(keyring?.current() ?? null, headerPlace(valid.id), valid),
          ]);
        } catch (error) {
          if (databaseErrorCode(error) === '23505') throw new SessionExistsError(valid.id);
          throw error;
        }
        await client.query(notifySql, [
          channel,
          JSON.stringify({ sessionId: valid.id, change: 'created', lastSeq: 0 }),
        ]);
      });
    },

    async append(sessionId: string, batch: AppendBatch) {
      const summary = sessionSummarySchema.parse(batch.summary);
      batch.events.forEach((event, index) => {
        if (event.seq !== batch.expectedSeq + index + 1) {
          throw new AppendConflictError(sessionId, batch.expectedSeq + index, event.seq - 1);
        }
      });
      const newSeq = batch.expectedSeq + batch.events.length;
      const key = await sealingKey(sessionId);
      const rows = batch.events.map((event) => ({
        seq: event.seq,
        payload: sealedJson(key, eventPlace(sessionId, event.seq), event),
      }));
      const action = `append to session ${sessionId}`;
      // The chain's head as this store last left it; when another writer moved it, the
      // statement changes nothing and says where the head is, and the batch is chained again.
      let previousHash = journalHeads.get(sessionId, batch.expectedSeq);
      for (;;) {
        const hashes = chainBatch(sessionId, previousHash, rows);
        const lastHash = hashes.at(-1) ?? previousHash;
        const outcome = await appendStatement(action, {
          sessionId,
          epoch: batch.epoch,
          expectedSeq: batch.expectedSeq,
          previousHash,
          newSeq,
          lastHash,
          summary: summaryValues(summary, key),
          events: batch.events.map((event, index) => ({
            seq: event.seq,
            // A sealed row's type is sealed with it.
            type: key ? 'sealed' : event.type,
            payload: rows[index]?.payload ?? '',
            hash: hashes[index] ?? '',
          })),
        });
        if (!outcome) throw new SessionNotFoundError(sessionId);
        if (outcome.appended) {
          journalHeads.set(sessionId, newSeq, lastHash);
          announcer.announce(JSON.stringify({ sessionId, change: 'updated', lastSeq: newSeq }));
          return;
        }
        const leaseEpoch = outcome.epoch === null ? 0 : Number(outcome.epoch);
        if (batch.epoch < leaseEpoch) {
          throw new LeaseLostError(
            sessionId,
            `Session ${sessionId} was taken over by another process (lease epoch ${leaseEpoch}, this writer has ${batch.epoch}); this process may no longer write it.`,
          );
        }
        const lastSeq = Number(outcome.journal_seq);
        journalHeads.set(sessionId, lastSeq, outcome.journal_hash);
        if (batch.expectedSeq !== lastSeq) throw new AppendConflictError(sessionId, batch.expectedSeq, lastSeq);
        previousHash = outcome.journal_hash;
      }
    },

    /**
     * The journal from its end, a page of rows at a time (newest page first, its rows in seq
     * order), each row checked against the chain when it is reached: a page is read with the row
     * before it, whose hash its first row chains from, and the next (older) page is asked for
     * while this one is checked and given.
     */
    async *readNewestFirst(sessionId: string): AsyncGenerator<JournalEvent[]> {
      const action = `read session ${sessionId}`;
      const head = await query<{ journal_seq: string; journal_hash: string | null }>(
        action,
        `SELECT journal_seq, journal_hash FROM ${schema}.sessions WHERE id = $1`,
        [sessionId],
      );
      const headRow = head.rows[0];
      if (!headRow) throw new SessionNotFoundError(sessionId);
      /** Rows `from - 1` (when there is one) to `to`, in seq order. */
      const pageOf = (from: number, to: number) => eventRows(action, sessionId, Math.max(1, from - 1), to);
      let to = Number(headRow.journal_seq);
      // The hash the newer page's first row chained from: this page's last row must still have it.
      let newerChainsFrom = headRow.journal_hash;
      let next = to > 0 ? pageOf(Math.max(1, to - readPageSize + 1), to) : null;
      while (next) {
        const from = Math.max(1, to - readPageSize + 1);
        const page = (await next).rows;
        next = from > 1 ? pageOf(Math.max(1, from - readPageSize), from - 1) : null;
        next?.catch(() => undefined);
        const before = from > 1 ? page.shift() : undefined;
        if (from > 1 && Number(before?.seq) !== from - 1) throw missingEvent(sessionId, eventsTable, from - 1);
        const position =
          from === 1
            ? chainStart()
            : { expectedSeq: from, previousHash: before?.hash ?? null, checked: (before?.hash ?? null) !== null };
        const events: JournalEvent[] = [];
        for (const row of page)
          events.push(eventOf(sessionId, eventsTable, checkEventRow(sessionId, row, position, opening)));
        if (position.expectedSeq !== to + 1) throw missingEvent(sessionId, eventsTable, position.expectedSeq);
        const problem =
          to === Number(headRow.journal_seq)
            ? headProblem(position, newerChainsFrom)
            : position.previousHash === newerChainsFrom
              ? null
              : 'the row is not the one the rows after it chain from: it was replaced while the journal was read';
        if (problem) throw corrupted(sessionId, eventsTable, `seq ${to}`, problem);
        newerChainsFrom = before?.hash ?? null;
        yield events;
        to = from - 1;
      }
    },

    read(sessionId: string, range: ReadRange = {}): AsyncIterable<JournalEvent> {
      return {
        async *[Symbol.asyncIterator]() {
          const action = `read session ${sessionId}`;
          let next = Math.max(1, range.fromSeq ?? 1);
          // The journal's head and the hash of the event before the first one read, in one round trip.
          const head = await query<{
            journal_seq: string;
            journal_hash: string | null;
            before_seq: string | null;
            before_hash: string | null;
          }>(
            action,
            `SELECT s.journal_seq, s.journal_hash, e.seq AS before_seq, e.hash AS before_hash
               FROM ${schema}.sessions s
               LEFT JOIN ${schema}.events e ON e.session_id = s.id AND e.seq = $2
              WHERE s.id = $1`,
            [sessionId, next - 1],
          );
          const headRow = head.rows[0];
          if (!headRow) throw new SessionNotFoundError(sessionId);
          // Read up to the seq committed when reading began, page by page (keyset, not OFFSET).
          const journalSeq = Number(headRow.journal_seq);
          const last = Math.min(journalSeq, range.toSeq ?? Number.POSITIVE_INFINITY);
          if (next > last) return;
          if (next > 1 && headRow.before_seq === null) throw missingEvent(sessionId, eventsTable, next - 1);
          const position =
            next === 1
              ? chainStart()
              : { expectedSeq: next, previousHash: headRow.before_hash, checked: headRow.before_hash !== null };
          while (next <= last) {
            const page = await eventRows(action, sessionId, next, Math.min(last, next + readPageSize - 1));
            if (page.rows.length === 0) throw missingEvent(sessionId, eventsTable, next);
            for (const row of page.rows) {
              const event = eventOf(sessionId, eventsTable, checkEventRow(sessionId, row, position, opening));
              const problem = event.seq === journalSeq ? headProblem(position, headRow.journal_hash) : null;
              if (problem) throw corrupted(sessionId, eventsTable, `seq ${event.seq}`, problem);
              yield event;
              next += 1;
            }
          }
        },
      };
    },

    async getHeader(sessionId: string) {
      const result = await query<{ header: unknown }>(
        `read session ${sessionId}`,
        `SELECT header FROM ${schema}.sessions WHERE id = $1`,
        [sessionId],
      );
      const row = result.rows[0];
      return row ? parseHeader(sessionId, sessionsTable, row.header, keyring) : null;
    },

    async getSummary(sessionId: string) {
      const result = await query<{ summary: unknown }>(
        `read session ${sessionId}`,
        `SELECT summary FROM ${schema}.sessions WHERE id = $1`,
        [sessionId],
      );
      const row = result.rows[0];
      if (!row || row.summary === null) return null;
      return parseSummary(sessionId, sessionsTable, row.summary, keyring);
    },

    async list(rawQuery: SessionQuery = {}) {
      const filters = sessionQuerySchema.parse(rawQuery);
      const current = keyring?.current() ?? null;
      // A sealed session's workspace column is an HMAC of it: the folder is looked for both ways.
      const workspaces =
        filters.workspaceDir === undefined || filters.workspaceDir === null || !current
          ? undefined
          : [filters.workspaceDir, workspaceToken(current, filters.workspaceDir)];
      const { text, values } = buildListQuery(schema, filters, workspaces);
      const result = await query<{ id: string; summary: unknown } & ListedColumns>('list sessions', text, values);
      return result.rows.map((row): SessionSummary => {
        try {
          return parseSummary(row.id, sessionsTable, row.summary, keyring);
        } catch (error) {
          if (!EncryptionKeyUnavailableError.isInstance(error)) throw error;
          return lockedSummary(row.id, error.keyId, row);
        }
      });
    },

    async delete(sessionId: string) {
      // Watchers hear of this store's appends before the deletion.
      await announcer.settled();
      const named = await blobCollector.namedBy(sessionId);
      const deleted = await inTransaction(`delete session ${sessionId}`, async (client) => {
        const result = await client.query(`DELETE FROM ${schema}.sessions WHERE id = $1`, [sessionId]);
        if (result.rowCount === 0) return false;
        await client.query(notifySql, [channel, JSON.stringify({ sessionId, change: 'deleted', lastSeq: null })]);
        return true;
      });
      // Looked for after the session is gone: two deletions at once each see the other's session gone or still there.
      if (deleted) await blobCollector.collect(named);
      return deleted;
    },

    async acquireLease(sessionId: string, leaseOptions: AcquireLeaseOptions): Promise<SessionLease> {
      const ttlMs = leaseOptions.ttlMs ?? resolved.leaseTtlMs;
      const heartbeatMs = resolved.heartbeatMs ?? Math.max(1, Math.floor(ttlMs / 3));
      const holder = { host: resolved.holderHost ?? leaseOptions.holder.host, pid: leaseOptions.holder.pid };
      const taken = await inTransaction(`take the lease of session ${sessionId}`, (client) =>
        takeLease(client, leaseContext, sessionId, holder, ttlMs),
      );
      const lease = holdLease({
        pool,
        schema,
        sessionId,
        epoch: taken.epoch,
        holder: taken.holder,
        ttlMs,
        heartbeatMs,
        onSettled: (settled) => heldLeases.delete(settled),
      });
      heldLeases.add(lease);
      return lease;
    },

    async inspectLease(sessionId: string) {
      const result = await query<LeaseRow>(`read the lease of session ${sessionId}`, leaseSelect(schema), [sessionId]);
      return liveHolder(result.rows[0], leaseContext);
    },

    async putSnapshot(sessionId: string, snapshot: FoldSnapshot) {
      const key = await sealingKey(sessionId);
      // Sealed, the state and the operations are one value in `state`.
      const state = key
        ? sealedJson(key, snapshotPlace(sessionId), { state: snapshot.state, operations: snapshot.operations ?? null })
        : JSON.stringify(snapshot.state);
      const operations = !key && snapshot.operations ? JSON.stringify(snapshot.operations) : null;
      await inTransaction(`save a snapshot of session ${sessionId}`, async (client) => {
        try {
          await client.query(
            `INSERT INTO ${schema}.snapshots (session_id, seq, format_version, state, operations)
             VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (session_id) DO UPDATE SET seq = EXCLUDED.seq, format_version = EXCLUDED.format_version,
               state = EXCLUDED.state, operations = EXCLUDED.operations, created_at = clock_timestamp()`,
            [sessionId, snapshot.seq, snapshot.formatVersion, state, operations],
          );
        } catch (error) {
          if (databaseErrorCode(error) === '23503') throw new SessionNotFoundError(sessionId);
          throw error;
        }
      });
    },

    async getSnapshot(sessionId: string) {
      const result = await query<{
        exists: boolean;
        seq: string | null;
        format_version: number | null;
        state: unknown;
        operations: unknown;
      }>(
        `read the snapshot of session ${sessionId}`,
        `SELECT s.id IS NOT NULL AS exists, n.seq, n.format_version, n.state, n.operations
           FROM (SELECT $1::text AS id) wanted
           LEFT JOIN ${schema}.sessions s ON s.id = wanted.id
           LEFT JOIN ${schema}.snapshots n ON n.session_id = wanted.id`,
        [sessionId],
      );
      const row = result.rows[0];
      if (!row?.exists) throw new SessionNotFoundError(sessionId);
      if (row.seq === null) return null;
      return parseSnapshot(sessionId, `${resolved.schema}.snapshots`, row, keyring);
    },

    async putDerived(sessionId: string, name: string, bytes: Uint8Array) {
      checkDerivedName(name);
      const key = await sealingKey(sessionId);
      const content = key
        ? sealBytes(key, derivedPlace(sessionId, name), bytes)
        : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      const result = await query(
        `save derived data ${name} of session ${sessionId}`,
        `INSERT INTO ${schema}.derived (session_id, name, key, content)
         SELECT id, $2, $3, $4 FROM ${schema}.sessions WHERE id = $1
         ON CONFLICT (session_id, name) DO UPDATE SET key = EXCLUDED.key, content = EXCLUDED.content,
           written_at = clock_timestamp()`,
        [sessionId, name, key?.id ?? null, content],
      );
      if (result.rowCount === 0) throw new SessionNotFoundError(sessionId);
    },

    async getDerived(sessionId: string, name: string) {
      checkDerivedName(name);
      const result = await query<{ exists: boolean; key: string | null; content: Buffer | null }>(
        `read derived data ${name} of session ${sessionId}`,
        `SELECT s.id IS NOT NULL AS exists, d.key, d.content
           FROM (SELECT $1::text AS id) wanted
           LEFT JOIN ${schema}.sessions s ON s.id = wanted.id
           LEFT JOIN ${schema}.derived d ON d.session_id = wanted.id AND d.name = $2`,
        [sessionId, name],
      );
      const row = result.rows[0];
      if (!row?.exists) throw new SessionNotFoundError(sessionId);
      if (!row.content) return null;
      if (row.key === null) return new Uint8Array(row.content);
      const opened = openBytes(
        keyring,
        derivedPlace(sessionId, name),
        row.key,
        row.content,
        `${resolved.schema}.derived`,
      );
      // Derived data that fails its tag is none: whoever derived it rebuilds it from the journal.
      return opened.ok ? new Uint8Array(opened.plaintext) : null;
    },

    async putBlob(content: Uint8Array) {
      const key = keyring?.current() ?? null;
      const hash = blobName(key, content);
      const plain = Buffer.from(content.buffer, content.byteOffset, content.byteLength);
      await query(
        'store a blob',
        // Put again: renewed, so a deletion looking for the blob's last reference keeps it.
        `INSERT INTO ${schema}.blobs (hash, content, size) VALUES ($1, $2, $3)
         ON CONFLICT (hash) DO UPDATE SET created_at = clock_timestamp()`,
        [hash, key ? sealBlob(key, hash, content) : plain, content.byteLength],
      );
      return hash;
    },

    sweepBlobs: () => blobCollector.collect(null),

    measureUsage: () => measureSchema(query, schema, location),

    async getBlob(hash: string) {
      if (!/^[0-9a-f]{64}$/.test(hash)) return null;
      const result = await query<{ content: Buffer }>(
        'read a blob',
        `SELECT content FROM ${schema}.blobs WHERE hash = $1`,
        [hash],
      );
      const row = result.rows[0];
      if (!row) return null;
      // A blob is addressed by its content: one that no longer matches its name (or its seal) is corrupted.
      const file = `PostgreSQL table ${resolved.schema}.blobs, hash ${hash}`;
      const opened = openBlob(keyring, hash, row.content, file);
      if (!opened.ok) throw new JournalCorruptedError({ sessionId: null, file, offset: null, problem: opened.problem });
      return new Uint8Array(opened.content);
    },

    async postRequest(sessionId: string, input: SessionRequestInput): Promise<SessionRequest> {
      const request = newSessionRequest(input);
      const result = await query(
        `post a request to session ${sessionId}`,
        `INSERT INTO ${schema}.requests (session_id, id, payload)
         SELECT id, $2, $3 FROM ${schema}.sessions WHERE id = $1`,
        [sessionId, request.id, JSON.stringify(request)],
      );
      if (result.rowCount === 0) throw new SessionNotFoundError(sessionId);
      return request;
    },

    async listRequests(sessionId: string): Promise<SessionRequest[]> {
      const exists = await query<{ found: boolean }>(
        `read the requests of session ${sessionId}`,
        `SELECT EXISTS (SELECT 1 FROM ${schema}.sessions WHERE id = $1) AS found`,
        [sessionId],
      );
      if (!exists.rows[0]?.found) throw new SessionNotFoundError(sessionId);
      const result = await query<{ payload: unknown }>(
        `read the requests of session ${sessionId}`,
        `SELECT payload FROM ${schema}.requests WHERE session_id = $1 ORDER BY position`,
        [sessionId],
      );
      return result.rows.flatMap((row) => {
        const parsed = sessionRequestSchema.safeParse(row.payload);
        return parsed.success ? [parsed.data] : [];
      });
    },

    async encrypt(sessionId: string, encryptOptions: { rekey?: boolean } = {}) {
      const key = keyring?.current() ?? null;
      if (!key) {
        throw new UsageError(`The PostgreSQL store at ${location} has no current data key to encrypt with.`, {
          hint: 'Give the store a keyring with a current key (encryption: { keys, current }).',
        });
      }
      const report = await maintenance.encrypt(sessionId, key, encryptOptions.rekey === true);
      sessionKeys.delete(sessionId);
      journalHeads.set(sessionId, -1, null);
      return report;
    },

    async keysOf(sessionId: string) {
      const sealedKey = (column: string) => `CASE WHEN ${column}->>'sealed' IS NOT NULL THEN ${column}->>'key' END`;
      const result = await query<{ key: string }>(
        `read session ${sessionId}`,
        `SELECT DISTINCT key FROM (
           SELECT ${sealedKey('header')} AS key FROM ${schema}.sessions WHERE id = $1
           UNION ALL SELECT ${sealedKey('summary')} FROM ${schema}.sessions WHERE id = $1
           UNION ALL SELECT ${sealedKey('payload')} FROM ${schema}.events WHERE session_id = $1
           UNION ALL SELECT ${sealedKey('batch_summary')} FROM ${schema}.events WHERE session_id = $1
           UNION ALL SELECT ${sealedKey('state')} FROM ${schema}.snapshots WHERE session_id = $1
         ) keys WHERE key IS NOT NULL ORDER BY key`,
        [sessionId],
      );
      return result.rows.map((row) => row.key);
    },

    verify: maintenance.verify,
    repair: maintenance.repair,
    rewrite: createJournalRewrite({
      schema,
      sealingKey,
      inTransaction,
      notify: notifyUpdated,
      headMoved: (sessionId, seq, hash) => journalHeads.set(sessionId, seq, hash),
    }),

    async watch(listener: SessionWatchListener) {
      await ensureReady();
      const watch = await watchSessions(pool, channel, listener, location, () => watches.delete(watch));
      watches.add(watch);
      return watch;
    },

    async close() {
      if (closed) return;
      closed = true;
      await Promise.allSettled([...heldLeases].map((lease) => lease.release()));
      await announcer.settled();
      await Promise.allSettled([...watches].map((watch) => watch.close()));
      if (owned) await pool.end();
    },
  };
  return store;
}

/** The SELECT for `list`: every SessionQuery field becomes a WHERE clause on an indexed column. */
export function buildListQuery(
  schema: string,
  query: SessionQuery,
  workspaces?: string[],
): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const parameter = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  const conditions = ['summary IS NOT NULL'];
  if (query.status) conditions.push(`status = ANY(${parameter(query.status)}::text[])`);
  if (query.mode) conditions.push(`mode = ANY(${parameter(query.mode)}::text[])`);
  if (workspaces) conditions.push(`workspace_dir = ANY(${parameter(workspaces)}::text[])`);
  else if (query.workspaceDir !== undefined) conditions.push(`workspace_dir = ${parameter(query.workspaceDir)}`);
  if (query.parentId !== undefined) conditions.push(`parent_id = ${parameter(query.parentId)}`);
  // Times are ISO strings compared byte-wise (COLLATE "C"), exactly as matchesQuery compares them.
  if (query.since !== undefined) conditions.push(`updated_at >= ${parameter(query.since)}`);
  if (query.before !== undefined) conditions.push(`updated_at < ${parameter(query.before)}`);
  if (query.idPrefix !== undefined) conditions.push(`starts_with(id, ${parameter(query.idPrefix)})`);
  let text = `SELECT id, summary, mode, status, created_at, updated_at, parent_id, last_seq FROM ${schema}.sessions WHERE ${conditions.join(' AND ')}
    ORDER BY updated_at DESC, id DESC`;
  if (query.limit !== undefined) text += ` LIMIT ${parameter(query.limit)}`;
  if (query.offset !== undefined) text += ` OFFSET ${parameter(query.offset)}`;
  return { text, values };
}
