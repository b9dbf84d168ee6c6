// Test support: a separate writer process. It takes the lease of one session and appends
// batches, printing one JSON line per outcome to stdout ("acquired", "locked", "ack" after
// each append resolves, "lost"), then idles until killed. Bundled with esbuild by the tests.

import { hostname } from 'node:os';
import { LeaseLostError, SessionLockedError } from '@resume/core/spec';
import { messageEvents, testSummary } from '@resume/core/testing';
import { createPostgresStore } from '../postgres-store.js';
import { type WriterReport, writerConfigSchema } from './writer-protocol.js';

const report = (line: WriterReport) => process.stdout.write(`${JSON.stringify(line)}\n`);

async function main() {
  const config = writerConfigSchema.parse(JSON.parse(process.env.CONCLAVE_WRITER_CONFIG ?? '{}'));
  const store = createPostgresStore({
    connectionString: config.url,
    schema: config.schema,
    leaseTtlMs: config.leaseTtlMs,
    heartbeatMs: config.heartbeatMs,
    ...(config.holderHost ? { holderHost: config.holderHost } : {}),
  });
  const header = await store.getHeader(config.sessionId);
  if (!header) throw new Error(`no session ${config.sessionId}`);
  let lease: Awaited<ReturnType<typeof store.acquireLease>>;
  try {
    lease = await store.acquireLease(config.sessionId, { holder: { pid: process.pid, host: hostname() } });
  } catch (error) {
    if (!SessionLockedError.isInstance(error)) throw error;
    report({ kind: 'locked', host: error.holder.host, pid: error.holder.pid });
    await store.close();
    return;
  }
  report({ kind: 'acquired', epoch: lease.epoch, pid: process.pid });
  let seq = (await store.getSummary(config.sessionId))?.lastSeq ?? 0;
  for (let batch = 0; config.batches === 0 || batch < config.batches; batch += 1) {
    const events = messageEvents(seq + 1, config.eventsPerBatch);
    try {
      await store.append(config.sessionId, {
        expectedSeq: seq,
        epoch: lease.epoch,
        events,
        summary: testSummary(header, seq + events.length),
      });
    } catch (error) {
      if (!LeaseLostError.isInstance(error)) throw error;
      report({ kind: 'lost' });
      return;
    }
    seq += events.length;
    report({ kind: 'ack', seq });
  }
  report({ kind: 'idle' });
  setInterval(() => {}, 60_000); // hold the lease (the heartbeat runs) until killed
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
