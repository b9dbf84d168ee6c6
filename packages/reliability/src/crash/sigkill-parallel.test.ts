// SIGKILL in the middle of a workflow's parallel group: a child process runs the workflow
// through the runner (real engine, file store, scripted provider with latency, real shell
// commands), the parent kills it at a seeded random moment after it started, resumes it, and
// repeats until it completes. A shell step of the group that completed never runs again (its
// side effect happens once), only unfinished members run on resume, every acknowledged
// checkpoint is kept, and the transcript equals an uninterrupted run's.
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

const KILLS = sized(12, 150);
const SEED = Number(process.env.CONCLAVE_CRASH_SEED ?? 20_261_123);
const SHELL_MEMBERS = ['lint', 'test', 'build'] as const;

// Each shell member appends its name to effects.log first: one line per time its command ran.
const PARALLEL_SPEC = `name: crash-parallel
variables: { topic: "durable sessions" }
agents:
  researcher: { prompt: "You research {{ topic }}." }
  writer: { prompt: "You write short reports." }
steps:
  - agent: researcher
    input: "Research {{ topic }}"
  - id: checks
    max_concurrency: 3
    parallel:
      - { id: lint, shell: "echo lint >> effects.log; sleep 0.05; echo linted" }
      - { id: test, shell: "echo test >> effects.log; sleep 0.08; echo tested" }
      - { id: critique, agent: researcher, input: "Critique:\\n{{ steps[0].response }}" }
      - { id: build, shell: "echo build >> effects.log; sleep 0.03; echo built" }
      - { id: outline, agent: writer, input: "Outline a report on {{ topic }}" }
  - agent: writer
    input: "Report from {{ steps.lint.output }}{{ steps.test.output }}{{ steps.build.output }}{{ steps.critique.output }}\\n{{ steps.outline.output }}"
`;

const worker = useBundledWorker('session-worker');

interface RunOutcome {
  sessionId: string | null;
  acknowledged: Array<{ seq: number; label: string }>;
  finished: boolean;
}

/** Runs (or resumes) the workflow once; kills it `killAfterMs` after it reported its session. */
async function runOnce(argv: string[], killAfterMs: number | null): Promise<RunOutcome> {
  const child = worker.spawn(argv, { CONCLAVE_SCRIPTED_LATENCY_MS: '15' });
  const stderr = collect(child.stderr);
  const outcome: RunOutcome = { sessionId: null, acknowledged: [], finished: false };
  let timer: NodeJS.Timeout | undefined;
  onLines(child.stdout, (line) => {
    const [kind, seq, ...label] = line.split(' ');
    if (kind === 'session') {
      outcome.sessionId = seq ?? null;
      if (killAfterMs !== null) timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    }
    if (kind === 'ack') outcome.acknowledged.push({ seq: Number(seq), label: label.join(' ') });
    if (kind === 'done') outcome.finished = true;
  });
  const exit = await exited(child);
  clearTimeout(timer);
  if (exit.signal !== 'SIGKILL' && exit.code !== 0)
    throw new Error(`the worker failed (exit ${exit.code}): ${stderr()}`);
  return outcome;
}

async function readState(home: string, sessionId: string) {
  const engine = createEngine({ store: createFsStore({ dir: home }) });
  try {
    return await engine.readSession(sessionId);
  } finally {
    await engine.close();
  }
}

function workspaceFor(home: string, name: string): string {
  const workspace = path.join(home, `workspace-${name}`);
  mkdirSync(workspace);
  writeFileSync(path.join(workspace, 'parallel.yaml'), PARALLEL_SPEC);
  return workspace;
}

/** How many times each shell member's command ran in a workspace. */
function effects(workspace: string): Record<string, number> {
  let text = '';
  try {
    text = readFileSync(path.join(workspace, 'effects.log'), 'utf8');
  } catch {}
  const counts: Record<string, number> = {};
  for (const line of text.split('\n').filter(Boolean)) counts[line] = (counts[line] ?? 0) + 1;
  return counts;
}

const transcriptOf = (state: Awaited<ReturnType<typeof readState>>) =>
  state.messages.map((message) => `${message.role}|${message.speaker}|${message.round}|${message.content}`);

describe('SIGKILL in the middle of a parallel group', () => {
  it(
    `runs completed shell steps once and keeps the uninterrupted transcript across ${KILLS} kills`,
    async () => {
      const home = temporaryDirectory();
      const random = seededRandom(SEED);
      const run = (reference: string, workspace: string) => ['mode', home, reference, 'parallel', workspace];

      const referenceWorkspace = workspaceFor(home, 'reference');
      const referenceOutcome = await runOnce(run('new', referenceWorkspace), null);
      expect(referenceOutcome.finished).toBe(true);
      const reference = await readState(home, referenceOutcome.sessionId as string);
      expect(effects(referenceWorkspace)).toEqual({ lint: 1, test: 1, build: 1 });
      expect(reference.steps.filter((step) => step.branch !== null)).toHaveLength(5);

      let kills = 0;
      let sessions = 0;
      let killedInGroup = 0;
      while (kills < KILLS) {
        sessions += 1;
        const workspace = workspaceFor(home, String(sessions));
        const acknowledged: RunOutcome['acknowledged'] = [];
        let sessionId: string | null = null;
        /** A member's count of runs when it was first seen completed in the journal. */
        const countWhenCompleted = new Map<string, number>();
        for (;;) {
          const killAfterMs = kills < KILLS ? randomInteger(random, 0, 250) : null;
          const outcome = await runOnce(run(sessionId ?? 'new', workspace), killAfterMs);
          sessionId ??= outcome.sessionId;
          acknowledged.push(...outcome.acknowledged);
          if (outcome.finished) break;
          kills += 1;
          if (sessionId === null) continue;
          const state = await readState(home, sessionId);
          const counts = effects(workspace);
          const group = state.steps.filter((step) => step.branch !== null);
          if (group.some((step) => step.status !== 'completed') && group.length > 0) killedInGroup += 1;
          for (const member of SHELL_MEMBERS) {
            const completed = state.steps.some(
              (step) => step.key === `step[${member}]/shell` && step.status === 'completed',
            );
            if (completed && !countWhenCompleted.has(member)) countWhenCompleted.set(member, counts[member] ?? 0);
          }
        }
        const after = await readState(home, sessionId as string);
        expect(after.status).toBe('completed');
        const counts = effects(workspace);
        for (const member of SHELL_MEMBERS) {
          // Every member ran; one that completed never ran again (a kill while it ran may repeat it).
          expect(counts[member] ?? 0).toBeGreaterThanOrEqual(1);
          const atCompletion = countWhenCompleted.get(member);
          if (atCompletion !== undefined) expect(counts[member]).toBe(atCompletion);
        }
        const checkpoints = new Map(after.checkpoints.map((checkpoint) => [checkpoint.seq, checkpoint.label]));
        for (const ack of acknowledged) expect(checkpoints.get(ack.seq)).toBe(ack.label);
        expect(transcriptOf(after)).toEqual(transcriptOf(reference));
      }
      // The kills really landed inside the group (not only before or after it).
      expect(killedInGroup).toBeGreaterThan(0);
      process.stderr.write(
        `sigkill parallel: ${kills} kills over ${sessions} runs, ${killedInGroup} inside the group\n`,
      );
    },
    sizedTimeout(240_000, 1_800_000),
  );
});
