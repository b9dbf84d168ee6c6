import { hostname } from 'node:os';
import { type JournalEvent, LeaseLostError, SessionLockedError } from '@resume/core/spec';
import { messageEvents, testHeader, testSummary } from '@resume/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announceSkip } from './testing/postgres-cluster.js';
import { postgres, useTestDatabase } from './testing/test-database.js';
import { buildWriter, type WriterLauncher } from './testing/writer-processes.js';
import type { WriterConfig } from './testing/writer-protocol.js';

const skipped = announceSkip(postgres);
const pause = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));
const stress = process.env.CONCLAVE_STRESS === '1';

async function seqsOf(events: AsyncIterable<JournalEvent>): Promise<number[]> {
  const seqs: number[] = [];
  for await (const event of events) seqs.push(event.seq);
  return seqs;
}

describe.skipIf(!postgres.available)(`PostgreSQL store across processes ${skipped}`, () => {
  const database = useTestDatabase();
  let writers: WriterLauncher;
  beforeAll(async () => {
    writers = await buildWriter();
  });
  afterAll(async () => {
    await writers?.dispose();
  });

  const config = (schema: string, sessionId: string, overrides: Partial<WriterConfig> = {}): WriterConfig => ({
    url: database.url,
    schema,
    sessionId,
    leaseTtlMs: 400,
    heartbeatMs: 80,
    batches: 3,
    eventsPerBatch: 2,
    ...overrides,
  });

  it('lets one of two racing processes write; a killed holder is taken over after expiry and its late append refused', async () => {
    const store = database.openStore({ holderHost: 'machine-b' });
    const header = testHeader();
    await store.create(header);

    const racers = [writers.start(config(store.schema, header.id)), writers.start(config(store.schema, header.id))];
    const outcomes = await Promise.all(
      racers.map((writer) => writer.waitFor((report) => report.kind === 'acquired' || report.kind === 'locked')),
    );
    expect(outcomes.map((outcome) => outcome.kind).sort()).toEqual(['acquired', 'locked']);
    const holderIndex = outcomes.findIndex((outcome) => outcome.kind === 'acquired');
    const holder = racers[holderIndex]!;
    const acquired = outcomes[holderIndex];
    if (acquired?.kind !== 'acquired') throw new Error('no writer took the lease');
    const locked = outcomes[1 - holderIndex]!;
    expect(locked).toMatchObject({ kind: 'locked', host: hostname(), pid: holder.child.pid });
    await holder.waitFor((report) => report.kind === 'idle');

    // Another machine cannot take a live holder's session.
    await expect(store.acquireLease(header.id, { holder: { pid: process.pid, host: 'b' } })).rejects.toSatisfy(
      (error: unknown) => SessionLockedError.isInstance(error),
    );

    await holder.kill('SIGKILL');
    let lease: Awaited<ReturnType<typeof store.acquireLease>> | null = null;
    while (!lease) {
      lease = await store
        .acquireLease(header.id, { holder: { pid: process.pid, host: 'b' } })
        .catch((error: unknown) => {
          if (SessionLockedError.isInstance(error)) return null;
          throw error;
        });
      if (!lease) await pause(50);
    }
    expect(lease.epoch).toBe(acquired.epoch + 1);
    expect(await seqsOf(store.read(header.id))).toEqual([1, 2, 3, 4, 5, 6]);

    // The killed holder's pool, had it only been paused, still has its old epoch.
    const pausedPool = database.openStore({ schema: store.schema });
    const late = pausedPool.append(header.id, {
      expectedSeq: 6,
      epoch: acquired.epoch,
      events: messageEvents(7, 1),
      summary: testSummary(header, 7),
    });
    await expect(late).rejects.toSatisfy((error: unknown) => LeaseLostError.isInstance(error));
    expect(await seqsOf(store.read(header.id))).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('takes over at once from a holder killed on this machine', async () => {
    const store = database.openStore();
    const header = testHeader();
    await store.create(header);
    // A lease that would live an hour: only the dead pid lets it go early.
    const holder = writers.start(config(store.schema, header.id, { leaseTtlMs: 3_600_000, heartbeatMs: 60_000 }));
    await holder.waitFor((report) => report.kind === 'idle');
    expect((await store.inspectLease(header.id))?.pid).toBe(holder.child.pid);
    await holder.kill('SIGKILL');
    expect(await store.inspectLease(header.id)).toBeNull();
    const lease = await store.acquireLease(header.id, { holder: { pid: process.pid, host: hostname() } });
    expect(lease.holder.pid).toBe(process.pid);
  });

  it.each(Array.from({ length: stress ? 10 : 1 }, (_, index) => index))(
    'loses nothing acknowledged when the writer is killed mid-append (run %i)',
    async () => {
      const store = database.openStore();
      const header = testHeader();
      await store.create(header);
      const writer = writers.start(config(store.schema, header.id, { batches: 0, eventsPerBatch: 3 }));
      await writer.waitFor((report) => report.kind === 'ack' && report.seq >= 60);
      await writer.kill('SIGKILL');
      const acknowledged = Math.max(...writer.reports.map((report) => (report.kind === 'ack' ? report.seq : 0)));

      const seqs = await seqsOf(store.read(header.id));
      expect(seqs.length).toBeGreaterThanOrEqual(acknowledged);
      expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, index) => index + 1));
      // Whole batches or nothing: a batch is 3 events.
      expect(seqs.length % 3).toBe(0);
      expect((await store.getSummary(header.id))?.lastSeq).toBe(seqs.length);
    },
  );
});
