import { createEngine } from '@resume/core';
import {
  AppendConflictError,
  createSessionId,
  JournalCorruptedError,
  type JournalEvent,
  LeaseLostError,
  SessionExistsError,
  type SessionHeader,
  SessionLockedError,
  SessionNotFoundError,
  type SessionStore,
  type SessionSummary,
  StoreIoError,
} from '@resume/core/spec';
import { messageEvent, messageEvents, testHeader, testSummary } from '@resume/core/testing';
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createPostgresStore } from './postgres-store.js';
import { freezableProxy } from './testing/freezable-proxy.js';
import { announceSkip } from './testing/postgres-cluster.js';
import { collect, postgres, useTestDatabase } from './testing/test-database.js';

const skipped = announceSkip(postgres);

/** Records each statement the pool's connections send (its text, whitespace folded, and its values). */
function recordStatements(pool: pg.Pool): Array<{ text: string; values: unknown[] }> {
  const sent: Array<{ text: string; values: unknown[] }> = [];
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as { query: unknown }).query = (...args: unknown[]) => {
      const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | undefined)?.text;
      const values = Array.isArray(args[1]) ? args[1] : [];
      sent.push({ text: String(text).replace(/\s+/g, ' ').trim(), values });
      return query(...args);
    };
  });
  return sent;
}

/** The most rows any node of a statement's plan handled, run with `values` (EXPLAIN ANALYZE). */
async function rowsHandled(pool: pg.Pool, text: string, values: unknown[]): Promise<number> {
  const result = await pool.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
    `EXPLAIN (ANALYZE, FORMAT JSON) ${text}`,
    values,
  );
  const most = (node: PlanNode): number => Math.max(node['Actual Rows'], ...(node.Plans ?? []).map(most));
  return most(result.rows[0]?.['QUERY PLAN'][0]?.Plan ?? { 'Actual Rows': 0 });
}
interface PlanNode {
  'Actual Rows': number;
  Plans?: PlanNode[];
}

/** Creates a session whose first batch holds `count` messages. */
async function sessionWith(store: SessionStore, count: number): Promise<SessionHeader> {
  const header = testHeader();
  await store.create(header);
  const batch = { expectedSeq: 0, epoch: 0, events: messageEvents(1, count), summary: testSummary(header, count) };
  await store.append(header.id, batch);
  return header;
}

describe.skipIf(!postgres.available)(`PostgreSQL store ${skipped}`, () => {
  const database = useTestDatabase();

  it('round-trips headers and events exactly, including text jsonb could not hold', async () => {
    const store = database.openStore();
    const header = testHeader({ title: 'nul \u0000 and emoji 🎉', options: { z: 1, a: [1.5, 'x'] } });
    await store.create(header);
    const events = [
      messageEvent(1, 'binary-ish \u0000\u0001 content'),
      messageEvent(2, 'lone surrogate \ud800 and "quotes" and \\ backslash'),
      messageEvent(3),
    ];
    await store.append(header.id, { expectedSeq: 0, epoch: 0, events, summary: testSummary(header, 3) });

    expect(await store.getHeader(header.id)).toEqual(header);
    expect(await collect(store.read(header.id))).toEqual(events);
    expect(await collect(store.read(header.id, { fromSeq: 2, toSeq: 2 }))).toEqual([events[1]]);
    expect((await store.getSummary(header.id))?.title).toBe(header.title);
    await expect(store.create(header)).rejects.toSatisfy((error: unknown) => SessionExistsError.isInstance(error));
  });

  it('streams long journals across pages in order', async () => {
    const store = database.openStore();
    const header = await sessionWith(store, 1_234);
    const seqs = (await collect(store.read(header.id, { fromSeq: 3 }))).map((event) => event.seq);
    expect(seqs).toEqual(Array.from({ length: 1_232 }, (_, index) => index + 3));
  });

  it('refuses a stale expected seq and never interleaves two writers', async () => {
    const first = database.openStore();
    const second = database.openStore({ schema: first.schema });
    const header = await sessionWith(first, 1);

    const results = await Promise.allSettled(
      [first, second].map((store, index) =>
        store.append(header.id, {
          expectedSeq: 1,
          epoch: 0,
          events: [messageEvent(2, `writer ${index}`), messageEvent(3, `writer ${index}`)],
          summary: testSummary(header, 3),
        }),
      ),
    );
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    const failure = results.find((result) => result.status === 'rejected');
    expect(AppendConflictError.isInstance(failure?.reason)).toBe(true);
    const contents = (await collect(first.read(header.id))).map((event) =>
      event.type === 'message-added' ? event.message.content : '',
    );
    expect(new Set(contents.slice(1)).size).toBe(1);

    await expect(
      first.append(header.id, { expectedSeq: 1, epoch: 0, events: [messageEvent(2)], summary: testSummary(header, 2) }),
    ).rejects.toSatisfy((error: unknown) => AppendConflictError.isInstance(error));
    await expect(
      first.append(testHeader().id, {
        expectedSeq: 0,
        epoch: 0,
        events: [messageEvent(1)],
        summary: testSummary(header, 1),
      }),
    ).rejects.toSatisfy((error: unknown) => SessionNotFoundError.isInstance(error));
    expect(await collect(first.read(header.id))).toHaveLength(3);
  });

  it('lists in SQL honouring every query field, newest first', async () => {
    const store = database.openStore();
    const parent = testHeader({ mode: 'discussion' });
    const child = testHeader({ mode: 'chain', parentId: parent.id, workspaceDir: '/other' });
    const third = testHeader({ mode: 'discussion' });
    const unsummarized = testHeader();
    const summaries: SessionSummary[] = [];
    for (const [header, status, updatedAt] of [
      [parent, 'completed', '2025-01-03T00:00:00.000Z'],
      [child, 'running', '2025-01-05T00:00:00.000Z'],
      [third, 'failed', '2025-01-04T00:00:00.000Z'],
    ] as const) {
      await store.create(header);
      const summary = testSummary(header, 1, { status, updatedAt });
      summaries.push(summary);
      await store.append(header.id, { expectedSeq: 0, epoch: 0, events: [messageEvent(1)], summary });
    }
    await store.create(unsummarized);
    const ids = async (query: Parameters<typeof store.list>[0]) =>
      (await store.list(query)).map((summary) => summary.id);

    expect(await store.list()).toEqual([summaries[1], summaries[2], summaries[0]]);
    expect(await ids({ status: ['completed', 'failed'] })).toEqual([third.id, parent.id]);
    expect(await ids({ mode: ['chain'] })).toEqual([child.id]);
    expect(await ids({ workspaceDir: '/other' })).toEqual([child.id]);
    expect(await ids({ parentId: parent.id })).toEqual([child.id]);
    expect(await ids({ since: '2025-01-04T00:00:00.000Z' })).toEqual([child.id, third.id]);
    expect(await ids({ before: '2025-01-04T00:00:00.000Z' })).toEqual([parent.id]);
    expect(await ids({ idPrefix: third.id.slice(0, 21) })).toEqual([third.id]);
    expect(await ids({ idPrefix: '%' })).toEqual([]);
    expect(await ids({ limit: 1, offset: 1 })).toEqual([third.id]);
  });

  it('deletes a session with everything derived from it', async () => {
    const store = database.openStore();
    const header = await sessionWith(store, 1);
    await store.putSnapshot(header.id, { seq: 1, formatVersion: 1, state: { messages: ['a'] } });
    await store.acquireLease(header.id, { holder: { pid: process.pid, host: 'here' } });

    expect(await store.delete(header.id)).toBe(true);
    expect(await store.delete(header.id)).toBe(false);
    expect(await store.getHeader(header.id)).toBeNull();
    expect(await store.list()).toEqual([]);
    await expect(collect(store.read(header.id))).rejects.toSatisfy((error: unknown) =>
      SessionNotFoundError.isInstance(error),
    );
  });

  it('keeps the latest snapshot per session, with arrays and nested state intact', async () => {
    const store = database.openStore();
    const header = testHeader();
    await store.create(header);
    expect(await store.getSnapshot(header.id)).toBeNull();
    await store.putSnapshot(header.id, { seq: 1, formatVersion: 1, state: [1, { a: null }] });
    await store.putSnapshot(header.id, { seq: 5, formatVersion: 2, state: { nested: { list: [1, 2] } } });
    expect(await store.getSnapshot(header.id)).toEqual({
      seq: 5,
      formatVersion: 2,
      state: { nested: { list: [1, 2] } },
    });
    await expect(store.putSnapshot(testHeader().id, { seq: 1, formatVersion: 1, state: {} })).rejects.toSatisfy(
      (error: unknown) => SessionNotFoundError.isInstance(error),
    );
  });

  it('stores blobs once by content hash and detects a tampered blob', async () => {
    const store = database.openStore();
    const content = new TextEncoder().encode('file content \u0000 with bytes');
    const hash = await store.putBlob(content);
    expect(await store.putBlob(content)).toBe(hash);
    expect(await store.getBlob(hash)).toEqual(content);
    expect(await store.getBlob('0'.repeat(64))).toBeNull();
    expect(await store.getBlob('../etc/passwd')).toBeNull();

    const pool = database.openPool();
    const count = await pool.query(`SELECT count(*)::int AS count FROM "${store.schema}".blobs`);
    expect(count.rows[0].count).toBe(1);
    await pool.query(`UPDATE "${store.schema}".blobs SET content = 'tampered'::bytea`);
    await expect(store.getBlob(hash)).rejects.toSatisfy((error: unknown) => JournalCorruptedError.isInstance(error));
  });

  it('reports a corrupted event row with its table and seq', async () => {
    const store = database.openStore();
    const header = await sessionWith(store, 3);
    const pool = database.openPool();
    await pool.query(`UPDATE "${store.schema}".events SET payload = '{"type":"message-added"}' WHERE seq = 2`);

    const error = await collect(store.read(header.id)).catch((caught: unknown) => caught);
    expect(JournalCorruptedError.isInstance(error)).toBe(true);
    expect((error as JournalCorruptedError).message).toContain(`${store.schema}.events, seq 2`);
    expect((error as JournalCorruptedError).sessionId).toBe(header.id);

    await pool.query(`DELETE FROM "${store.schema}".events WHERE seq = 2`);
    const gap = await collect(store.read(header.id)).catch((caught: unknown) => caught);
    expect((gap as JournalCorruptedError).message).toContain('jumps from seq 1 to 3');
  });

  it('keeps the replay operations of a snapshot, so an ordered open reads only the journal after it', async () => {
    const store = database.openStore();
    const engine = createEngine({ store, snapshotEvery: 4 });
    const session = await engine.createSession({ title: 'ordered', replay: 'ordered' });
    for (let index = 0; index < 6; index += 1) await session.step(`step-${index}`, async () => index);
    await session.close();
    const snapshot = await store.getSnapshot(session.id);
    expect(snapshot?.seq).toBeGreaterThan(1);
    const operations = snapshot?.operations ?? [];
    expect(operations.map((event) => event.type)).toContain('step-started');
    expect(operations.every((event) => event.seq <= (snapshot?.seq ?? 0))).toBe(true);
    // The journal's own events, as written.
    const journal = await collect(store.read(session.id, { toSeq: snapshot?.seq ?? 0 }));
    for (const operation of operations) expect(journal).toContainEqual(operation);

    // Reopened in order, the recorded steps replay without running again.
    const reopened = await engine.openSession(session.id, { replay: 'ordered' });
    for (let index = 0; index < 6; index += 1) {
      expect(await reopened.step(`step-${index}`, async () => -1)).toBe(index);
    }
    await reopened.close();
    await engine.close();
  });

  it('reads a snapshot whose kept operations are damaged as one without them', async () => {
    const store = database.openStore();
    const header = await sessionWith(store, 3);
    const operations = await collect(store.read(header.id));
    await store.putSnapshot(header.id, { seq: 3, formatVersion: 1, state: { kept: true }, operations });
    expect((await store.getSnapshot(header.id))?.operations).toEqual(operations);
    const pool = database.openPool();
    await pool.query(`UPDATE "${store.schema}".snapshots SET operations = '[{"seq": 9}]' WHERE session_id = $1`, [
      header.id,
    ]);
    const snapshot = await store.getSnapshot(header.id);
    expect(snapshot).toEqual({ seq: 3, formatVersion: 1, state: { kept: true } });
  });

  it('commits a checkpoint in one round trip to the server, as one INSERT would', async () => {
    const proxy = await freezableProxy(new URL(database.url));
    try {
      const through = new URL(database.url);
      through.port = String(proxy.port);
      const store = database.openStore({ connectionString: through.toString() });
      const header = await sessionWith(store, 1);
      const lease = await store.acquireLease(header.id, { holder: { pid: process.pid, host: 'here' } });
      const append = (seq: number) =>
        store.append(header.id, {
          expectedSeq: seq - 1,
          epoch: lease.epoch,
          events: [messageEvent(seq)],
          summary: testSummary(header, seq),
        });
      await append(2);
      // Watchers hear of appends after their commit, several per statement, on the side.
      const announcements = /pg_notify/;
      const before = proxy.roundTrips(announcements);
      for (let seq = 3; seq <= 12; seq += 1) await append(seq);
      expect(proxy.roundTrips(announcements) - before).toBe(10);
      expect((await collect(store.read(header.id))).map((event) => event.seq)).toEqual(
        Array.from({ length: 12 }, (_, index) => index + 1),
      );

      // Another writer in between: the next append learns the new head and is refused as before.
      const other = database.openStore({ schema: store.schema });
      await lease.release();
      const taken = await other.acquireLease(header.id, { holder: { pid: process.pid, host: 'there' } });
      await other.append(header.id, {
        expectedSeq: 12,
        epoch: taken.epoch,
        events: [messageEvent(13)],
        summary: testSummary(header, 13),
      });
      await expect(append(13)).rejects.toSatisfy((error: unknown) => LeaseLostError.isInstance(error));
      await expect(
        store.append(header.id, {
          expectedSeq: 12,
          epoch: taken.epoch,
          events: [messageEvent(13)],
          summary: testSummary(header, 13),
        }),
      ).rejects.toSatisfy((error: unknown) => AppendConflictError.isInstance(error));
      await store.append(header.id, {
        expectedSeq: 13,
        epoch: taken.epoch,
        events: [messageEvent(14)],
        summary: testSummary(header, 14),
      });
      const events = await collect(other.read(header.id));
      expect(events.map((event) => event.seq)).toEqual(Array.from({ length: 14 }, (_, index) => index + 1));
    } finally {
      proxy.close();
    }
  });

  it('commits the appends of sessions writing at once together, each checked on its own', async () => {
    const proxy = await freezableProxy(new URL(database.url));
    try {
      const through = new URL(database.url);
      through.port = String(proxy.port);
      const store = database.openStore({ connectionString: through.toString(), maxConnections: 20 });
      const headers = await Promise.all(Array.from({ length: 20 }, () => sessionWith(store, 1)));
      const appendTo = (header: SessionHeader, seq: number, expectedSeq = seq - 1) =>
        store.append(header.id, {
          expectedSeq,
          epoch: 0,
          events: [messageEvent(seq)],
          summary: testSummary(header, seq),
        });
      const announcements = /pg_notify/;
      const before = proxy.roundTrips(announcements);
      const stale = headers[7];
      const results = await Promise.allSettled(
        headers.map(async (header) => {
          for (let seq = 2; seq <= 6; seq += 1) {
            // One writer is behind: its append fails alone, the others in its statement go on.
            await appendTo(header, seq, header === stale && seq === 4 ? 2 : seq - 1);
          }
        }),
      );
      // 100 appends; one round trip each without sharing.
      expect(proxy.roundTrips(announcements) - before).toBeLessThan(50);
      expect(results.filter((result) => result.status === 'rejected')).toHaveLength(1);
      const refused = results[7];
      expect(refused?.status === 'rejected' && AppendConflictError.isInstance(refused.reason)).toBe(true);
      for (const header of headers) {
        const seqs = (await collect(store.read(header.id))).map((event) => event.seq);
        expect(seqs).toEqual(header === stale ? [1, 2, 3] : [1, 2, 3, 4, 5, 6]);
        expect((await store.getSummary(header.id))?.lastSeq).toBe(header === stale ? 3 : 6);
      }
    } finally {
      proxy.close();
    }
  });

  it('migrates once when many stores start at the same time', async () => {
    const schema = database.freshSchema();
    const stores = Array.from({ length: 4 }, () => database.openStore({ schema }));
    const reports = await Promise.all(stores.map((store) => store.migrate()));
    expect(reports.flatMap((report) => report.applied)).toEqual([1, 2, 3, 4, 5]);
    const { migrate } = await import('./migrations.js');
    expect(await migrate({ connectionString: database.url, schema })).toEqual({ schema, applied: [], version: 5 });
  });

  it('refuses a schema migrated by a newer version', async () => {
    const store = database.openStore();
    await store.migrate();
    const pool = database.openPool();
    await pool.query(`INSERT INTO "${store.schema}".migrations (version, name) VALUES (99, 'from the future')`);
    const again = database.openStore({ schema: store.schema });
    await expect(again.list()).rejects.toThrow(/format version 99, newer than this Conclave understands/);
  });

  it('tells watchers on other connections about created, updated and deleted sessions', async () => {
    const writer = database.openStore();
    const watcher = database.openStore({ schema: writer.schema });
    const changes: unknown[] = [];
    let notify: () => void = () => {};
    const watch = await watcher.watch((change) => {
      changes.push(change);
      if (changes.length === 3) notify();
    });
    const allSeen = new Promise<void>((resolve) => {
      notify = resolve;
    });
    const header = await sessionWith(writer, 2);
    await writer.delete(header.id);
    await allSeen;
    await watch.close();
    expect(changes).toEqual([
      { sessionId: header.id, change: 'created', lastSeq: 0 },
      { sessionId: header.id, change: 'updated', lastSeq: 2 },
      { sessionId: header.id, change: 'deleted', lastSeq: null },
    ]);
  });

  it('never shows the password of its connection string', async () => {
    const url = new URL(database.url);
    url.password = 's3cret-pass';
    url.port = '1'; // nothing listens there
    const store = createPostgresStore({ connectionString: url.toString(), schema: 'unused' });
    try {
      expect(store.location).not.toContain('s3cret-pass');
      expect(store.location).toContain('***');
      const error = await store.list().catch((caught: unknown) => caught);
      expect(StoreIoError.isInstance(error)).toBe(true);
      expect(String((error as Error).message)).not.toContain('s3cret-pass');
      expect((error as StoreIoError).hint).toMatch(/server is running/);
    } finally {
      await store.close();
    }
  });

  it('creates again a session whose creator died before its first write, once its lease is free', async () => {
    const store = database.openStore();
    const id = createSessionId();
    const input = { id, title: 'each: item 7', mode: 'workflow' as const };
    // The first worker dies at the session's first write: the table has its header and nothing else.
    const dying = createEngine({ store: { ...store, append: () => Promise.reject(new Error('killed')) } });
    await expect(dying.createSession(input)).rejects.toThrow('killed');
    expect(await store.getHeader(id)).not.toBeNull();

    const worker = createEngine({ store, holder: { pid: 2, host: 'worker-b' } });
    const live = await store.acquireLease(id, { holder: { pid: 1, host: 'worker-a' } });
    await expect(worker.createSession(input)).rejects.toSatisfy((error) => SessionLockedError.isInstance(error));
    await live.release();
    const session = await worker.createSession(input);
    await session.step('work', async () => 'done');
    await session.complete();
    await session.close();
    const state = await worker.readSession(id);
    expect([state.status, state.steps.map((step) => step.output)]).toEqual(['completed', ['done']]);
    expect((await store.verify(id)).problems).toEqual([]);
    await store.close();
  });

  it('opens over a schema at the newest version with one statement, and reads a range in two', async () => {
    const schema = database.freshSchema();
    const writer = database.openStore({ schema });
    const header = await sessionWith(writer, 20);
    await writer.close();

    const pool = database.openPool();
    const sent = recordStatements(pool);
    const store = database.openStore({ pool, schema });
    expect((await store.getHeader(header.id))?.id).toBe(header.id);
    // No lock, no transaction: what the schema has applied, then the header.
    expect(sent.map((statement) => statement.text)).toEqual([
      expect.stringMatching(/^SELECT count\(\*\).* FROM "test_\w+"\.migrations$/),
      expect.stringMatching(/^SELECT header/),
    ]);

    sent.length = 0;
    const seqs = (await collect(store.read(header.id, { fromSeq: 5, toSeq: 8 }))).map((event) => event.seq);
    expect(seqs).toEqual([5, 6, 7, 8]);
    expect(sent).toHaveLength(2);
    // The event before the range gone: the read says which one.
    await pool.query(`DELETE FROM ${schema}.events WHERE session_id = $1 AND seq = 4`, [header.id]);
    await expect(collect(store.read(header.id, { fromSeq: 5 }))).rejects.toThrow(/seq 4/);
  });

  it('reads a long journal page by page, each page reading its own rows only, whatever the statistics say', async () => {
    // Statistics gathered when the journal was short (the server analyzes a table now and then)
    // put later seqs beyond what the planner knows of: without a bound on each page's seqs, it
    // scanned every row after the page and sorted them, so a whole read took time in the square
    // of the journal's length.
    const schema = database.freshSchema();
    const writer = database.openStore({ schema });
    const header = testHeader();
    await writer.create(header);
    const pool = database.openPool();
    const sent = recordStatements(pool);
    await pool.query(`ALTER TABLE ${schema}.events SET (autovacuum_enabled = false)`);
    const count = 2_000;
    const append = (from: number, to: number) =>
      writer.append(header.id, {
        expectedSeq: from - 1,
        epoch: 0,
        events: messageEvents(from, to - from + 1),
        summary: testSummary(header, to),
      });
    await append(1, 10);
    await pool.query(`ANALYZE ${schema}.events`);
    await append(11, count);
    await writer.close();

    const store = database.openStore({ pool, schema });
    /** The rows the pages `work` asked for handled, all pages together. */
    const rowsOfPages = async (work: () => Promise<unknown>) => {
      sent.length = 0;
      await work();
      const pages = sent.filter((statement) => /^SELECT seq, payload::text/.test(statement.text));
      expect(pages.length).toBeGreaterThanOrEqual(4);
      let handled = 0;
      for (const page of pages) handled += await rowsHandled(pool, page.text, page.values);
      return handled;
    };
    // Each row once: 3,500 rows before, for the read and for the check alike.
    expect(await rowsOfPages(async () => expect(await collect(store.read(header.id))).toHaveLength(count))).toBe(count);
    expect(await rowsOfPages(async () => expect((await store.verify(header.id)).problems).toEqual([]))).toBe(count);
    // From the end: each page with the row its first one chains from.
    const newestFirst = async () => {
      const pages: JournalEvent[][] = [];
      for await (const page of store.readNewestFirst(header.id)) pages.unshift(page);
      expect(pages.flat().map((event) => event.seq)).toEqual(Array.from({ length: count }, (_, at) => at + 1));
    };
    expect(await rowsOfPages(newestFirst)).toBe(count + Math.ceil(count / 500) - 1);
    await store.close();
  });

  it('reads the journal newest first, a page at a time, each row checked against the chain when it is reached', async () => {
    const schema = database.freshSchema();
    const store = database.openStore({ schema });
    const header = testHeader();
    await store.create(header);
    await store.append(header.id, {
      expectedSeq: 0,
      epoch: 0,
      events: messageEvents(1, 1_200),
      summary: testSummary(header, 1_200),
    });
    const inOrder = await collect(store.read(header.id));
    const read = async () => {
      const pages: number[][] = [];
      const error = await (async () => {
        for await (const page of store.readNewestFirst(header.id)) pages.push(page.map((event) => event.seq));
      })().catch((caught: unknown) => caught);
      return { pages, error: JournalCorruptedError.isInstance(error) ? error : error ? String(error) : null };
    };
    const whole = await read();
    expect(whole.error).toBeNull();
    expect(whole.pages.map((page) => [page[0], page.at(-1)])).toEqual([
      [701, 1_200],
      [201, 700],
      [1, 200],
    ]);
    const events: JournalEvent[] = [];
    for await (const page of store.readNewestFirst(header.id)) events.unshift(...page);
    expect(events).toEqual(inOrder);

    // A row changed behind the store's back is found where it is: the newer pages were given.
    const pool = database.openPool();
    await pool.query(
      `UPDATE ${schema}.events SET payload = jsonb_set(payload::jsonb, '{message,content}', '"changed"')::json WHERE session_id = $1 AND seq = 300`,
      [header.id],
    );
    const changed = await read();
    expect(changed.pages.map((page) => page[0])).toEqual([701]);
    expect(changed.error).toMatchObject({ problem: expect.stringContaining('does not match its checksum') });
    // A row removed: the page that should hold it says which.
    await pool.query(`DELETE FROM ${schema}.events WHERE session_id = $1 AND seq = 1000`, [header.id]);
    const removed = await read();
    expect(removed.pages).toEqual([]);
    expect(removed.error).toMatchObject({ problem: expect.stringContaining('event 1000 is missing') });
    await store.close();
  });
});
