// The store conformance suite: the semantics of `SessionStore` (spec/store.ts) as
// tests. Every store runs it from its own test file, handing over its test framework's
// functions (the suite depends on none):
//   describeStoreConformance('fs', async () => ({ store, cleanup, reopen }), { describe, it, beforeEach, afterEach });
// with `describe`, `it`, `beforeEach` and `afterEach` of vitest, jest, mocha or node:test.
// Lease holders are this process on this host, because stores that check liveness must
// see them as alive.

import { AssertionError } from 'node:assert';
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { inspect } from 'node:util';
import type { Keyring } from '../security/keyring.js';
import { blobName } from '../security/sealed-object.js';
import {
  AppendConflictError,
  EncryptionKeyUnavailableError,
  type JournalEvent,
  LeaseLostError,
  SessionExistsError,
  SessionLockedError,
  SessionNotFoundError,
  type SessionStore,
  type SessionSummary,
  UsageError,
} from '../spec/index.js';
import { expect, type TestFunctions } from './assertions.js';
import {
  fileSnapshotEvent,
  messageEvent,
  messageEvents,
  TEST_TIME,
  testHeader,
  testSessionId,
  testSummary,
} from './session-fixtures.js';

export interface ConformanceFixture {
  store: SessionStore;
  /** Closes the store and removes everything it wrote. */
  cleanup(): Promise<void>;
  /** A second store instance over the same data (durable stores), to check what survives a reopen. */
  reopen?(): Promise<SessionStore>;
  /** The keyring the store was given: the suite then checks encryption at rest too. */
  keyring?: Keyring;
  /** Everything the store wrote, as text (its files, or what `pg_dump` prints): no session's words may be in it. */
  storedText?(): Promise<string>;
  /** A store over the same data that holds no key. */
  reopenWithoutKey?(): Promise<SessionStore>;
}

/** How the suite runs: `encrypted` adds the cases of encryption at rest (the fixture gives `keyring`, `storedText` and `reopenWithoutKey`). */
export interface ConformanceOptions {
  encrypted?: boolean;
}

/** The summary as written, without the fields a store may fill in itself. */
function comparable(summary: SessionSummary | null) {
  if (!summary) return summary;
  const { archived: _archived, bytes: _bytes, ...rest } = summary;
  return rest;
}

async function collect(iterable: AsyncIterable<JournalEvent>): Promise<JournalEvent[]> {
  const events: JournalEvent[] = [];
  for await (const event of iterable) events.push(event);
  return events;
}

type StoreMethod = {
  [K in keyof SessionStore]-?: NonNullable<SessionStore[K]> extends (...args: never[]) => unknown ? K : never;
}[keyof SessionStore];

/**
 * What `store[method](...args)` failed with (a read's iterable is read to its end); when it
 * succeeds, an assertion error that shows the call, so a store's author sees what was accepted.
 */
async function refusal<M extends StoreMethod>(
  store: SessionStore,
  method: M,
  ...args: Parameters<NonNullable<SessionStore[M]>>
): Promise<unknown> {
  try {
    const result = (store[method] as (...values: unknown[]) => unknown).apply(store, args);
    if (result !== null && typeof result === 'object' && Symbol.asyncIterator in result) {
      await collect(result as AsyncIterable<JournalEvent>);
    } else {
      await result;
    }
  } catch (error) {
    return error;
  }
  const shown = args.map((arg) => inspect(arg, { depth: 3, breakLength: Number.POSITIVE_INFINITY, maxArrayLength: 4 }));
  throw new AssertionError({
    message: `expected store.${method}(${shown.join(', ')}) to fail, but it succeeded`,
    operator: 'to fail',
  });
}

const testFunctionNames = ['describe', 'it', 'beforeEach', 'afterEach'] as const;

/**
 * Registers the conformance cases for the store `factory` makes, with `test`: the
 * `describe`, `it`, `beforeEach` and `afterEach` of the test framework running them.
 */
export function describeStoreConformance(
  name: string,
  factory: () => Promise<ConformanceFixture>,
  test: TestFunctions,
  options: ConformanceOptions = {},
): void {
  const missing = testFunctionNames.filter(
    (key) => typeof (test as Partial<TestFunctions> | undefined)?.[key] !== 'function',
  );
  if (missing.length > 0) {
    throw new UsageError(
      `describeStoreConformance('${name}', factory, test) needs your test framework's functions; missing: ${missing.join(', ')}.`,
      {
        hint: 'Import describe, it, beforeEach and afterEach from the framework that runs the suite (vitest, jest, mocha or node:test) and call describeStoreConformance(name, factory, { describe, it, beforeEach, afterEach }).',
      },
    );
  }
  const { describe, it, beforeEach, afterEach } = test;
  describe(`SessionStore conformance: ${name}`, () => {
    let fixture: ConformanceFixture;
    let store: SessionStore;
    const holder = { pid: process.pid, host: hostname() };

    beforeEach(async () => {
      fixture = await factory();
      store = fixture.store;
    });
    afterEach(async () => {
      await fixture.cleanup();
    });

    /** Creates a session with `count` events appended in one batch; returns its id. */
    async function sessionWith(count: number, summary: Partial<SessionSummary> = {}): Promise<string> {
      const id = testSessionId();
      await store.create(testHeader({ id }));
      if (count > 0) {
        await store.append(id, {
          expectedSeq: 0,
          epoch: 0,
          events: messageEvents(1, count),
          summary: testSummary(id, count, summary),
        });
      }
      return id;
    }

    describe('create and headers', () => {
      it('returns the header written by create', async () => {
        const id = testSessionId();
        const header = testHeader({ id, title: 'nightly report', specHash: 'abc', options: { provider: 'scripted' } });
        await store.create(header);
        expect(await store.getHeader(id)).toEqual(header);
      });

      it('refuses a second create with the same id', async () => {
        const id = testSessionId();
        await store.create(testHeader({ id }));
        const error = await refusal(store, 'create', testHeader({ id, title: 'other' }));
        expect(SessionExistsError.isInstance(error)).toBe(true);
        expect((await store.getHeader(id))?.title).toBe(`session ${id}`);
      });

      it('knows nothing of unknown sessions', async () => {
        const id = testSessionId();
        expect(await store.getHeader(id)).toBeNull();
        expect(await store.getSummary(id)).toBeNull();
        expect(await store.inspectLease(id)).toBeNull();
        expect(SessionNotFoundError.isInstance(await refusal(store, 'read', id))).toBe(true);
        const append = await refusal(store, 'append', id, {
          expectedSeq: 0,
          epoch: 0,
          events: messageEvents(1, 1),
          summary: testSummary(id),
        });
        expect(SessionNotFoundError.isInstance(append)).toBe(true);
        expect(SessionNotFoundError.isInstance(await refusal(store, 'acquireLease', id, { holder }))).toBe(true);
        expect(SessionNotFoundError.isInstance(await refusal(store, 'getSnapshot', id))).toBe(true);
      });

      it('has no summary and is not listed before its first append', async () => {
        const id = await sessionWith(0);
        expect(await store.getSummary(id)).toBeNull();
        expect((await store.list()).map((summary) => summary.id)).not.toContain(id);
        expect(await collect(store.read(id))).toEqual([]);
      });
    });

    describe('append and read', () => {
      it('reads back appended batches in seq order', async () => {
        const id = await sessionWith(3);
        await store.append(id, { expectedSeq: 3, epoch: 0, events: messageEvents(4, 2), summary: testSummary(id) });
        const events = await collect(store.read(id));
        expect(events.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5]);
        expect(events).toEqual(messageEvents(1, 5));
      });

      it('reads ranges by seq, inclusive, across batches', async () => {
        const id = await sessionWith(3);
        await store.append(id, { expectedSeq: 3, epoch: 0, events: messageEvents(4, 4), summary: testSummary(id) });
        const seqs = async (fromSeq?: number, toSeq?: number) =>
          (
            await collect(
              store.read(id, {
                ...(fromSeq === undefined ? {} : { fromSeq }),
                ...(toSeq === undefined ? {} : { toSeq }),
              }),
            )
          ).map((event) => event.seq);
        expect(await seqs(3)).toEqual([3, 4, 5, 6, 7]);
        expect(await seqs(undefined, 4)).toEqual([1, 2, 3, 4]);
        expect(await seqs(2, 5)).toEqual([2, 3, 4, 5]);
        expect(await seqs(6, 6)).toEqual([6]);
        expect(await seqs(8)).toEqual([]);
      });

      it('keeps content exactly, including unicode and large payloads', async () => {
        const id = testSessionId();
        await store.create(testHeader({ id }));
        const content = `héllo ✓ 你好 \n"quoted"\t${'x'.repeat(100_000)}`;
        const events = [messageEvent(1, content), messageEvent(2, '')];
        await store.append(id, { expectedSeq: 0, epoch: 0, events, summary: testSummary(id) });
        expect(await collect(store.read(id))).toEqual(events);
      });

      it('refuses a batch whose expected seq is not the last one (optimistic concurrency)', async () => {
        const id = await sessionWith(2);
        for (const expectedSeq of [0, 1, 3]) {
          const error = await refusal(store, 'append', id, {
            expectedSeq,
            epoch: 0,
            events: messageEvents(expectedSeq + 1, 1),
            summary: testSummary(id),
          });
          expect(AppendConflictError.isInstance(error)).toBe(true);
        }
        expect((await collect(store.read(id))).map((event) => event.seq)).toEqual([1, 2]);
      });

      it('lets exactly one of two concurrent appends with the same expected seq win', async () => {
        const id = await sessionWith(1);
        const results = await Promise.allSettled([
          store.append(id, { expectedSeq: 1, epoch: 0, events: [messageEvent(2, 'a')], summary: testSummary(id) }),
          store.append(id, { expectedSeq: 1, epoch: 0, events: [messageEvent(2, 'b')], summary: testSummary(id) }),
        ]);
        expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
        const rejected = results.find((result) => result.status === 'rejected');
        expect(AppendConflictError.isInstance(rejected?.reason)).toBe(true);
        expect((await collect(store.read(id))).map((event) => event.seq)).toEqual([1, 2]);
      });

      it('refuses events that are not numbered consecutively after the expected seq, writing none of them', async () => {
        const id = await sessionWith(2);
        const batches = [[messageEvent(4)], [messageEvent(3), messageEvent(5)], [messageEvent(3), messageEvent(3)]];
        for (const events of batches) {
          const error = await refusal(store, 'append', id, {
            expectedSeq: 2,
            epoch: 0,
            events,
            summary: testSummary(id),
          });
          expect(AppendConflictError.isInstance(error)).toBe(true);
        }
        expect((await collect(store.read(id))).map((event) => event.seq)).toEqual([1, 2]);
      });

      it('keeps the summary handed over with the last batch', async () => {
        const id = await sessionWith(1, { title: 'first' });
        const summary = testSummary(id, 2, { title: 'second', status: 'completed' });
        await store.append(id, { expectedSeq: 1, epoch: 0, events: [messageEvent(2)], summary });
        expect(comparable(await store.getSummary(id))).toEqual(comparable(summary));
      });

      it('keeps everything across a reopen of the store', async () => {
        if (!fixture.reopen) return;
        const id = await sessionWith(3, { title: 'durable' });
        const blob = await store.putBlob(new TextEncoder().encode('kept'));
        await store.putSnapshot(id, { seq: 3, formatVersion: 1, state: { messages: 3 } });
        const reopened = await fixture.reopen();
        expect(await collect(reopened.read(id))).toEqual(messageEvents(1, 3));
        expect((await reopened.getHeader(id))?.id).toBe(id);
        expect((await reopened.getSummary(id))?.title).toBe('durable');
        expect((await reopened.list()).map((summary) => summary.id)).toContain(id);
        expect(await reopened.getSnapshot(id)).toEqual({ seq: 3, formatVersion: 1, state: { messages: 3 } });
        expect(new TextDecoder().decode((await reopened.getBlob(blob)) ?? new Uint8Array())).toBe('kept');
        await reopened.append(id, { expectedSeq: 3, epoch: 0, events: messageEvents(4, 1), summary: testSummary(id) });
        await reopened.close();
      });
    });

    describe('organizing a session (metadata-changed)', () => {
      /** A person's rename, tags, pin, archive and trash of a session with one message, in one batch. */
      async function organizedSession(): Promise<{ id: string; events: JournalEvent[]; summary: SessionSummary }> {
        const id = await sessionWith(1);
        const events: JournalEvent[] = [
          { seq: 2, at: TEST_TIME, type: 'metadata-changed', name: 'Release notes ✓', tags: ['work', 'q3'] },
          { seq: 3, at: TEST_TIME, type: 'metadata-changed', pinned: true, archived: true, trashed: true },
        ];
        const summary = testSummary(id, 3, {
          name: 'Release notes ✓',
          tags: ['work', 'q3'],
          pinned: true,
          archivedAt: TEST_TIME,
          trashedAt: TEST_TIME,
        });
        await store.append(id, { expectedSeq: 1, epoch: 0, events, summary });
        return { id, events, summary };
      }

      it('reads the events back and lists the name, tags, pin, archive and trash without opening the journal', async () => {
        const { id, events, summary } = await organizedSession();
        expect(await collect(store.read(id, { fromSeq: 2 }))).toEqual(events);
        expect(comparable(await store.getSummary(id))).toEqual(comparable(summary));
        const listed = await store.list();
        expect(listed.map((candidate) => candidate.id)).toContain(id);
        expect(comparable(listed.find((candidate) => candidate.id === id) ?? null)).toEqual(comparable(summary));
      });

      it('keeps them across a reopen, and forgets what a later batch clears', async () => {
        const { id } = await organizedSession();
        const cleared = testSummary(id, 4);
        await store.append(id, {
          expectedSeq: 3,
          epoch: 0,
          events: [
            {
              seq: 4,
              at: TEST_TIME,
              type: 'metadata-changed',
              name: null,
              tags: [],
              pinned: false,
              archived: false,
              trashed: false,
            },
          ],
          summary: cleared,
        });
        const reader = fixture.reopen ? await fixture.reopen() : store;
        const listed = await reader.list();
        expect(listed.map((candidate) => candidate.id)).toContain(id);
        expect(comparable(listed.find((candidate) => candidate.id === id) ?? null)).toEqual(comparable(cleared));
        expect((await collect(reader.read(id, { fromSeq: 4 })))[0]).toMatchObject({
          type: 'metadata-changed',
          name: null,
        });
        if (reader !== store) await reader.close();
      });
    });

    describe('list', () => {
      it('orders newest updatedAt first, then id descending, and pages with limit and offset', async () => {
        const older = await sessionWith(1, { updatedAt: '2025-01-01T10:00:00.000Z' });
        const tieLow = await sessionWith(1, { updatedAt: '2025-01-02T10:00:00.000Z' });
        const tieHigh = await sessionWith(1, { updatedAt: '2025-01-02T10:00:00.000Z' });
        const newest = await sessionWith(1, { updatedAt: '2025-01-03T10:00:00.000Z' });
        const ids = (await store.list()).map((summary) => summary.id);
        expect(ids).toEqual([newest, tieHigh, tieLow, older]);
        expect((await store.list({ limit: 2 })).map((summary) => summary.id)).toEqual([newest, tieHigh]);
        expect((await store.list({ limit: 2, offset: 1 })).map((summary) => summary.id)).toEqual([tieHigh, tieLow]);
        expect((await store.list({ offset: 3 })).map((summary) => summary.id)).toEqual([older]);
      });

      it('filters by status, mode, parent, workspace, time window and id prefix', async () => {
        const parent = await sessionWith(1, { status: 'completed', updatedAt: '2025-02-01T00:00:00.000Z' });
        const child = await sessionWith(1, {
          status: 'interrupted',
          mode: 'discussion',
          parentId: parent,
          workspaceDir: '/elsewhere',
          updatedAt: '2025-03-01T00:00:00.000Z',
        });
        const ids = async (query: Parameters<SessionStore['list']>[0]) =>
          (await store.list(query)).map((summary) => summary.id);
        expect(await ids({ status: ['interrupted'] })).toEqual([child]);
        expect(await ids({ status: ['completed', 'interrupted'] })).toEqual([child, parent]);
        expect(await ids({ mode: ['discussion'] })).toEqual([child]);
        expect(await ids({ parentId: parent })).toEqual([child]);
        expect(await ids({ workspaceDir: '/elsewhere' })).toEqual([child]);
        expect(await ids({ since: '2025-02-15T00:00:00.000Z' })).toEqual([child]);
        expect(await ids({ before: '2025-02-15T00:00:00.000Z' })).toEqual([parent]);
        expect(await ids({ idPrefix: child })).toEqual([child]);
      });

      it('reflects the latest batch of every session', async () => {
        const id = await sessionWith(1, { status: 'running' });
        await store.list();
        await store.append(id, {
          expectedSeq: 1,
          epoch: 0,
          events: [messageEvent(2)],
          summary: testSummary(id, 2, { status: 'completed' }),
        });
        const listed = (await store.list()).find((summary) => summary.id === id);
        expect(listed?.status).toBe('completed');
        expect(listed?.lastSeq).toBe(2);
      });
    });

    describe('delete', () => {
      it('removes the session and everything derived from it', async () => {
        const id = await sessionWith(2);
        await store.putSnapshot(id, { seq: 2, formatVersion: 1, state: {} });
        expect(await store.delete(id)).toBe(true);
        expect(await store.getHeader(id)).toBeNull();
        expect(await store.getSummary(id)).toBeNull();
        expect((await store.list()).map((summary) => summary.id)).not.toContain(id);
        expect(SessionNotFoundError.isInstance(await refusal(store, 'read', id))).toBe(true);
        expect(await store.delete(id)).toBe(false);
      });

      it('lets the id be used again afterwards', async () => {
        const id = await sessionWith(2);
        await store.delete(id);
        await store.create(testHeader({ id, title: 'again' }));
        expect((await store.getHeader(id))?.title).toBe('again');
        expect(await collect(store.read(id))).toEqual([]);
      });

      it('leaves other sessions alone', async () => {
        const kept = await sessionWith(2);
        const removed = await sessionWith(1);
        await store.delete(removed);
        expect(await collect(store.read(kept))).toEqual(messageEvents(1, 2));
      });
    });

    describe('leases', () => {
      it('gives one writer at a time and names the holder to the others', async () => {
        const id = await sessionWith(1);
        const lease = await store.acquireLease(id, { holder });
        expect(lease.sessionId).toBe(id);
        expect(lease.epoch).toBeGreaterThanOrEqual(1);
        expect(lease.holder).toMatchObject(holder);
        expect(Number.isNaN(Date.parse(lease.holder.since))).toBe(false);
        const error = await refusal(store, 'acquireLease', id, { holder });
        expect(SessionLockedError.isInstance(error)).toBe(true);
        if (SessionLockedError.isInstance(error)) {
          expect(error.holder).toEqual(lease.holder);
          expect(error.message).toContain(String(holder.pid));
          expect(error.message).toContain(holder.host);
        }
        expect(await store.inspectLease(id)).toEqual(lease.holder);
        await lease.release();
      });

      it('releases idempotently, and a new lease has a higher epoch', async () => {
        const id = await sessionWith(1);
        const first = await store.acquireLease(id, { holder });
        await first.release();
        await first.release();
        expect(await store.inspectLease(id)).toBeNull();
        const second = await store.acquireLease(id, { holder });
        expect(second.epoch).toBeGreaterThan(first.epoch);
        await first.release(); // a stale release must not free the new holder's lease
        expect(await store.inspectLease(id)).toEqual(second.holder);
        await second.release();
      });

      it('fences writers whose lease was superseded', async () => {
        const id = await sessionWith(1);
        const first = await store.acquireLease(id, { holder });
        await store.append(id, {
          expectedSeq: 1,
          epoch: first.epoch,
          events: [messageEvent(2)],
          summary: testSummary(id),
        });
        await first.release();
        const second = await store.acquireLease(id, { holder });
        const error = await refusal(store, 'append', id, {
          expectedSeq: 2,
          epoch: first.epoch,
          events: [messageEvent(3)],
          summary: testSummary(id),
        });
        expect(LeaseLostError.isInstance(error)).toBe(true);
        await store.append(id, {
          expectedSeq: 2,
          epoch: second.epoch,
          events: [messageEvent(3)],
          summary: testSummary(id),
        });
        expect((await collect(store.read(id))).map((event) => event.seq)).toEqual([1, 2, 3]);
        await second.release();
      });

      it('keeps leases of different sessions independent', async () => {
        const one = await sessionWith(1);
        const two = await sessionWith(1);
        const leaseOne = await store.acquireLease(one, { holder });
        const leaseTwo = await store.acquireLease(two, { holder });
        expect(await store.inspectLease(one)).toEqual(leaseOne.holder);
        expect(await store.inspectLease(two)).toEqual(leaseTwo.holder);
        await leaseOne.release();
        await leaseTwo.release();
      });
    });

    describe('snapshots', () => {
      it('returns the latest snapshot put, or null before any', async () => {
        const id = await sessionWith(3);
        expect(await store.getSnapshot(id)).toBeNull();
        await store.putSnapshot(id, { seq: 2, formatVersion: 1, state: { messages: ['a', 'b'] } });
        await store.putSnapshot(id, { seq: 3, formatVersion: 1, state: { messages: ['a', 'b', 'c'] } });
        expect(await store.getSnapshot(id)).toEqual({ seq: 3, formatVersion: 1, state: { messages: ['a', 'b', 'c'] } });
      });
    });

    describe('rewriting a journal (optional capability)', () => {
      /** Three events of a longer session, renumbered 1..3, in two batches. */
      function shorterHistory(id: string) {
        const kept = [messageEvent(1, 'message 1'), messageEvent(2, 'message 3'), messageEvent(3, 'message 6')];
        return [
          { events: kept.slice(0, 2), summary: testSummary(id, 2) },
          { events: kept.slice(2), summary: testSummary(id, 3, { title: 'after the rewrite' }) },
        ];
      }

      it('replaces the journal with a renumbered shorter history, drops the snapshot, and appends go on after it', async () => {
        // Stores without the capability pass: LangGraph threads on them cannot be pruned.
        if (!store.rewrite) return;
        const id = await sessionWith(20);
        await store.putSnapshot(id, { seq: 20, formatVersion: 1, state: { messages: 20 } });
        const lease = await store.acquireLease(id, { holder });
        const report = await store.rewrite(id, { expectedSeq: 20, epoch: lease.epoch, batches: shorterHistory(id) });
        expect(report).toMatchObject({ sessionId: id, lastSeqBefore: 20, lastSeqAfter: 3 });
        expect(report.bytesAfter < report.bytesBefore).toBe(true);
        const contents = async (from: SessionStore) =>
          (await collect(from.read(id))).map((event) => [
            event.seq,
            event.type === 'message-added' ? event.message.content : null,
          ]);
        const expected = [
          [1, 'message 1'],
          [2, 'message 3'],
          [3, 'message 6'],
        ];
        expect(await contents(store)).toEqual(expected);
        expect(comparable(await store.getSummary(id))).toEqual(
          comparable(testSummary(id, 3, { title: 'after the rewrite' })),
        );
        expect(await store.getSnapshot(id)).toBeNull();
        await store.append(id, {
          expectedSeq: 3,
          epoch: lease.epoch,
          events: [messageEvent(4, 'message 7')],
          summary: testSummary(id, 4),
        });
        await lease.release();
        const again = fixture.reopen ? await fixture.reopen() : store;
        expect(await contents(again)).toEqual([...expected, [4, 'message 7']]);
        expect((await again.list()).map((summary) => [summary.id, summary.lastSeq])).toEqual([[id, 4]]);
        const next = await again.acquireLease(id, { holder });
        await next.release();
      });

      it('refuses a rewrite without the current lease, or of a journal that grew since, and changes nothing', async () => {
        if (!store.rewrite) return;
        const id = await sessionWith(6);
        const stale = await store.acquireLease(id, { holder });
        await stale.release();
        const lease = await store.acquireLease(id, { holder });
        const withStaleLease = await refusal(store, 'rewrite', id, {
          expectedSeq: 6,
          epoch: stale.epoch,
          batches: shorterHistory(id),
        });
        expect(LeaseLostError.isInstance(withStaleLease) || SessionLockedError.isInstance(withStaleLease)).toBe(true);
        const grown = await refusal(store, 'rewrite', id, {
          expectedSeq: 5,
          epoch: lease.epoch,
          batches: shorterHistory(id),
        });
        expect(AppendConflictError.isInstance(grown)).toBe(true);
        expect(await collect(store.read(id))).toEqual(messageEvents(1, 6));
        expect((await store.getSummary(id))?.lastSeq).toBe(6);
        await lease.release();
      });
    });

    describe('requests to the writer (optional capability)', () => {
      it('keeps requests posted without the lease in order, apart from the journal, and drops them with the session', async () => {
        // Stores without the capability pass: the runner then cannot take checkpoint requests.
        if (!store.postRequest || !store.listRequests) return;
        const id = await sessionWith(2);
        const lease = await store.acquireLease(id, { holder });
        const first = await store.postRequest(id, { kind: 'checkpoint', label: 'before lunch', requestedBy: holder });
        const second = await store.postRequest(id, { kind: 'checkpoint', label: null, requestedBy: holder });
        expect(first.id).not.toBe(second.id);
        expect(Number.isNaN(Date.parse(first.requestedAt))).toBe(false);
        expect(await store.listRequests(id)).toEqual([first, second]);
        expect((await store.listRequests(id))[0]).toMatchObject({ kind: 'checkpoint', label: 'before lunch' });
        expect(await collect(store.read(id))).toEqual(messageEvents(1, 2));
        await lease.release();
        await store.delete(id);
        await store.create(testHeader({ id }));
        expect(await store.listRequests(id)).toEqual([]);
      });

      it('refuses a request to a session that does not exist', async () => {
        if (!store.postRequest || !store.listRequests) return;
        const missing = testSessionId();
        const error = await refusal(store, 'postRequest', missing, {
          kind: 'checkpoint',
          label: null,
          requestedBy: holder,
        });
        expect(SessionNotFoundError.isInstance(error)).toBe(true);
      });
    });

    describe('derived data (optional capability)', () => {
      it('keeps bytes per session and name, replaces them, and drops them with the session', async () => {
        // Stores without the capability pass: readers then rebuild what they derive from the journal.
        if (!store.putDerived || !store.getDerived) return;
        const id = await sessionWith(2);
        const other = await sessionWith(1);
        const bytes = (text: string) => new TextEncoder().encode(text);
        expect(await store.getDerived(id, 'thread-index')).toBeNull();
        await store.putDerived(id, 'thread-index', bytes('first'));
        await store.putDerived(id, 'thread-index', bytes('second, longer'));
        await store.putDerived(
          id,
          'other.v1',
          new Uint8Array(256).map((_, index) => index),
        );
        expect(new TextDecoder().decode((await store.getDerived(id, 'thread-index')) ?? new Uint8Array())).toBe(
          'second, longer',
        );
        expect(Array.from((await store.getDerived(id, 'other.v1')) ?? [])).toEqual(
          Array.from(new Uint8Array(256).map((_, index) => index)),
        );
        expect(await store.getDerived(other, 'thread-index')).toBeNull();
        expect(await collect(store.read(id))).toEqual(messageEvents(1, 2));
        if (fixture.reopen) {
          const again = await fixture.reopen();
          expect(new TextDecoder().decode((await again.getDerived?.(id, 'thread-index')) ?? new Uint8Array())).toBe(
            'second, longer',
          );
        }
        await store.delete(id);
        await store.create(testHeader({ id }));
        expect(await store.getDerived(id, 'thread-index')).toBeNull();
      });

      it('refuses a name that is not one, and a session that does not exist', async () => {
        if (!store.putDerived || !store.getDerived) return;
        const id = await sessionWith(1);
        for (const name of ['', '../journal', 'A', 'a/b', 'x'.repeat(65)]) {
          const error = await refusal(store, 'putDerived', id, name, new Uint8Array(1));
          expect({ name, usage: UsageError.isInstance(error) }).toEqual({ name, usage: true });
        }
        const missing = await refusal(store, 'putDerived', testSessionId(), 'thread-index', new Uint8Array(1));
        expect(SessionNotFoundError.isInstance(missing)).toBe(true);
      });
    });

    describe('blobs', () => {
      it('stores content under its sha256 (hex; with a key, its HMAC under the key), idempotently', async () => {
        const content = new TextEncoder().encode('file content\n');
        const expected = blobName(fixture.keyring?.current() ?? null, content);
        expect(await store.putBlob(content)).toBe(expected);
        expect(await store.putBlob(content)).toBe(expected);
        expect(Array.from((await store.getBlob(expected)) ?? [])).toEqual(Array.from(content));
      });

      it('stores empty and binary content', async () => {
        const binary = new Uint8Array(256).map((_, index) => index);
        const empty = new Uint8Array(0);
        const binaryHash = await store.putBlob(binary);
        const emptyHash = await store.putBlob(empty);
        expect(Array.from((await store.getBlob(binaryHash)) ?? [])).toEqual(Array.from(binary));
        expect((await store.getBlob(emptyHash))?.length).toBe(0);
      });

      it('returns null for content it does not have', async () => {
        const missing = createHash('sha256').update('never stored').digest('hex');
        expect(await store.getBlob(missing)).toBeNull();
        expect(await store.getBlob('../../etc/passwd')).toBeNull();
      });

      /** A session whose journal names `blob` (a file snapshot, as the runner records it), appended under `epoch`. */
      /** Appends the event naming `blob` to the session, under `epoch`. */
      async function snapshotEvent(id: string, blob: string, size: number, epoch = 0): Promise<void> {
        const events = [fileSnapshotEvent(1, blob, size)];
        await store.append(id, { expectedSeq: 0, epoch, events, summary: testSummary(id, 1) });
      }
      async function sessionNaming(content: Uint8Array): Promise<{ id: string; blob: string }> {
        const id = testSessionId();
        await store.create(testHeader({ id }));
        const blob = await store.putBlob(content);
        await snapshotEvent(id, blob, content.byteLength);
        return { id, blob };
      }
      /** Long enough for a clock coarser than a millisecond to tell a put from a later look. */
      const tick = () => new Promise((resolve) => setTimeout(resolve, 20));

      it('removes a blob with the last session naming it (with sweepBlobs), and keeps it while another names it', async () => {
        if (!store.sweepBlobs) return;
        const content = new TextEncoder().encode('a file both sessions snapshotted\n');
        const first = await sessionNaming(content);
        const second = await sessionNaming(content);
        expect(second.blob).toBe(first.blob);
        await tick();
        await store.delete(first.id);
        expect(new TextDecoder().decode((await store.getBlob(first.blob)) ?? new Uint8Array())).toBe(
          'a file both sessions snapshotted\n',
        );
        await store.delete(second.id);
        expect(await store.getBlob(first.blob)).toBeNull();
        // Put again by a new session: stored again.
        const third = await sessionNaming(content);
        expect(await store.getBlob(third.blob)).not.toBeNull();
      });

      it('keeps a blob a live writer put and has not journaled yet when another session naming it is deleted', async () => {
        if (!store.sweepBlobs) return;
        const content = new TextEncoder().encode('a snapshot the running session names at its next checkpoint');
        const done = await sessionNaming(content);
        const running = testSessionId();
        await store.create(testHeader({ id: running }));
        await tick();
        const lease = await store.acquireLease(running, { holder });
        const blob = await store.putBlob(content);
        await tick();
        await store.delete(done.id);
        expect(await store.getBlob(blob)).not.toBeNull();
        // Its writer still runs: a sweep keeps the blob too.
        expect(await store.sweepBlobs()).toBe(0);
        await snapshotEvent(running, blob, content.byteLength, lease.epoch);
        await lease.release();
        await tick();
        expect(await store.sweepBlobs()).toBe(0);
        expect(new TextDecoder().decode((await store.getBlob(blob)) ?? new Uint8Array())).toBe(
          'a snapshot the running session names at its next checkpoint',
        );
      });

      it('sweeps the blobs no session names once no live writer may name them, and says how many', async () => {
        if (!store.sweepBlobs) return;
        const named = await sessionNaming(new TextEncoder().encode('named'));
        const orphans = [
          await store.putBlob(new TextEncoder().encode('never named')),
          await store.putBlob(new Uint8Array([0, 1, 2])),
        ];
        await tick();
        expect(await store.sweepBlobs()).toBe(2);
        for (const orphan of orphans) expect(await store.getBlob(orphan)).toBeNull();
        expect(await store.getBlob(named.blob)).not.toBeNull();
        expect(await store.sweepBlobs()).toBe(0);
      });
    });

    if (options.encrypted) {
      describe('encryption at rest', () => {
        const words = {
          title: 'the orchard-irrigation plan',
          message: 'zebrafish lullaby in the message',
          state: 'marmalade in the folded state',
          blob: 'cobalt harmonica in a blob',
          derived: 'tangerine semaphore in derived data',
        };

        /** A session whose header, events, summary, snapshot and blob carry `words`. */
        async function wordySession(id: string = testSessionId()): Promise<{ id: string; blob: string }> {
          await store.create(testHeader({ id, title: words.title }));
          await store.append(id, {
            expectedSeq: 0,
            epoch: 0,
            events: [messageEvent(1, words.message), messageEvent(2, words.message)],
            summary: testSummary(id, 2, { title: words.title }),
          });
          await store.putSnapshot(id, { seq: 2, formatVersion: 1, state: { note: words.state } });
          const blob = await store.putBlob(new TextEncoder().encode(words.blob));
          await store.putDerived?.(id, 'thread-index', new TextEncoder().encode(words.derived));
          return { id, blob };
        }

        it("keeps none of a session's words in clear in what it writes, and reads them all back after a reopen", async () => {
          if (!fixture.storedText || !fixture.reopen)
            throw new UsageError('An encrypted fixture gives storedText and reopen.');
          const { id, blob } = await wordySession();
          const stored = await fixture.storedText();
          for (const word of Object.values(words))
            expect({ word, inClear: stored.includes(word) }).toEqual({ word, inClear: false });
          const again = await fixture.reopen();
          expect(
            (await collect(again.read(id))).map((event) =>
              event.type === 'message-added' ? event.message.content : null,
            ),
          ).toEqual([words.message, words.message]);
          expect((await again.getHeader(id))?.title).toBe(words.title);
          expect((await again.list()).map((summary) => summary.title)).toEqual([words.title]);
          expect(await again.getSnapshot(id)).toEqual({ seq: 2, formatVersion: 1, state: { note: words.state } });
          expect(new TextDecoder().decode((await again.getBlob(blob)) ?? new Uint8Array())).toBe(words.blob);
          if (again.getDerived) {
            const derived = await again.getDerived(id, 'thread-index');
            expect(new TextDecoder().decode(derived ?? new Uint8Array())).toBe(words.derived);
          }
        });

        it('keeps a rewritten journal sealed', async () => {
          if (!store.rewrite || !fixture.storedText || !fixture.reopen) return;
          const { id } = await wordySession();
          const lease = await store.acquireLease(id, { holder });
          await store.rewrite(id, {
            expectedSeq: 2,
            epoch: lease.epoch,
            batches: [
              { events: [messageEvent(1, words.message)], summary: testSummary(id, 1, { title: words.title }) },
            ],
          });
          await lease.release();
          const stored = await fixture.storedText();
          expect({ inClear: stored.includes(words.message) || stored.includes(words.title) }).toEqual({
            inClear: false,
          });
          const again = await fixture.reopen();
          expect(
            (await collect(again.read(id))).map((event) =>
              event.type === 'message-added' ? event.message.content : null,
            ),
          ).toEqual([words.message]);
        });

        it('lists a session as encrypted where its key is not held, and refuses its content naming the key', async () => {
          if (!fixture.reopenWithoutKey || !fixture.keyring) {
            throw new UsageError('An encrypted fixture gives keyring and reopenWithoutKey.');
          }
          const { id } = await wordySession();
          // An id that names no creation time, as a LangGraph thread's (derived from its thread id).
          const thread = await wordySession('zzzzzzzzzzzzzzzzzzzzzz');
          const keyId = fixture.keyring.current()?.id ?? '';
          const keyless = await fixture.reopenWithoutKey();
          const listed = await keyless.list();
          expect(listed.map((summary) => summary.id).sort()).toEqual([id, thread.id].sort());
          for (const summary of listed) {
            expect(summary.title).toBe(`encrypted (key ${keyId} not available)`);
            expect(summary.locked).toEqual({ key: keyId });
          }
          const error = await refusal(keyless, 'read', id);
          expect(EncryptionKeyUnavailableError.isInstance(error)).toBe(true);
          expect((error as EncryptionKeyUnavailableError).keyId).toBe(keyId);
        });
      });
    }
  });
}
