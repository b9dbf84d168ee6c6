// A real Conclave process for the crash, lease and load suites (bundled and spawned
// by support/child-process.ts). It uses the real engine, file store and scripted
// provider, and reports on stdout only what is durable:
//   session <id>            the session exists
//   ack <seq> <label>       a checkpoint whose append resolved
//   holding <pid>           the writer lease is held
//   done                    the work is finished
// Errors go to stderr as `error <code> <message>` and become the error's exit code.
// With CONCLAVE_TEST_ENCRYPTION_KEY (a data key, 64 hex digits) the store is encrypted at rest.
//
//   chat <home> <new|id> <turns>            a three-agent chat, one durable model call and checkpoint per turn
//   hold <home> <id>                        takes the lease and keeps it until killed
//   open <home> <id>                        takes the lease, releases it, exits
//   load <home> <sessions> <checkpoints>    that many sessions written concurrently
//   mode <home> <new|id> <discussion|chain|parallel|iterative|orchestrated> <workspace>
//                                           a real run of that mode through the runner (resumed in place)
import { hostname } from 'node:os';
import path from 'node:path';
import { createEngine, type Engine, type Session } from '@resume/core';
import { keyIdFor, parseDataKey } from '@resume/core/encryption';
import { createScriptedProvider } from '@resume/providers-scripted';
import { createRunner, type RunResult } from '@resume/runner';
import { createFsStore } from '@resume/storage-fs';
import { exitWithError } from './exit-with-error.js';

const AGENTS = ['analyst', 'critic', 'builder'] as const;

/** The store's encryption option from the environment, or none. */
function encryptionFromEnvironment(): { encryption?: { keys: Record<string, Uint8Array>; current: string } } {
  const text = process.env.CONCLAVE_TEST_ENCRYPTION_KEY;
  if (!text) return {};
  const key = parseDataKey(text, 'CONCLAVE_TEST_ENCRYPTION_KEY');
  const id = keyIdFor(key);
  return { encryption: { keys: { [id]: key }, current: id } };
}

function report(line: string): void {
  process.stdout.write(`${line}\n`);
}

/**
 * The chat workload, written as a resumable state machine (keyed replay): progress is derived
 * from the journal, never from a counter.
 */
async function chat(engine: Engine, reference: string, turns: number): Promise<void> {
  const provider = createScriptedProvider({ env: process.env });
  let session: Session;
  if (reference === 'new') {
    session = await engine.createSession({
      title: 'crash chat',
      mode: 'custom',
      replay: 'keyed',
      initialEvents: [
        {
          type: 'message-added',
          message: { role: 'user', content: 'How should we make long agent runs survive crashes?', speaker: 'user' },
        },
      ],
    });
    await session.checkpoint('task');
  } else {
    session = await engine.openSession(reference, { maxRecoveries: 1_000_000, replay: 'keyed' });
  }
  report(`session ${session.id}`);
  // Steps replay in order from the start (completed ones return their recorded output
  // without calling the model); a turn whose message is already journaled adds nothing.
  for (let turn = 0; turn < turns; turn += 1) {
    const agent = AGENTS[turn % AGENTS.length] ?? 'analyst';
    const round = Math.floor(turn / AGENTS.length) + 1;
    // The input is the transcript before this turn: the task and the earlier turns.
    const messages = session.state.messages.slice(0, turn + 1).map((message) => ({
      role: message.role,
      content: message.content,
      speaker: message.speaker,
    }));
    const text = await session.step(`turn-${turn}`, async ({ signal }) => {
      const result = await provider.chatModel('scripted').generate({ messages, signal, metadata: { agent, round } });
      return result.message.content;
    });
    if (session.state.messages.length > turn + 1) continue;
    session.addMessage({ role: 'assistant', speaker: agent, content: text, round });
    const label = `turn ${turn + 1}`;
    const seq = await session.checkpoint(label);
    report(`ack ${seq} ${label}`);
  }
  await session.complete();
  await session.close();
  report('done');
}

async function hold(engine: Engine, id: string): Promise<void> {
  await engine.openSession(id, { countRecovery: false });
  report(`holding ${process.pid}`);
  // Keeps the process (and so the lease) alive until it is killed.
  setInterval(() => {}, 60_000);
  await new Promise(() => {});
}

async function open(engine: Engine, id: string): Promise<void> {
  const session = await engine.openSession(id, { countRecovery: false });
  report(`holding ${process.pid}`);
  await session.close();
  report('done');
}

async function load(engine: Engine, sessions: number, checkpoints: number): Promise<void> {
  await Promise.all(
    Array.from({ length: sessions }, async (_, index) => {
      const session = await engine.createSession({ title: `load ${process.pid} ${index}`, mode: 'custom' });
      report(`session ${session.id}`);
      for (let number = 1; number <= checkpoints; number += 1) {
        session.addMessage({ role: 'user', content: `${session.id} message ${number}`, speaker: `writer-${index}` });
        await session.checkpoint(`checkpoint ${number}`);
      }
      await session.complete();
      await session.close();
    }),
  );
  report('done');
}

/** A real mode run through the runner, as the CLI drives it: started, or resumed in place. */
async function runMode(engine: Engine, reference: string, mode: string, workspace: string): Promise<void> {
  const provider = createScriptedProvider({
    env: process.env,
    ...(mode === 'orchestrated' ? { script: path.join(workspace, 'lead.yaml') } : {}),
  });
  const runner = createRunner({
    engine,
    workspaceDir: workspace,
    models: (agent) => provider.chatModel(agent.model ?? 'scripted'),
    // Shell steps are unsafe: one a kill left uncertain runs again (the spec's are harmless).
    decisions: { uncertainStep: () => 'rerun' },
    onEvent: (event) => {
      if (event.type === 'run-started') report(`session ${event.sessionId}`);
      if (event.type === 'checkpoint') report(`ack ${event.seq} ${event.label ?? ''}`);
    },
  });
  let result: RunResult;
  // A kill after the run completed but before `done` was reported leaves nothing to resume.
  if (reference !== 'new' && (await engine.readSession(reference)).status === 'completed') {
    report('done');
    return;
  }
  if (reference !== 'new') result = await runner.resume(reference);
  else if (mode === 'chain') result = await runner.runWorkflow(path.join(workspace, 'chain.yaml'));
  else if (mode === 'parallel') result = await runner.runWorkflow(path.join(workspace, 'parallel.yaml'));
  else if (mode === 'iterative') {
    result = await runner.start({
      mode: 'iterative',
      task: 'Review this design note chunk by chunk.',
      options: { project: 'project.md', chunkSize: 300 },
    });
  } else if (mode === 'orchestrated') {
    result = await runner.start({ mode: 'orchestrated', task: 'Summarise the notes into summary.md.' });
  } else {
    result = await runner.start({
      mode: 'discussion',
      task: 'How should a team adopt durable agent sessions?',
      options: { maxRounds: 4 },
    });
  }
  if (result.status !== 'completed') throw result.error ?? new Error(`the run ended ${result.status}`);
  report('done');
}

async function main(): Promise<void> {
  const [command, home, first, second] = process.argv.slice(2);
  if (!command || !home || !first) throw new Error('usage: session-worker <command> <home> <arguments...>');
  const engine = createEngine({
    store: createFsStore({ dir: home, ...encryptionFromEnvironment() }),
    holder: { pid: process.pid, host: hostname() },
    snapshotEvery: 25,
  });
  if (command === 'chat') await chat(engine, first, Number(second));
  else if (command === 'hold') await hold(engine, first);
  else if (command === 'open') await open(engine, first);
  else if (command === 'load') await load(engine, Number(first), Number(second));
  else if (command === 'mode') await runMode(engine, first, second ?? 'discussion', process.argv[6] ?? process.cwd());
  else throw new Error(`unknown command ${command}`);
  await engine.close();
}

main().catch(exitWithError);
