// SIGKILL at random moments of real sessions: a child process runs a multi-agent
// chat (real engine, file store, scripted provider) and reports each checkpoint
// only after its append resolved; the parent kills it at a seeded random moment,
// restarts it with resume, and repeats until the session completes. Then every
// acknowledged checkpoint is in the journal, the transcript equals an
// uninterrupted run's, and no model call was repeated beyond the one a kill can
// leave uncertain.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createEngine } from '@resume/core';
import { createFsStore } from '@resume/storage-fs';
import { describe, expect, it } from 'vitest';
import { useBundledWorker } from '../support/bundled-worker.js';
import { collect, exited, onLines } from '../support/child-process.js';
import { randomInteger, seededRandom } from '../support/seeded-random.js';
import { sized, sizedTimeout } from '../support/stress.js';
import { temporaryDirectory } from '../support/temporary-directory.js';

const TURNS = 30;
const KILLS = sized(200, 1_000);
const PARALLEL = 2;
const SEED = Number(process.env.CONCLAVE_CRASH_SEED ?? 20_261_122);

const worker = useBundledWorker('session-worker');

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

async function transcript(home: string, sessionId: string) {
  const engine = createEngine({ store: createFsStore({ dir: home }) });
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
  it(
    `loses no acknowledged checkpoint and repeats no completed call across ${KILLS} kills`,
    async () => {
      const home = temporaryDirectory();
      const random = seededRandom(SEED);

      // The reference: the same chat, never interrupted.
      const chat = (reference: string) => ['chat', home, reference, String(TURNS)];
      const referenceOutcome = await runOnce(chat('new'), {}, null);
      expect(referenceOutcome.finished).toBe(true);
      const reference = await transcript(home, referenceOutcome.sessionId as string);
      expect(reference.messages).toHaveLength(TURNS + 1);

      let kills = 0;
      let sessions = 0;
      const lane = async (laneNumber: number) => {
        while (kills < KILLS) {
          sessions += 1;
          const callLog = path.join(home, `calls-${laneNumber}-${sessions}.jsonl`);
          const env = {
            CONCLAVE_SCRIPTED_CALL_LOG: callLog,
            CONCLAVE_SCRIPTED_LATENCY_MS: String(randomInteger(random, 0, 3)),
          };
          const acknowledged: Acknowledged[] = [];
          let sessionId: string | null = null;
          let killsHere = 0;
          for (;;) {
            const killing = kills < KILLS;
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
          const after = await transcript(home, sessionId as string);
          // Every acknowledged checkpoint is in the journal, at the seq and with the label reported.
          const checkpoints = new Map(after.state.checkpoints.map((checkpoint) => [checkpoint.seq, checkpoint.label]));
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
      expect(kills).toBeGreaterThanOrEqual(KILLS);
      process.stderr.write(`sigkill: ${kills} kills over ${sessions} sessions of ${TURNS} turns (seed ${SEED})\n`);
    },
    sizedTimeout(240_000, 1_800_000),
  );
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
  for (const mode of ['discussion', 'chain', 'iterative', 'orchestrated'] as const) {
    it(
      `${mode}: every acknowledged checkpoint kept, the transcript of an uninterrupted run, across ${killsPerMode} kills`,
      async () => {
        const home = temporaryDirectory();
        const random = seededRandom(SEED + mode.length);
        const run = (reference: string, workspace: string) => ['mode', home, reference, mode, workspace];
        const env = { CONCLAVE_SCRIPTED_CONSENSUS_AT: '3' };

        const referenceOutcome = await runOnce(run('new', workspaceFor(home, 'reference')), env, null);
        expect(referenceOutcome.finished).toBe(true);
        const reference = await transcript(home, referenceOutcome.sessionId as string);
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
          const after = await transcript(home, sessionId as string);
          const checkpoints = new Map(after.state.checkpoints.map((checkpoint) => [checkpoint.seq, checkpoint.label]));
          for (const ack of acknowledged) expect(checkpoints.get(ack.seq)).toBe(ack.label);
          expect(after.state.status).toBe('completed');
          expect(after.messages.map(rerunWriteAsFirst)).toEqual(reference.messages.map(rerunWriteAsFirst));
        }
        process.stderr.write(`sigkill ${mode}: ${kills} kills over ${sessions} runs\n`);
      },
      sizedTimeout(240_000, 1_800_000),
    );
  }
});
