// SIGKILL in the middle of a workflow's map step, through the real `conclave` executable: a
// 200-item map at `parallel: 4` whose items run a shell step with a side effect (it appends the
// item's id to effects.log, O_APPEND) and a scripted agent step. The parent kills the CLI with
// SIGKILL at seeded random moments (during start-up and recovery, and while items run), resumes
// it with `conclave run --resume <id> --on-uncertain rerun --yes`, and repeats until the run
// completes. Then:
// - an item's command runs again only when a kill left it uncertain (journaled as started, never
//   as finished), as `--on-uncertain rerun` promises: an item never found uncertain ran its
//   command exactly once, one found uncertain U times ran it at least once and at most 1 + U
//   times, and an item seen completed after a kill never runs its command again;
// - every item is done exactly once (no item lost or duplicated), and the transcript (with the
//   map's results, which the last step reads) equals an uninterrupted run's;
// - `conclave sessions verify` finds the journal sound.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createEngine } from '@resume/core';
import { createFsStore } from '@resume/storage-fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BundledWorker, bundleWorker, CONCLAVE_BIN, collect, exited, onLines } from '../support/child-process.js';
import { runConclave } from '../support/cli-in-process.js';
import { type Random, randomInteger, seededRandom } from '../support/seeded-random.js';
import { sized, sizedTimeout } from '../support/stress.js';
import { temporaryDirectory } from '../support/temporary-directory.js';

const ITEMS = 200;
/** Sessions run to completion through kills, and kills per session. */
const SESSIONS = sized(1, 4);
const KILLS_PER_SESSION = sized(6, 30);
const SEED = Number(process.env.CONCLAVE_CRASH_SEED ?? 20_261_124);
const ITEM_IDS = Array.from({ length: ITEMS }, (_, index) => `item-${String(index).padStart(3, '0')}`);

const MAP_SPEC = `name: crash-map
agents:
  reviewer: { prompt: "You review work items." }
  writer: { prompt: "You write short summaries." }
steps:
  - id: review
    map:
      items: { file: items.json }
      parallel: 4
      do:
        - id: mark
          shell: 'echo "$CONCLAVE_ITEM_ID" >> effects.log; echo "marked $CONCLAVE_ITEM_ID"'
        - id: note
          agent: reviewer
          input: "Review {{ item }} ({{ steps.mark.output }})"
  - agent: writer
    input: "Summarize the reviews: {{ steps.review.output }}"
`;

let conclave: BundledWorker;
beforeAll(async () => {
  conclave = await bundleWorker('conclave', CONCLAVE_BIN);
}, 120_000);
afterAll(async () => {
  await conclave?.remove();
});

interface Home {
  home: string;
  env: Record<string, string>;
}

function homeAt(root: string): Home {
  const home = path.join(root, 'home');
  const userHome = path.join(root, 'user-home');
  mkdirSync(userHome, { recursive: true });
  return {
    home,
    // Only what the CLI needs: never the user's keys, home or config.
    env: {
      CONCLAVE_HOME: home,
      HOME: userHome,
      NO_COLOR: '1',
      LANG: 'C.UTF-8',
      CONCLAVE_SCRIPTED_LATENCY_MS: '5',
    },
  };
}

function workspaceFor(root: string, name: string): string {
  const workspace = path.join(root, `workspace-${name}`);
  mkdirSync(workspace);
  writeFileSync(path.join(workspace, 'map.yaml'), MAP_SPEC);
  writeFileSync(path.join(workspace, 'items.json'), JSON.stringify(ITEM_IDS));
  return workspace;
}

/** When a run is killed: a while after it started (a first run: after its session started), or once the map reported `items` done. */
type KillPlan = { afterMs: number } | { afterItems: number; delayMs: number };

interface RunOutcome {
  sessionId: string | null;
  killed: boolean;
}

/** Runs `conclave <argv>` once in `workspace`, killing it with SIGKILL as `plan` says. */
async function runOnce(home: Home, workspace: string, argv: string[], plan: KillPlan | null): Promise<RunOutcome> {
  const child = conclave.spawn(argv, home.env, workspace);
  const stderr = collect(child.stderr);
  const outcome: RunOutcome = { sessionId: null, killed: false };
  let timer: NodeJS.Timeout | undefined;
  const killIn = (ms: number) => {
    timer ??= setTimeout(() => child.kill('SIGKILL'), ms);
  };
  // A first run is killed only once its session exists (a kill before leaves nothing to resume).
  const first = argv[1] !== '--resume';
  if (plan && 'afterMs' in plan && !first) killIn(plan.afterMs);
  onLines(child.stderr, (line) => {
    const started = /Started session (\S+)/.exec(line);
    if (started) outcome.sessionId = started[1] ?? null;
    if (started && plan && 'afterMs' in plan) killIn(plan.afterMs);
    const done = /items (\d+)\/\d+ done/.exec(line);
    if (plan && 'afterItems' in plan && done && Number(done[1]) >= plan.afterItems) killIn(plan.delayMs);
  });
  child.stdout.resume();
  const exit = await exited(child);
  clearTimeout(timer);
  outcome.killed = exit.signal === 'SIGKILL';
  if (!outcome.killed && exit.code !== 0)
    throw new Error(`conclave ${argv.join(' ')} failed (exit ${exit.code}): ${stderr()}`);
  return outcome;
}

async function readState(home: Home, sessionId: string) {
  const engine = createEngine({ store: createFsStore({ dir: home.home }) });
  try {
    return await engine.readSession(sessionId);
  } finally {
    await engine.close();
  }
}
type State = Awaited<ReturnType<typeof readState>>;

/** How many times each item's command ran in a workspace. */
function effects(workspace: string): Map<string, number> {
  let text = '';
  try {
    text = readFileSync(path.join(workspace, 'effects.log'), 'utf8');
  } catch {}
  const counts = new Map<string, number>();
  for (const line of text.split('\n').filter(Boolean)) counts.set(line, (counts.get(line) ?? 0) + 1);
  return counts;
}

const MARK_KEY = /^step\[review\]\/item\/(.+)\/mark\/shell$/;
const DONE_LABEL = /^map review: item (.+) done$/;

/** Each item's command step as the journal has it: `started` (uncertain after a kill) or `completed`. */
function markSteps(state: State): Map<string, string> {
  const steps = new Map<string, string>();
  for (const step of state.steps) {
    const item = MARK_KEY.exec(step.key)?.[1];
    if (item) steps.set(item, step.status);
  }
  return steps;
}

const doneItems = (state: State) =>
  state.checkpoints.flatMap((checkpoint) => DONE_LABEL.exec(checkpoint.label ?? '')?.[1] ?? []);

const transcriptOf = (state: State) =>
  state.messages.map((message) => `${message.role}|${message.speaker}|${message.round}|${message.content}`);

function killPlan(random: Random, doneBefore: number, killsLeft: number): KillPlan {
  // One kill in five lands during start-up, lease takeover, recovery or the replay of done items.
  if (random() < 0.2) return { afterMs: randomInteger(random, 0, 400) };
  // The others spread over the items left, landing a little after an item finished (while others run).
  const span = Math.max(1, Math.ceil(((ITEMS - doneBefore) * 2) / (killsLeft + 1)));
  return { afterItems: doneBefore + randomInteger(random, 1, span), delayMs: randomInteger(random, 0, 40) };
}

describe('SIGKILL in the middle of a map step', () => {
  it(
    `runs each completed item's command once, loses and duplicates no item, and keeps the uninterrupted transcript (${SESSIONS} x ${KILLS_PER_SESSION} kills)`,
    async () => {
      const root = temporaryDirectory();
      const home = homeAt(root);
      const random = seededRandom(SEED);

      const referenceWorkspace = workspaceFor(root, 'reference');
      const referenceRun = await runOnce(home, referenceWorkspace, ['run', 'map.yaml'], null);
      const reference = await readState(home, referenceRun.sessionId as string);
      expect(reference.status).toBe('completed');
      expect([...effects(referenceWorkspace).values()]).toEqual(ITEM_IDS.map(() => 1));
      expect(doneItems(reference)).toHaveLength(ITEMS);

      let kills = 0;
      let killsInMap = 0;
      let uncertainTotal = 0;
      let ranAgain = 0;
      for (let number = 1; number <= SESSIONS; number += 1) {
        const workspace = workspaceFor(root, String(number));
        let sessionId: string | null = null;
        let killsLeft = KILLS_PER_SESSION;
        /** Per item: how many kills left its command uncertain, and its count of runs when first seen completed. */
        const uncertain = new Map<string, number>();
        const countWhenCompleted = new Map<string, number>();
        for (;;) {
          let state = sessionId === null ? null : await readState(home, sessionId);
          // A kill after the run completed, before the process ended, leaves nothing to resume.
          if (state?.status === 'completed') break;
          const doneBefore = state ? doneItems(state).length : 0;
          const plan = killsLeft > 0 ? killPlan(random, doneBefore, killsLeft) : null;
          const argv =
            sessionId === null
              ? ['run', 'map.yaml']
              : ['run', '--resume', sessionId, '--on-uncertain', 'rerun', '--yes'];
          const outcome = await runOnce(home, workspace, argv, plan);
          sessionId ??= outcome.sessionId;
          expect(sessionId, 'the first run names its session').not.toBeNull();
          if (!outcome.killed) break;
          kills += 1;
          killsLeft -= 1;
          state = await readState(home, sessionId as string);
          const done = doneItems(state).length;
          if (done > 0 && done < ITEMS) killsInMap += 1;
          const counts = effects(workspace);
          for (const [segment, status] of markSteps(state)) {
            if (status === 'started') {
              uncertain.set(segment, (uncertain.get(segment) ?? 0) + 1);
              uncertainTotal += 1;
            }
            if (status === 'completed' && !countWhenCompleted.has(segment))
              countWhenCompleted.set(segment, counts.get(segment) ?? 0);
          }
        }
        const after = await readState(home, sessionId as string);
        expect(after.status).toBe('completed');

        // No item lost or duplicated: each is done once, and its messages are in the transcript once.
        expect(doneItems(after).sort()).toEqual(ITEM_IDS);
        expect(transcriptOf(after)).toEqual(transcriptOf(reference));

        // Each item's command ran once, or again only after a kill left it uncertain.
        const counts = effects(workspace);
        expect([...counts.keys()].sort()).toEqual(ITEM_IDS);
        ranAgain += [...counts.values()].reduce((sum, ran) => sum + ran - 1, 0);
        for (const item of ITEM_IDS) {
          const ran = counts.get(item) ?? 0;
          const atCompletion = countWhenCompleted.get(item);
          expect(ran, `${item} ran ${ran} times, uncertain ${uncertain.get(item) ?? 0} times`).toBeGreaterThanOrEqual(
            1,
          );
          expect(ran, `${item} ran ${ran} times, uncertain ${uncertain.get(item) ?? 0} times`).toBeLessThanOrEqual(
            1 + (uncertain.get(item) ?? 0),
          );
          if (atCompletion !== undefined) expect(ran, `${item} ran again after it completed`).toBe(atCompletion);
        }

        const verified = await runConclave(['sessions', 'verify', sessionId as string], {
          home: home.home,
          cwd: workspace,
        });
        expect(verified.code, verified.stdout + verified.stderr).toBe(0);
      }
      // The kills really landed while items ran (not only before or after the map).
      expect(killsInMap).toBeGreaterThan(0);
      process.stderr.write(
        `sigkill map: ${kills} kills over ${SESSIONS} sessions of ${ITEMS} items, ${killsInMap} inside the map, ${uncertainTotal} commands left uncertain, ${ranAgain} of them had run before the kill\n`,
      );
    },
    sizedTimeout(180_000, 1_800_000),
  );
});
