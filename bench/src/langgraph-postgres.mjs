// LangGraph checkpointers on the same local PostgreSQL: ResumeCheckpointSaver over Conclave's
// PostgreSQL store against LangGraph's own PostgresSaver (@langchain/langgraph-checkpoint-postgres),
// each in a schema of its own. The same 1,000-step graph as langgraph.mjs (a growing list of
// ~1 KB messages, durability 'sync'); reported: time per step over the first and the last 10%,
// bytes in the database (tables, indexes and TOAST of the saver's schema), getTuple of the latest
// checkpoint from a new saver (cold) and `list({ limit: 10 })` from a new saver.
// Called by bench/postgres.mjs with the URL of its cluster.
import { performance } from 'node:perf_hooks';
import { MemorySaver } from '@langchain/langgraph-checkpoint';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { ResumeCheckpointSaver } from '@resume/langgraph';
import { createPostgresStore } from '@resume/storage-postgres';
import pg from 'pg';
import { getTupleUs, runGraph, shareAboveMemoryLine } from './langgraph.mjs';

const thread = { configurable: { thread_id: 'bench' } };

async function listTenUs(saver) {
  const start = performance.now();
  let count = 0;
  for await (const _tuple of saver.list(thread, { limit: 10 })) count += 1;
  if (count !== 10) throw new Error(`list({ limit: 10 }) gave ${count} checkpoints`);
  return (performance.now() - start) * 1000;
}

async function schemaBytes(url, schema) {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try {
    const result = await pool.query(
      `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint AS bytes
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND c.relkind IN ('r', 'm')`,
      [schema],
    );
    return Number(result.rows[0].bytes);
  } finally {
    await pool.end();
  }
}

async function measureResume(url, steps) {
  const schema = `bench_lg_resume_${process.pid}`;
  const open = () => createPostgresStore({ connectionString: url, schema });
  const store = open();
  const saver = new ResumeCheckpointSaver({ store });
  const phases = await runGraph(saver, steps);
  await saver.close();
  await store.close();
  const cold = async (measure) => {
    const coldStore = open();
    const coldSaver = new ResumeCheckpointSaver({ store: coldStore });
    try {
      return await measure(coldSaver);
    } finally {
      await coldSaver.close();
      await coldStore.close();
    }
  };
  // A new store's first query also connects and checks the schema: once before the clock starts.
  const warmConnection = async (coldSaver, measure) => {
    await coldSaver.store.getHeader(coldSaver.sessionIdOf('other'));
    return measure(coldSaver);
  };
  return {
    ...phases,
    bytes: await schemaBytes(url, schema),
    coldUs: await cold((coldSaver) => warmConnection(coldSaver, (s) => getTupleUs(s, 1))),
    listUs: await cold((coldSaver) => warmConnection(coldSaver, listTenUs)),
  };
}

async function measurePostgresSaver(url, steps) {
  const schema = `bench_lg_langgraph_${process.pid}`;
  const saver = PostgresSaver.fromConnString(url, { schema });
  await saver.setup();
  const phases = await runGraph(saver, steps);
  await saver.end();
  const cold = async (measure) => {
    const coldSaver = PostgresSaver.fromConnString(url, { schema });
    try {
      // Connected before the clock starts, as for ours.
      await coldSaver.setup();
      return await measure(coldSaver);
    } finally {
      await coldSaver.end();
    }
  };
  return {
    ...phases,
    bytes: await schemaBytes(url, schema),
    coldUs: await cold((coldSaver) => getTupleUs(coldSaver, 1)),
    listUs: await cold(listTenUs),
  };
}

export async function measureLangGraphPostgres(url, { quick = false } = {}) {
  const steps = quick ? 300 : 1_000;
  // Warm-up: module loading and JIT, outside the figures.
  await runGraph(new MemorySaver(), 50);
  const memory = await runGraph(new MemorySaver(), steps);
  const resume = await measureResume(url, steps);
  const langgraph = await measurePostgresSaver(url, steps);
  return { steps, memory, resume, langgraph };
}

const pad = (value, width = 12) => String(value).padStart(width);
const micro = (value) => (value === null || value === undefined ? '-' : value.toFixed(0));
const verdict = (ok) => (ok ? 'ok' : 'MISSED');

export function formatLangGraphPostgres(result) {
  const { resume, langgraph, memory } = result;
  const lines = [
    `LangGraph checkpointers on PostgreSQL: a ${result.steps}-step StateGraph, ~1 KB messages, durability 'sync'`,
    `${'checkpointer'.padEnd(34)}${pad('first 10% us')}${pad('last 10% us')}${pad('in db', 12)}${pad('cold get us')}${pad('list(10) us')}`,
  ];
  for (const [name, row] of [
    ['ResumeCheckpointSaver (postgres)', resume],
    ['PostgresSaver', langgraph],
    ['MemorySaver (the graph alone)', { ...memory, bytes: null, coldUs: null, listUs: null }],
  ]) {
    lines.push(
      `${name.padEnd(34)}${pad(micro(row.firstUs))}${pad(micro(row.lastUs))}` +
        `${pad(row.bytes === null ? '-' : `${(row.bytes / 1e6).toFixed(2)} MB`, 12)}${pad(micro(row.coldUs))}${pad(micro(row.listUs))}`,
    );
  }
  const ratio = (ours, theirs) => ours / theirs;
  const rows = [
    ['per step, first 10%', ratio(resume.firstUs, langgraph.firstUs), 1],
    ['per step, last 10%', ratio(resume.lastUs, langgraph.lastUs), 1],
    ['bytes in the database', ratio(resume.bytes, langgraph.bytes), 1],
    ['cold getTuple', ratio(resume.coldUs, langgraph.coldUs), 1.5],
    ['list({ limit: 10 })', ratio(resume.listUs, langgraph.listUs), 1.5],
  ];
  lines.push(shareAboveMemoryLine(resume, memory));
  lines.push('  Resume / PostgresSaver (goal: below 1 per step and in bytes, within 1.5 for reads)');
  for (const [name, value, goal] of rows) {
    lines.push(`    ${name.padEnd(24)}${value.toFixed(2).padStart(8)}x  ${verdict(value <= goal)} (goal <= ${goal})`);
  }
  return `${lines.join('\n')}\n`;
}
