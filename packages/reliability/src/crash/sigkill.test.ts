// SIGKILL at random moments of real sessions: a child process runs a multi-agent
// chat (real engine, file store, scripted provider) and reports each checkpoint
// only after its append resolved; the parent kills it at a seeded random moment,
// restarts it with resume, and repeats until the session completes. Then every
// acknowledged checkpoint is in the journal, the transcript equals an
// uninterrupted run's, and no model call was repeated beyond the one a kill can
// leave uncertain. The same loops run with encryption at rest on (a data key handed to the
// worker): every record on disk is sealed, and resuming from sealed records changes nothing.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createEngine } from '@resume/core';
import { generateDataKey } from '@resume/core/encryption';
import { createFsStore } from '@resume/storage-fs';
import { describe, expect, it } from 'vitest';
import { useBundledWorker } from '../support/bundled-worker.js';
import { collect, exited, onLines } from '../support/child-process.js';
import { randomInteger, seededRandom } from '../support/seeded-random.js';
import { sized, sizedTimeout } from '../support/stress.js';
import { temporaryDirectory } from '../support/temporary-directory.js';

const TURNS = 30;
const KILLS = sized(200, 1_000);
/** Fewer kills with encryption on: the same loop, to show sealing changes nothing of it. */
const KILLS_ENCRYPTED = sized(60, 1_000);
const PARALLEL = 2;
const SEED = Number(process.env.CONCLAVE_CRASH_SEED ?? 20_261_122);

const worker = useBundledWorker('session-worker');

/** Encryption at rest for a run: the worker's environment, and how the test opens the home. */
interface Encryption {
  env: Record<string, string>;
  keys: { keys: Record<string, Uint8Array>; current: string };
}

function encryptionOn(): Encryption {
  const key = generateDataKey();
  return {
    env: { CONCLAVE_TEST_ENCRYPTION_KEY: Buffer.from(key.key).toString('hex') },
    keys: { keys: { [key.id]: key.key }, current: key.id },
  };
}

/**
 * Every journal record of the session is sealed, and no message of the transcript is in the
 * clear in any file of the store (the workspaces and call logs beside it are not the store's).
 */
function expectSealedAtRest(home: string, sessionId: string, messages: string[]): void {
  const journal = readFileSync(path.join(home, 'sessions', sessionId, 'journal.jsonl'), 'utf8');
  const records = journal.trimEnd().split('\n');
  expect(records.length).toBeGreaterThan(0);
  for (const record of records) expect(JSON.parse(record)).toHaveProperty('sealed');
  const texts = messages.map((message) => message.split('|').slice(3).join('|').slice(0, 40)).filter(Boolean);
  // Other lanes write beside this session meanwhile: a file they replaced or removed is skipped.
  for (const folder of [path.join('sessions', sessionId), 'blobs', 'index']) {
    const root = path.join(home, folder);
    const entries = readdirSync(root, { withFileTypes: true, recursive: true }).filter((entry) => entry.isFile());
    for (const entry of entries) {
      const content = readIfThere(path.join(entry.parentPath, entry.name));
      for (const text of texts) expect(content.includes(text), `${text} in ${entry.name}`).toBe(false);
    }
  }
}

interface Acknowledged {
  seq: number;
  label: string;
}

interface RunOutcome {
  sessionId: string | null;
  acknowledged: Acknowledged[];
  finished: boolean;
  stderr: string;
}

/** Runs the chat once; kills it after `killAfterAcks` acks plus `delayMs`, unless it finishes first. */
async function runOnce(
  argv: string[],
  env: Record<string, string>,
  kill: { afterAcks: number; delayMs: number } | null,
): Promise<RunOutcome> {
  const child = worker.spawn(argv, env);
  const stderr = collect(child.stderr);
  const outcome: RunOutcome = { sessionId: null, acknowledged: [], finished: false, stderr: '' };
  let timer: NodeJS.Timeout | undefined;
  onLines(child.stdout, (line) => {
    const [kind, seq, ...label] = line.split(' ');
    if (kind === 'session') outcome.sessionId = seq ?? null;
    if (kind === 'ack') outcome.acknowledged.push({ seq: Number(seq), label: label.join(' ') });
    if (kind === 'done') outcome.finished = true;
    if (kill && timer === undefined && kind === 'ack' && outcome.acknowledged.length >= kill.afterAcks) {
      timer = setTimeout(() => child.kill('SIGKILL'), kill.delayMs);
    }
  });
  // Some kills land before the first ack: during start-up, lease takeover or tail recovery.
  if (kill && kill.afterAcks === 0) timer = setTimeout(() => child.kill('SIGKILL'), kill.delayMs);
  const exit = await exited(child);
  clearTimeout(timer);
  outcome.stderr = stderr();
  if (exit.signal !== 'SIGKILL' && exit.code !== 0) {
    throw new Error(`the worker failed (exit ${exit.code}): ${outcome.stderr}`);
  }
  return outcome;
}

function readIfThere(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
}

async function transcript(home: string, sessionId: string, encryption?: Encryption) {
  const engine = createEngine({
    store: createFsStore({ dir: home, ...(encryption ? { encryption: encryption.keys } : {}) }),
  });
  try {
    const state = await engine.readSession(sessionId);
    return {
      state,
      messages: state.messages.map(
        (message) => `${message.role}|${message.speaker}|${message.round}|${message.content}`,
      ),
    };
  } finally {
    await engine.close();
  }
}

describe('SIGKILL at random moments', () => {
  for (const encrypted of [false, true]) {
    const killsWanted = encrypted ? KILLS_ENCRYPTED : KILLS;
    it(
      `loses no acknowledged checkpoint and repeats no completed call across ${killsWanted} kills${encrypted ? ', encryption on' : ''}`,
      async () => {
        const home = temporaryDirectory();
        const random = seededRandom(SEED + (encrypted ? 1 : 0));
        const encryption = encrypted ? encryptionOn() : undefined;

        // The reference: the same chat, never interrupted.
        const chat = (reference: string) => ['chat', home, reference, String(TURNS)];
        const referenceOutcome = await runOnce(chat('new'), { ...encryption?.env }, null);
        expect(referenceOutcome.finished).toBe(true);
        const reference = await transcript(home, referenceOutcome.sessionId as string, encryption);
        expect(reference.messages).toHaveLength(TURNS + 1);

        let kills = 0;
        let sessions = 0;
        const lane = async (laneNumber: number) => {
          while (kills < killsWanted) {
            sessions += 1;
            const callLog = path.join(home, `calls-${laneNumber}-${sessions}.jsonl`);
            const env = {
              ...encryption?.env,
              CONCLAVE_SCRIPTED_CALL_LOG: callLog,
              CONCLAVE_SCRIPTED_LATENCY_MS: String(randomInteger(random, 0, 3)),
            };
            const acknowledged: Acknowledged[] = [];
            let sessionId: string | null = null;
            let killsHere = 0;
            for (;;) {
              const killing = kills < killsWanted;
              const outcome = await runOnce(
                chat(sessionId ?? 'new'),
                env,
                killing ? { afterAcks: randomInteger(random, 0, 4), delayMs: randomInteger(random, 0, 25) } : null,
              );
              sessionId ??= outcome.sessionId;
              acknowledged.push(...outcome.acknowledged);
              if (outcome.finished) break;
              kills += 1;
              killsHere += 1;
              // A kill before the session was even created leaves nothing to resume: start again.
              if (!sessionId) continue;
            }
            const after = await transcript(home, sessionId as string, encryption);
            if (encrypted) expectSealedAtRest(home, sessionId as string, after.messages);
            // Every acknowledged checkpoint is in the journal, at the seq and with the label reported.
            const checkpoints = new Map(
              after.state.checkpoints.map((checkpoint) => [checkpoint.seq, checkpoint.label]),
            );
            for (const ack of acknowledged) expect(checkpoints.get(ack.seq)).toBe(ack.label);
            expect(after.state.status).toBe('completed');
            // Exactly the uninterrupted run's transcript.
            expect(after.messages).toEqual(reference.messages);
            // Each kill can leave at most one call uncertain (idempotent calls run again); nothing else repeats.
            const calls = readFileSync(callLog, 'utf8').trim().split('\n').length;
            expect(calls).toBeGreaterThanOrEqual(TURNS);
            expect(calls).toBeLessThanOrEqual(TURNS + killsHere);
          }
        };
        await Promise.all(Array.from({ length: PARALLEL }, (_, index) => lane(index)));
        expect(kills).toBeGreaterThanOrEqual(killsWanted);
        process.stderr.write(
          `sigkill${encrypted ? ' (encrypted)' : ''}: ${kills} kills over ${sessions} sessions of ${TURNS} turns (seed ${SEED})\n`,
        );
      },
      sizedTimeout(240_000, 1_800_000),
    );
  }
});

const CHAIN_SPEC = `name: crash-chain
variables: { topic: "durable sessions" }
agents:
  researcher: { prompt: "You research {{ topic }}." }
  writer: { prompt: "You write short reports." }
steps:
  - agent: researcher
    input: "Research {{ topic }}"
  - shell: "echo checked"
  - agent: writer
    input: "Write a report from:\\n{{ steps[0].response }}"
  - agent: researcher
    input: "Review this report:\\n{{ last_response }}"
  - agent: writer
    input: "Final version:\\n{{ last_response }}"
outputs:
  artifacts:
    - { path: report.md, from: "{{ last_response }}" }
`;

const LEAD_SCRIPT = `- text: "Reading the notes first."
  tool_calls: [{ name: read_file, args: { path: notes.txt } }]
- text: "Listing the workspace."
  tool_calls: [{ name: list_files, args: { path: "." } }]
- text: "Writing the summary."
  tool_calls: [{ name: write_file, args: { path: summary.md, content: "# Summary\\nDurable sessions.\\n" } }]
- text: "Checking what I wrote."
  tool_calls: [{ name: read_file, args: { path: summary.md } }]
- text: "Done: the summary is in summary.md."
`;

/**
 * A `write_file` a kill left uncertain is an unsafe step: it is run again (the decision
 * the worker gives), and the second write reports that the file already existed. That
 * one field is the only difference a re-run may make; it is normalised, nothing else.
 */
function rerunWriteAsFirst(message: string): string {
  return message.startsWith('tool|write_file|') ? message.replace('"created":false', '"created":true') : message;
}

/** A fresh workspace per run, so files one run writes never meet another run. */
function workspaceFor(home: string, name: string): string {
  const workspace = path.join(home, `workspace-${name}`);
  mkdirSync(workspace);
  writeFileSync(path.join(workspace, 'chain.yaml'), CHAIN_SPEC);
  writeFileSync(path.join(workspace, 'lead.yaml'), LEAD_SCRIPT);
  writeFileSync(path.join(workspace, 'notes.txt'), 'Durable sessions checkpoint every step.\n');
  writeFileSync(
    path.join(workspace, 'project.md'),
    Array.from(
      { length: 6 },
      (_, index) => `## Part ${index + 1}\n${'Each step is journaled before it runs. '.repeat(6)}\n`,
    ).join('\n'),
  );
  return workspace;
}

describe('SIGKILL during real mode runs (runner, scripted provider)', () => {
  const killsPerMode = sized(30, 200);
  const runs = [
    ...(['discussion', 'chain', 'iterative', 'orchestrated'] as const).map((mode) => ({ mode, encrypted: false })),
    // A discussion and a workflow (chain) again, encrypted at rest.
    ...(['discussion', 'chain'] as const).map((mode) => ({ mode, encrypted: true })),
  ];
  for (const { mode, encrypted } of runs) {
    it(
      `${mode}${encrypted ? ', encryption on' : ''}: every acknowledged checkpoint kept, the transcript of an uninterrupted run, across ${killsPerMode} kills`,
      async () => {
        const home = temporaryDirectory();
        const random = seededRandom(SEED + mode.length + (encrypted ? 1 : 0));
        const run = (reference: string, workspace: string) => ['mode', home, reference, mode, workspace];
        const encryption = encrypted ? encryptionOn() : undefined;
        const env = { ...encryption?.env, CONCLAVE_SCRIPTED_CONSENSUS_AT: '3' };

        const referenceOutcome = await runOnce(run('new', workspaceFor(home, 'reference')), env, null);
        expect(referenceOutcome.finished).toBe(true);
        const reference = await transcript(home, referenceOutcome.sessionId as string, encryption);
        expect(reference.messages.length).toBeGreaterThan(4);
        // The runs really exercise what the mode is about.
        if (mode === 'orchestrated') {
          expect(reference.state.messages.some((message) => message.role === 'tool')).toBe(true);
          expect(readFileSync(path.join(home, 'workspace-reference', 'summary.md'), 'utf8')).toContain('Durable');
        }
        if (mode === 'iterative') expect(reference.state.checkpoints.length).toBeGreaterThan(3);

        let kills = 0;
        let sessions = 0;
        while (kills < killsPerMode) {
          sessions += 1;
          const workspace = workspaceFor(home, String(sessions));
          const acknowledged: Acknowledged[] = [];
          let sessionId: string | null = null;
          for (;;) {
            const killing = kills < killsPerMode;
            const kill = killing
              ? { afterAcks: randomInteger(random, 0, 6), delayMs: randomInteger(random, 0, 15) }
              : null;
            const outcome = await runOnce(run(sessionId ?? 'new', workspace), env, kill);
            sessionId ??= outcome.sessionId;
            acknowledged.push(...outcome.acknowledged);
            if (outcome.finished) break;
            kills += 1;
          }
          const after = await transcript(home, sessionId as string, encryption);
          if (encrypted) expectSealedAtRest(home, sessionId as string, after.messages);
          const checkpoints = new Map(after.state.checkpoints.map((checkpoint) => [checkpoint.seq, checkpoint.label]));
          for (const ack of acknowledged) expect(checkpoints.get(ack.seq)).toBe(ack.label);
          expect(after.state.status).toBe('completed');
          expect(after.messages.map(rerunWriteAsFirst)).toEqual(reference.messages.map(rerunWriteAsFirst));
        }
        process.stderr.write(
          `sigkill ${mode}${encrypted ? ' (encrypted)' : ''}: ${kills} kills over ${sessions} runs\n`,
        );
      },
      sizedTimeout(240_000, 1_800_000),
    );
  }
});
