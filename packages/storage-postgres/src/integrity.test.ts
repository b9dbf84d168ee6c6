// The checksum chain over a session's event rows, and `verify` / `repair` on PostgreSQL:
// rows changed, renumbered or deleted behind the store's back are found, and a repair
// keeps the valid prefix and sets the rest aside instead of deleting it.
import {
  JournalCorruptedError,
  type JournalEvent,
  type SessionHeader,
  SessionLockedError,
  type SessionStore,
} from '@resume/core/spec';
import { messageEvents, testHeader, testSummary } from '@resume/core/testing';
import { describe, expect, it } from 'vitest';
import { announceSkip } from './testing/postgres-cluster.js';
import { collect, postgres, useTestDatabase } from './testing/test-database.js';

const skipped = announceSkip(postgres);

/** A session written in batches of the given sizes (one message per event). */
async function sessionInBatches(store: SessionStore, sizes: number[]): Promise<SessionHeader> {
  const header = testHeader();
  await store.create(header);
  let seq = 0;
  for (const size of sizes) {
    await store.append(header.id, {
      expectedSeq: seq,
      epoch: 0,
      events: messageEvents(seq + 1, size),
      summary: testSummary(header, seq + size),
    });
    seq += size;
  }
  return header;
}

async function readError(store: SessionStore, id: string): Promise<JournalCorruptedError> {
  const error = await collect(store.read(id)).catch((caught: unknown) => caught);
  if (!JournalCorruptedError.isInstance(error)) throw new Error(`expected a JournalCorruptedError, got ${error}`);
  return error;
}

describe.skipIf(!postgres.available)(`PostgreSQL store integrity ${skipped}`, () => {
  const database = useTestDatabase();

  it('refuses an event row whose message was replaced by other valid JSON', async () => {
    const store = database.openStore();
    const header = await sessionInBatches(store, [3]);
    const pool = database.openPool();
    await pool.query(
      `UPDATE "${store.schema}".events SET payload = replace(payload::text, 'message 2', 'message X')::json WHERE seq = 2`,
    );

    const error = await readError(store, header.id);
    expect(error.message).toContain(`${store.schema}.events, seq 2`);
    expect(error.message).toContain('checksum');
    expect(error.sessionId).toBe(header.id);
  });

  it('refuses a row deleted with the rows after it renumbered, and a journal cut at its end', async () => {
    const store = database.openStore();
    const header = await sessionInBatches(store, [2, 2]);
    const pool = database.openPool();
    const events = `"${store.schema}".events`;
    await pool.query(`DELETE FROM ${events} WHERE session_id = $1 AND seq = 3`, [header.id]);
    await pool.query(
      `UPDATE ${events} SET seq = 3, payload = replace(payload::text, '"seq":4', '"seq":3')::json WHERE session_id = $1 AND seq = 4`,
      [header.id],
    );
    await pool.query(`UPDATE "${store.schema}".sessions SET journal_seq = 3 WHERE id = $1`, [header.id]);
    expect((await readError(store, header.id)).message).toContain('seq 3');

    const cut = await sessionInBatches(store, [2, 2]);
    await pool.query(`DELETE FROM ${events} WHERE session_id = $1 AND seq > 2`, [cut.id]);
    await pool.query(`UPDATE "${store.schema}".sessions SET journal_seq = 2 WHERE id = $1`, [cut.id]);
    expect((await readError(store, cut.id)).message).toContain('seq 2');
  });

  it('verifies a session and names each damaged row', async () => {
    const store = database.openStore();
    const header = await sessionInBatches(store, [3, 2]);
    expect(await store.verify?.(header.id)).toEqual({ sessionId: header.id, lastSeq: 5, problems: [] });

    const pool = database.openPool();
    await pool.query(
      `UPDATE "${store.schema}".events SET payload = replace(payload::text, 'message 4', 'message Y')::json WHERE seq = 4`,
    );
    const report = await store.verify?.(header.id);
    expect(report?.lastSeq).toBe(3);
    expect(report?.problems).toEqual([
      expect.objectContaining({ file: `PostgreSQL table ${store.schema}.events, seq 4` }),
    ]);
    expect(report?.problems[0]?.problem).toContain('checksum');
  });

  it('names a row far past the end of the journal, beyond a gap wider than a page of the check', async () => {
    const store = database.openStore();
    const header = await sessionInBatches(store, [3, 2]);
    const pool = database.openPool();
    // A copy of the last row, numbered well past the end (a row written behind the store's back).
    await pool.query(
      `INSERT INTO "${store.schema}".events (session_id, seq, epoch, type, payload, hash)
         SELECT session_id, 5000, epoch, type, payload, hash FROM "${store.schema}".events WHERE seq = 5`,
    );
    const report = await store.verify?.(header.id);
    expect(report?.problems).toEqual([
      expect.objectContaining({ file: `PostgreSQL table ${store.schema}.events, seq 5000` }),
    ]);
  });

  it('repairs a damaged session: keeps whole batches before the damage, sets the rest aside, takes new appends', async () => {
    const store = database.openStore();
    const header = await sessionInBatches(store, [2, 3, 2]);
    const pool = database.openPool();
    await pool.query(
      `UPDATE "${store.schema}".events SET payload = replace(payload::text, 'message 4', 'message Z')::json WHERE seq = 4`,
    );

    const dryRun = await store.repair?.(header.id, { dryRun: true });
    expect(dryRun).toMatchObject({ keptSeq: 2, dryRun: true, droppedEvents: { first: 3, last: 7 } });
    expect((await readError(store, header.id)).message).toContain('seq 4');

    const report = await store.repair?.(header.id);
    expect(report).toMatchObject({ sessionId: header.id, keptSeq: 2, droppedEvents: { first: 3, last: 7 } });
    expect(report?.removedBytes).toBeGreaterThan(0);
    expect(report?.savedTo).toContain(`${store.schema}.damaged_rows`);
    expect(report?.actions?.join('\n')).toContain('seq 4');

    expect((await collect(store.read(header.id))).map((event) => event.seq)).toEqual([1, 2]);
    expect((await store.getSummary(header.id))?.lastSeq).toBe(2);
    expect(await store.verify?.(header.id)).toMatchObject({ lastSeq: 2, problems: [] });
    const aside = await pool.query<{ seq: string; content: string }>(
      `SELECT seq, content FROM "${store.schema}".damaged_rows WHERE session_id = $1 AND source = 'events' ORDER BY seq`,
      [header.id],
    );
    expect(aside.rows.map((row) => Number(row.seq))).toEqual([3, 4, 5, 6, 7]);
    expect(aside.rows[1]?.content).toContain('message Z');

    await store.append(header.id, {
      expectedSeq: 2,
      epoch: 1,
      events: messageEvents(3, 1),
      summary: testSummary(header, 3),
    });
    expect((await collect(store.read(header.id))).map((event) => event.seq)).toEqual([1, 2, 3]);
    expect((await store.repair?.(header.id))?.actions).toEqual([]);
  });

  it('repairs a replaced header from the session-created event and a snapshot past the kept events', async () => {
    const store = database.openStore();
    const header = testHeader();
    await store.create(header);
    const created: JournalEvent = { type: 'session-created', seq: 1, at: header.createdAt, header };
    await store.append(header.id, {
      expectedSeq: 0,
      epoch: 0,
      events: [created, ...messageEvents(2, 2)],
      summary: testSummary(header, 3),
    });
    await store.putSnapshot(header.id, { seq: 3, formatVersion: 1, state: { any: 'state' } });
    const pool = database.openPool();
    await pool.query(`UPDATE "${store.schema}".sessions SET header = '{"id":"nope"}' WHERE id = $1`, [header.id]);
    await pool.query(`DELETE FROM "${store.schema}".events WHERE seq = 3`);

    const before = await store.verify?.(header.id);
    expect(before?.problems.map((problem) => problem.file)).toEqual([
      `PostgreSQL table ${store.schema}.sessions, id ${header.id}`,
      `PostgreSQL table ${store.schema}.events, seq 3`,
      `PostgreSQL table ${store.schema}.snapshots, id ${header.id}`,
    ]);
    const report = await store.repair?.(header.id);
    expect(report?.keptSeq).toBe(1);
    expect(await store.getHeader(header.id)).toEqual(header);
    expect(await store.getSnapshot(header.id)).toBeNull();
    expect(await store.verify?.(header.id)).toMatchObject({ lastSeq: 1, problems: [] });
  });

  it('reads rows written before checksums existed, and chains the rows written after them', async () => {
    const store = database.openStore();
    const header = await sessionInBatches(store, [2]);
    const pool = database.openPool();
    await pool.query(`UPDATE "${store.schema}".events SET hash = NULL, batch_summary = NULL`);
    await pool.query(`UPDATE "${store.schema}".sessions SET journal_hash = NULL`);
    await store.append(header.id, {
      expectedSeq: 2,
      epoch: 0,
      events: messageEvents(3, 2),
      summary: testSummary(header, 4),
    });

    expect((await collect(store.read(header.id))).map((event) => event.seq)).toEqual([1, 2, 3, 4]);
    expect(await store.verify?.(header.id)).toMatchObject({ lastSeq: 4, problems: [] });
    await pool.query(`UPDATE "${store.schema}".events SET hash = NULL WHERE seq = 4`);
    expect((await readError(store, header.id)).message).toContain('seq 4');
  });

  it('rebuilds a damaged summary from the one its last append wrote, and leaves a session never appended to alone', async () => {
    const store = database.openStore();
    const header = await sessionInBatches(store, [2]);
    const pool = database.openPool();
    await pool.query(`UPDATE "${store.schema}".sessions SET summary = '{"title":1}' WHERE id = $1`, [header.id]);
    await expect(store.list()).rejects.toSatisfy((error: unknown) => JournalCorruptedError.isInstance(error));
    expect((await store.verify?.(header.id))?.problems[0]?.problem).toContain('invalid summary');

    await store.repair?.(header.id);
    expect(await store.list()).toEqual([testSummary(header, 2)]);
    const aside = await pool.query(`SELECT source, content FROM "${store.schema}".damaged_rows`);
    expect(aside.rows).toEqual([{ source: 'sessions.summary', content: '{"title":1}' }]);

    const empty = testHeader();
    await store.create(empty);
    expect(await store.verify?.(empty.id)).toEqual({ sessionId: empty.id, lastSeq: 0, problems: [] });
    expect((await store.repair?.(empty.id))?.actions).toEqual([]);
    expect(await collect(store.read(empty.id))).toEqual([]);
  });

  it('refuses to repair a session a live writer holds', async () => {
    const store = database.openStore();
    const header = await sessionInBatches(store, [1]);
    const lease = await store.acquireLease(header.id, { holder: { pid: process.pid, host: 'elsewhere' } });
    await expect(store.repair?.(header.id, { dryRun: true })).rejects.toSatisfy((error: unknown) =>
      SessionLockedError.isInstance(error),
    );
    await lease.release();
  });
});
