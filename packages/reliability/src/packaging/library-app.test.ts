// The library as an npm user gets it. `@resume/core`, `@resume/storage-fs` and
// `@resume/storage-postgres` are packed as `pnpm publish` would pack them and installed with
// npm into a fresh project outside the workspace (examples/library-app, with the registry for
// everything else and a cache inside the temporary directory). That project must type-check
// under strict NodeNext with `skipLibCheck` off (every shipped declaration, and what it
// imports, must resolve with the packages' own dependencies), `require()` the packages, run
// the store conformance suite under node:test without vitest, and run its durable order job
// through SIGKILLs at random points: re-running the same command after each kill, no
// completed step runs again, the unsafe step runs again only with consent, messages, records
// and checkpoints are journaled once, and the end state equals an uninterrupted run's.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createEngine, createSessionId, type SessionState } from '@resume/core';
import { createFsStore } from '@resume/storage-fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, onLines } from '../support/child-process.js';
import { packPackages, repositoryRoot } from '../support/packed-packages.js';
import { type Random, seededRandom } from '../support/seeded-random.js';
import { sized } from '../support/stress.js';

const KILLS = sized(50, 300);
const LANES = 2;
const SEED = Number(process.env.CONCLAVE_LIBRARY_APP_SEED ?? 20_260_517);
const STEPS = ['load-order', 'price', 'charge', 'ship'] as const;
const exampleDirectory = path.join(repositoryRoot, 'examples', 'library-app');

let root: string;
let app: string;

/** The environment of every command in the fresh project: this Node first, npm's cache inside `root`. */
function projectEnvironment(): NodeJS.ProcessEnv {
  const { npm_config_nodedir: _nodedir, ...inherited } = process.env;
  return {
    ...inherited,
    PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`,
    npm_config_cache: path.join(root, 'npm-cache'),
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  };
}

/** Runs a command in the project; its output is part of the error when it fails. */
function inProject(command: string, args: string[]): string {
  try {
    return execFileSync(command, args, {
      cwd: app,
      env: projectEnvironment(),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${command} ${args.join(' ')} failed:\n${failed.stdout ?? ''}\n${failed.stderr ?? failed.message}`);
  }
}

function npmExecutable(): string {
  for (const directory of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(directory, 'npm');
    if (directory && existsSync(candidate)) return candidate;
  }
  throw new Error('npm is not on PATH: the packaging proof installs the packed tarballs with npm');
}

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'conclave-library-app-'));
  app = path.join(root, 'app');
  const tarballs = packPackages(
    ['@resume/core', '@resume/storage-fs', '@resume/storage-postgres'],
    path.join(root, 'tarballs'),
  );
  mkdirSync(app);
  for (const entry of ['package.json', 'tsconfig.json', 'src']) {
    cpSync(path.join(exampleDirectory, entry), path.join(app, entry), { recursive: true });
  }
  const manifest = JSON.parse(readFileSync(path.join(app, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  for (const [name, tarball] of tarballs) manifest.dependencies[name] = `file:${tarball}`;
  writeFileSync(path.join(app, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  inProject(process.execPath, [npmExecutable(), 'install', '--no-audit', '--no-fund', '--loglevel=error']);
}, 240_000);

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('the library installed from its tarballs into a fresh npm project', () => {
  it('type-checks under strict NodeNext and builds', () => {
    inProject(process.execPath, [path.join(app, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json']);
    expect(existsSync(path.join(app, 'dist', 'run-order.js'))).toBe(true);
  }, 240_000);

  it('loads with require() as well as import', () => {
    const output = inProject(process.execPath, [
      '-e',
      "const core = require('@resume/core'); const fs = require('@resume/storage-fs'); const testing = require('@resume/core/testing'); console.log(typeof core.createEngine, typeof fs.createFsStore, typeof testing.describeStoreConformance)",
    ]);
    expect(output.trim()).toBe('function function function');
  });

  it('runs the store conformance suite under node:test with no vitest installed', () => {
    expect(existsSync(path.join(app, 'node_modules', 'vitest'))).toBe(false);
    const report = inProject(process.execPath, ['--test', '--test-reporter=tap', 'dist/store-conformance.test.js']);
    expect(report).toMatch(/# fail 0/);
    expect(Number(/# pass (\d+)/.exec(report)?.[1])).toBeGreaterThan(20);
  }, 120_000);

  it(`survives ${KILLS} SIGKILLs at random points: nothing completed runs again, nothing is journaled twice`, async () => {
    const home = path.join(root, 'home');
    const engine = createEngine({ store: createFsStore({ dir: home }) });
    try {
      const reference = await runToCompletion(home, engine, seededRandom(SEED), null);
      expect(reference.kills).toBe(0);
      const referenceView = comparableView(reference.state);
      expect(referenceView.status).toBe('completed');
      expect(reference.journaled).toEqual({
        'step-completed': 4,
        'message-added': 4,
        'data-set': 1,
        'checkpoint-marked': 4,
      });

      const lanes = Array.from({ length: LANES }, (_, lane) =>
        (async () => {
          const random = seededRandom(SEED + lane + 1);
          const rounds: Round[] = [];
          let kills = 0;
          while (kills < Math.ceil(KILLS / LANES)) {
            const round = await runToCompletion(home, engine, random, reference.timing);
            rounds.push(round);
            kills += round.kills;
          }
          return rounds;
        })(),
      );
      const rounds = (await Promise.all(lanes)).flat();
      const totalKills = rounds.reduce((sum, round) => sum + round.kills, 0);
      expect(totalKills).toBeGreaterThanOrEqual(KILLS);

      for (const round of rounds) {
        const where = `session ${round.sessionId} (${round.kills} kills)`;
        expect(comparableView(round.state), where).toEqual(referenceView);
        expect(round.journaled, where).toEqual(reference.journaled);
        expect(round.result, where).toEqual(reference.result);
        for (const problem of round.violations) expect.fail(`${where}: ${problem}`);
      }
      const reran = rounds.reduce((sum, round) => sum + round.extraRuns, 0);
      const consents = rounds.reduce((sum, round) => sum + round.consents, 0);
      console.info(
        `library app: ${totalKills} SIGKILLs over ${rounds.length} sessions; ${reran} step function(s) ran again after a kill inside them, ${consents} unsafe rerun(s) with consent (seed ${SEED})`,
      );
    } finally {
      await engine.close();
    }
  }, 600_000);
});

interface Timing {
  /** From spawn to the job's first line. */
  startupMs: number;
  /** From the job's first line to the process exit. */
  jobMs: number;
}

interface Round {
  sessionId: string;
  kills: number;
  state: SessionState;
  /** How many events of each kind the journal holds that the job writes. */
  journaled: Record<string, number>;
  result: unknown;
  timing: Timing;
  /** Step functions that ran more than once (each after a kill left their step unfinished). */
  extraRuns: number;
  consents: number;
  violations: string[];
}

type Engine = ReturnType<typeof createEngine>;

function markerCount(markers: string, file: string): number {
  const full = path.join(markers, file);
  return existsSync(full) ? readFileSync(full, 'utf8').split('\n').filter(Boolean).length : 0;
}

function markerSnapshot(markers: string): Record<string, { ran: number; consents: number }> {
  return Object.fromEntries(
    STEPS.map((step) => [
      step,
      { ran: markerCount(markers, `${step}.ran`), consents: markerCount(markers, `${step}.consent`) },
    ]),
  );
}

/**
 * Runs the example's job for one new session until a run finishes: with `timing`, each run is
 * SIGKILLed at a random moment (mostly inside the job, sometimes during start-up) unless it
 * finishes first. After every kill the journal and the side-effect markers are compared.
 */
async function runToCompletion(home: string, engine: Engine, random: Random, timing: Timing | null): Promise<Round> {
  const sessionId = createSessionId();
  const markers = path.join(root, 'markers', sessionId);
  mkdirSync(markers, { recursive: true });
  const violations: string[] = [];
  // Steps that had started but not finished when a process was killed, counted per step.
  const leftUnfinished: Record<string, number> = Object.fromEntries(STEPS.map((step) => [step, 0]));
  const completedAt = new Map<string, number>();
  let kills = 0;
  for (let run = 1; ; run += 1) {
    if (run > 200) throw new Error(`session ${sessionId} did not finish after 200 runs`);
    const killAt = timing
      ? random() < 0.8
        ? { after: 'job' as const, ms: random() * timing.jobMs }
        : { after: 'spawn' as const, ms: random() * (timing.startupMs + timing.jobMs) }
      : null;
    const outcome = await runOnce(home, sessionId, markers, killAt);
    const state = await engine.readSession(sessionId).catch(() => null);
    const seen = markerSnapshot(markers);
    for (const step of STEPS) {
      const record = state?.steps.find((entry) => entry.key === step);
      const before = completedAt.get(step);
      if (before !== undefined && seen[step]!.ran !== before) {
        violations.push(`${step} ran again after it was journaled as completed (run ${run})`);
      }
      if (record?.status === 'completed' && before === undefined) completedAt.set(step, seen[step]!.ran);
      if (outcome.killed && record?.status === 'started') leftUnfinished[step]! += 1;
    }
    if (outcome.killed) {
      kills += 1;
      continue;
    }
    if (outcome.code !== 0) {
      throw new Error(`run ${run} of ${sessionId} exited with ${outcome.code}:\n${outcome.stderr}`);
    }
    if (!state) throw new Error(`session ${sessionId} finished but cannot be read`);
    const final = markerSnapshot(markers);
    let extraRuns = 0;
    for (const step of STEPS) {
      const { ran, consents } = final[step]!;
      if (ran < 1) violations.push(`${step} never ran`);
      extraRuns += Math.max(0, ran - 1);
      // A step function runs again only when a kill left its step started and unfinished.
      if (ran - 1 > leftUnfinished[step]!) {
        violations.push(`${step} ran ${ran} times but was left unfinished by only ${leftUnfinished[step]} kill(s)`);
      }
      if (step === 'charge' && ran - 1 > consents) {
        violations.push(`the unsafe charge ran ${ran} times with ${consents} consent(s)`);
      }
      if (step !== 'charge' && consents > 0) violations.push(`${step} asked for consent`);
    }
    const keys = new Set(
      readFileSync(path.join(markers, 'charge.ran'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split(' ')[1]),
    );
    if (keys.size !== 1) violations.push(`the charge ran under ${keys.size} idempotency keys`);
    return {
      sessionId,
      kills,
      state,
      journaled: await journaledCounts(engine, sessionId),
      result: outcome.result,
      timing: outcome.timing,
      extraRuns,
      consents: final.charge!.consents,
      violations,
    };
  }
}

interface RunOutcome {
  killed: boolean;
  code: number | null;
  result: unknown;
  stderr: string;
  timing: Timing;
}

function runOnce(
  home: string,
  sessionId: string,
  markers: string,
  killAt: { after: 'spawn' | 'job'; ms: number } | null,
): Promise<RunOutcome> {
  const startedAt = performance.now();
  const child: ChildProcess & { stdout: NonNullable<ChildProcess['stdout']> } = spawn(
    process.execPath,
    [path.join(app, 'dist', 'run-order.js'), home, sessionId, markers],
    { cwd: app, stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '' } },
  ) as ChildProcess & { stdout: NonNullable<ChildProcess['stdout']> };
  const stderr = child.stderr ? collect(child.stderr) : () => '';
  let jobStartedAt: number | null = null;
  let result: unknown = null;
  let timer: NodeJS.Timeout | undefined;
  const kill = () => child.kill('SIGKILL');
  if (killAt?.after === 'spawn') timer = setTimeout(kill, killAt.ms);
  onLines(child.stdout, (line) => {
    if (line === 'job-started' && jobStartedAt === null) {
      jobStartedAt = performance.now();
      if (killAt?.after === 'job') timer = setTimeout(kill, killAt.ms);
    }
    if (line.startsWith('result ')) result = JSON.parse(line.slice('result '.length));
  });
  return new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      const endedAt = performance.now();
      const jobStart = jobStartedAt ?? endedAt;
      resolve({
        killed: signal === 'SIGKILL',
        code,
        result,
        stderr: stderr(),
        timing: { startupMs: jobStart - startedAt, jobMs: Math.max(1, endedAt - jobStart) },
      });
    });
  });
}

// A step that a kill left unfinished starts again (a second `step-started`); everything else once.
const JOURNALED_BY_THE_JOB = ['step-completed', 'message-added', 'data-set', 'checkpoint-marked'];

async function journaledCounts(engine: Engine, sessionId: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for await (const event of engine.readEvents(sessionId)) {
    if (JOURNALED_BY_THE_JOB.includes(event.type)) counts[event.type] = (counts[event.type] ?? 0) + 1;
  }
  return counts;
}

/** What an uninterrupted run and a run through kills must agree on (no ids, times or seqs). */
function comparableView(state: SessionState) {
  return {
    status: state.status,
    messages: state.messages.map((message) => ({ role: message.role, content: message.content })),
    checkpoints: state.checkpoints.map((checkpoint) => checkpoint.label),
    steps: state.steps.map((step) => ({ key: step.key, status: step.status, output: step.output })),
    data: state.data,
  };
}
