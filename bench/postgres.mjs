// PostgreSQL store vs file store: the cost of one checkpoint (a ~2 KB durable batch) and
// the throughput of 100 sessions checkpointing concurrently. Runs on the built packages
// (`pnpm build` first) against a throw-away cluster, or CONCLAVE_BENCH_POSTGRES_URL.
// Prints a table and, with --json, one JSON object. Ratios matter, not absolute figures.
import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createSessionId } from '@resume/core/spec';
import { messageEvent, testHeader, testSummary } from '@resume/core/testing';
import { createFsStore } from '@resume/storage-fs';
import { createPostgresStore } from '@resume/storage-postgres';
import { findPostgres, startPostgresCluster } from '@resume/storage-postgres/testing';
import pg from 'pg';
import { median } from './src/measure.mjs';

const checkpoints = Number(process.env.CONCLAVE_BENCH_CHECKPOINTS ?? 300);
const sessions = Number(process.env.CONCLAVE_BENCH_SESSIONS ?? 100);
const checkpointsPerSession = Number(process.env.CONCLAVE_BENCH_SESSION_CHECKPOINTS ?? 20);
const payload = 'x'.repeat(1_900); // with the event's envelope, about 2 KB per batch
const quick = process.argv.includes('--quick') || process.env.CONCLAVE_BENCH_QUICK === '1';

let counter = 0;
/** A fresh session: ids from the clock, so runs against a kept database never collide. */
function header() {
  counter += 1;
  return testHeader({
    id: createSessionId(Date.now() + counter),
    title: `bench ${counter}`,
    workspaceDir: null,
    createdAt: new Date().toISOString(),
  });
}

/** A session with a lease, appending one ~2 KB message per checkpoint. */
async function openWriter(store) {
  const sessionHeader = header();
  await store.create(sessionHeader);
  const lease = await store.acquireLease(sessionHeader.id, { holder: { pid: process.pid, host: hostname() } });
  let seq = 0;
  return {
    async checkpoint() {
      seq += 1;
      const at = new Date().toISOString();
      const event = { ...messageEvent(seq, payload, { role: 'assistant', speaker: 'bench' }), at };
      await store.append(sessionHeader.id, {
        expectedSeq: seq - 1,
        epoch: lease.epoch,
        events: [event],
        summary: testSummary(sessionHeader, seq, { updatedAt: at }),
      });
    },
    release: () => lease.release(),
  };
}

/** The time (ms) of one `checkpoint()`, over `checkpoints` of them after 20 to warm up. */
async function timeCheckpoints(checkpoint) {
  for (let warm = 0; warm < 20; warm += 1) await checkpoint();
  const started = performance.now();
  for (let index = 0; index < checkpoints; index += 1) await checkpoint();
  return (performance.now() - started) / checkpoints;
}

async function measureCheckpoint(store) {
  const writer = await openWriter(store);
  try {
    return await timeCheckpoints(() => writer.checkpoint());
  } finally {
    await writer.release();
  }
}

/**
 * The floor under a durable checkpoint on this server: one prepared INSERT of the same bytes
 * per checkpoint, committed on its own (one round trip, one WAL flush; synchronous_commit on).
 */
async function openFloor(url) {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  const table = `bench_floor_${process.pid}`;
  await pool.query(`CREATE TABLE ${table} (session_id text, seq bigint, payload json, PRIMARY KEY (session_id, seq))`);
  const setting = await pool.query('SHOW synchronous_commit');
  if (setting.rows[0]?.synchronous_commit !== 'on') throw new Error('the floor needs synchronous_commit on');
  const event = JSON.stringify({ ...messageEvent(1, payload, { role: 'assistant', speaker: 'bench' }) });
  let seq = 0;
  const insert = () => {
    seq += 1;
    return pool.query({
      name: 'bench-floor-insert',
      text: `INSERT INTO ${table} (session_id, seq, payload) VALUES ($1, $2, $3)`,
      values: ['floor', seq, event],
    });
  };
  return {
    measure: () => timeCheckpoints(insert),
    close: async () => {
      await pool.query(`DROP TABLE IF EXISTS ${table}`).catch(() => undefined);
      await pool.end();
    },
  };
}

/**
 * What the events table's own row costs: one prepared INSERT of the row a checkpoint writes (its
 * columns as the store fills them: the event, its chain hash, the batch's summary), committed on
 * its own, into the store's events table, with no check and no session row update. The store's
 * checkpoint is this row plus its checks (the writer's epoch, the chain), the session row's head
 * and summary, and its client's work.
 */
async function openEventRow(url, store) {
  const sessionHeader = header();
  await store.create(sessionHeader);
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  const event = JSON.stringify(messageEvent(1, payload, { role: 'assistant', speaker: 'bench' }));
  const summary = JSON.stringify(testSummary(sessionHeader, 1));
  const hash = 'a'.repeat(64);
  let seq = 0;
  const insert = () => {
    seq += 1;
    return pool.query({
      name: 'bench-event-row-insert',
      text: `INSERT INTO ${store.schema}.events (session_id, seq, epoch, type, payload, hash, batch_summary)
             VALUES ($1, $2, 1, 'message', $3, $4, $5)`,
      values: [sessionHeader.id, seq, event, hash, summary],
    });
  };
  return { measure: () => timeCheckpoints(insert), close: () => pool.end() };
}

/**
 * A checkpoint on the store, the event row alone and the floor, in turns, each figure the median
 * of five rounds (one with --quick) after a first round of each that is not counted: the three are
 * compared at the same warmth of the process and of the server (the store's code is still being
 * compiled through its first thousand checkpoints), and a round that a neighbour's work slowed
 * does not decide the ratio.
 */
async function measureCheckpointAndFloor(store, url) {
  const floor = await openFloor(url);
  const eventRow = await openEventRow(url, store);
  const figures = { postgres: [], eventRow: [], floor: [] };
  try {
    for (let round = 0; round <= (quick ? 1 : 5); round += 1) {
      const postgres = await measureCheckpoint(store);
      const eventRowMs = await eventRow.measure();
      const floorMs = await floor.measure();
      if (round === 0) continue;
      figures.postgres.push(postgres);
      figures.eventRow.push(eventRowMs);
      figures.floor.push(floorMs);
    }
  } finally {
    await eventRow.close();
    await floor.close();
  }
  return { postgres: median(figures.postgres), eventRow: median(figures.eventRow), floor: median(figures.floor) };
}

/**
 * What an append did before it was one statement, on tables of its own, as the in-run baseline of
 * the concurrent figure: BEGIN; lock the session row; insert the event, move the head and NOTIFY in
 * one statement; COMMIT (four round trips, and the NOTIFY holds the server's notification lock
 * through the commit). Same sessions, checkpoints and pool size as the store's run.
 */
async function measureConcurrentFourRoundTrips(url) {
  const pool = new pg.Pool({ connectionString: url, max: 20 });
  const prefix = `bench_four_${process.pid}`;
  try {
    await pool.query(`CREATE TABLE ${prefix}_sessions (id text PRIMARY KEY, journal_seq bigint NOT NULL)`);
    await pool.query(
      `CREATE TABLE ${prefix}_events (session_id text, seq bigint, payload json, PRIMARY KEY (session_id, seq))`,
    );
    const ids = Array.from({ length: sessions }, (_, index) => `session-${index}`);
    await pool.query(`INSERT INTO ${prefix}_sessions SELECT unnest($1::text[]), 0`, [ids]);
    const event = JSON.stringify(messageEvent(1, payload, { role: 'assistant', speaker: 'bench' }));
    const append = async (id) => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const head = await client.query(`SELECT journal_seq FROM ${prefix}_sessions WHERE id = $1 FOR UPDATE`, [id]);
        const seq = Number(head.rows[0].journal_seq) + 1;
        await client.query(
          `WITH inserted AS (INSERT INTO ${prefix}_events VALUES ($1, $2, $3)),
                updated AS (UPDATE ${prefix}_sessions SET journal_seq = $2 WHERE id = $1 RETURNING id)
           SELECT pg_notify($4, $1) FROM updated`,
          [id, seq, event, prefix],
        );
        await client.query('COMMIT');
      } finally {
        client.release();
      }
    };
    const started = performance.now();
    await Promise.all(
      ids.map(async (id) => {
        for (let index = 0; index < checkpointsPerSession; index += 1) await append(id);
      }),
    );
    return (sessions * checkpointsPerSession) / ((performance.now() - started) / 1000);
  } finally {
    await pool.query(`DROP TABLE IF EXISTS ${prefix}_events, ${prefix}_sessions`).catch(() => undefined);
    await pool.end();
  }
}

async function measureConcurrent(store) {
  const writers = await Promise.all(Array.from({ length: sessions }, () => openWriter(store)));
  const started = performance.now();
  await Promise.all(
    writers.map(async (writer) => {
      for (let index = 0; index < checkpointsPerSession; index += 1) await writer.checkpoint();
    }),
  );
  const elapsed = performance.now() - started;
  await Promise.all(writers.map((writer) => writer.release()));
  return (sessions * checkpointsPerSession) / (elapsed / 1000);
}

async function main() {
  const json = process.argv.includes('--json');
  const availability = process.env.CONCLAVE_BENCH_POSTGRES_URL
    ? { available: true, binDirectory: null, externalUrl: process.env.CONCLAVE_BENCH_POSTGRES_URL }
    : findPostgres();
  if (!availability.available) {
    console.warn(`PostgreSQL benchmark skipped: ${availability.reason}`);
    return;
  }
  const cluster = await startPostgresCluster(availability, { fsync: true });
  const home = mkdtempSync(path.join(tmpdir(), 'conclave-bench-fs-'));
  const schema = `bench_${process.pid}`;
  const fsStore = createFsStore({ dir: home });
  const postgresStore = createPostgresStore({ connectionString: cluster.url, schema, maxConnections: 20 });
  try {
    await postgresStore.migrate();
    const results = {
      checkpointMs: {
        fs: await measureCheckpoint(fsStore),
        ...(await measureCheckpointAndFloor(postgresStore, cluster.url)),
      },
      concurrentCheckpointsPerSecond: {
        fs: await measureConcurrent(fsStore),
        postgres: await measureConcurrent(postgresStore),
        fourRoundTrips: await measureConcurrentFourRoundTrips(cluster.url),
      },
      sessions,
      checkpointsPerSession,
      serverFsync: !process.env.CONCLAVE_BENCH_POSTGRES_URL ? 'throw-away cluster with fsync on' : 'external server',
    };
    if (json) {
      console.log(JSON.stringify(results));
    } else {
      const { checkpointMs, concurrentCheckpointsPerSecond: throughput } = results;
      console.log('store      checkpoint (~2 KB, durable)   100 sessions concurrently');
      console.log(
        `fs         ${checkpointMs.fs.toFixed(3)} ms                       ${throughput.fs.toFixed(0)} checkpoints/s`,
      );
      console.log(
        `postgres   ${checkpointMs.postgres.toFixed(3)} ms (${(checkpointMs.postgres / checkpointMs.fs).toFixed(2)}x fs)         ${throughput.postgres.toFixed(0)} checkpoints/s (${(throughput.postgres / throughput.fs).toFixed(2)}x fs)`,
      );
      const overFloor = checkpointMs.postgres / checkpointMs.floor;
      console.log(
        `floor      ${checkpointMs.floor.toFixed(3)} ms: one prepared INSERT of the same bytes, committed (synchronous_commit on)`,
      );
      console.log(
        `event row  ${checkpointMs.eventRow.toFixed(3)} ms (${(checkpointMs.eventRow / checkpointMs.floor).toFixed(2)}x floor): the row a checkpoint writes, inserted alone into the store's events table`,
      );
      console.log(
        `  postgres checkpoint / floor ${overFloor.toFixed(2)}x  ${overFloor <= 1.5 ? 'ok' : 'MISSED'} (goal <= 1.5)`,
      );
      const versusBefore = throughput.postgres / throughput.fourRoundTrips;
      console.log(
        `  100 sessions: ${throughput.postgres.toFixed(0)} checkpoints/s against ${throughput.fourRoundTrips.toFixed(0)} with the four-round-trip append (NOTIFY in the commit): ` +
          `${versusBefore.toFixed(2)}x  ${versusBefore >= 2 ? 'ok' : 'MISSED'} (goal >= 2x)`,
      );
    }
    {
      const { measureLangGraphPostgres, formatLangGraphPostgres } = await import('./src/langgraph-postgres.mjs');
      const langgraph = await measureLangGraphPostgres(cluster.url, { quick });
      if (json) console.log(JSON.stringify({ langgraph }));
      else console.log(`\n${formatLangGraphPostgres(langgraph)}`);
    }
  } finally {
    await fsStore.close();
    await postgresStore.close();
    await cluster.stop();
    rmSync(home, { recursive: true, force: true });
  }
}

await main();
