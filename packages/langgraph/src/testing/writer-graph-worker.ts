// Test support: one server worker running a LangGraph graph on a thread, as a real process.
// The test bundles it and starts several on the same store; each prints one JSON line per
// event on stdout (`ready`, `interrupted`, `done`, `error`).
//   interrupt  runs draft -> review; review calls interrupt(); stays alive after it (no close())
//   resume     sends Command({ resume }) to the thread and prints the final log
//   run        reads the thread, prints `ready`, and on SIGUSR1 runs five slow steps

import { Annotation, Command, END, interrupt, START, StateGraph } from '@langchain/langgraph';
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import { ConclaveError, type SessionStore } from '@resume/core/spec';
import { createFsStore } from '@resume/storage-fs';
import { createPostgresStore } from '@resume/storage-postgres';
import { ResumeCheckpointSaver } from '../saver/resume-checkpoint-saver.js';

export interface GraphWorkerConfig {
  store: { kind: 'fs'; dir: string } | { kind: 'postgres'; url: string; schema: string };
  threadId: string;
  action: 'interrupt' | 'resume' | 'run';
  label: string;
  leaseIdleMs?: number;
  leaseWaitMs?: number;
  stepDelayMs?: number;
}

const State = Annotation.Root({
  log: Annotation<string[]>({ reducer: (left, right) => [...left, ...right], default: () => [] }),
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const report = (event: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(event)}\n`);

function reviewGraph(checkpointer: BaseCheckpointSaver) {
  return new StateGraph(State)
    .addNode('draft', () => ({ log: ['draft'] }))
    .addNode('review', () => ({ log: [`review: ${String(interrupt('approve the draft?'))}`] }))
    .addNode('publish', () => ({ log: ['publish'] }))
    .addEdge(START, 'draft')
    .addEdge('draft', 'review')
    .addEdge('review', 'publish')
    .addEdge('publish', END)
    .compile({ checkpointer });
}

function slowGraph(checkpointer: BaseCheckpointSaver, label: string, delayMs: number) {
  const names = ['one', 'two', 'three', 'four', 'five'] as const;
  let graph = new StateGraph(State) as StateGraph<typeof State.spec, unknown, unknown, string>;
  for (const name of names) {
    graph = graph.addNode(name, async () => {
      await sleep(delayMs);
      return { log: [`${label} ${name}`] };
    }) as typeof graph;
  }
  graph.addEdge(START, names[0]);
  for (let index = 1; index < names.length; index += 1) graph.addEdge(names[index - 1]!, names[index]!);
  graph.addEdge(names[names.length - 1]!, END);
  return graph.compile({ checkpointer });
}

function openStore(config: GraphWorkerConfig): SessionStore {
  return config.store.kind === 'fs'
    ? createFsStore({ dir: config.store.dir })
    : createPostgresStore({ connectionString: config.store.url, schema: config.store.schema });
}

async function main(): Promise<void> {
  const config = JSON.parse(process.env.CONCLAVE_GRAPH_WORKER ?? '{}') as GraphWorkerConfig;
  const store = openStore(config);
  const saver = new ResumeCheckpointSaver({
    store,
    ...(config.leaseIdleMs === undefined ? {} : { leaseIdleMs: config.leaseIdleMs }),
    ...(config.leaseWaitMs === undefined ? {} : { leaseWaitMs: config.leaseWaitMs }),
  });
  const thread = { configurable: { thread_id: config.threadId }, durability: 'sync' as const };
  if (config.action === 'interrupt') {
    const result = await reviewGraph(saver).invoke({ log: [config.label] }, thread);
    report({ event: 'interrupted', interrupts: (result as { __interrupt__?: unknown[] }).__interrupt__?.length ?? 0 });
    // A server worker: alive, and never closes the checkpointer.
    setInterval(() => undefined, 60_000);
    return;
  }
  if (config.action === 'resume') {
    const started = performance.now();
    const result = await reviewGraph(saver).invoke(new Command({ resume: 'approved' }), thread);
    report({ event: 'done', log: result.log, ms: Math.round(performance.now() - started) });
  } else {
    const graph = slowGraph(saver, config.label, config.stepDelayMs ?? 50);
    await graph.getState(thread);
    // Waiting for a signal alone would let the process exit: nothing else keeps it alive.
    const alive = setInterval(() => undefined, 60_000);
    const go = new Promise((resolve) => process.once('SIGUSR1', resolve));
    report({ event: 'ready' });
    await go;
    clearInterval(alive);
    const result = await graph.invoke({ log: [`${config.label} start`] }, thread);
    report({ event: 'done', log: result.log });
  }
  await saver.close();
  await store.close();
}

main().catch((error: unknown) => {
  report({
    event: 'error',
    code: ConclaveError.isInstance(error) ? error.code : null,
    message: error instanceof Error ? error.message : String(error),
  });
  process.exit(1);
});
