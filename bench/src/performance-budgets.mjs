// The user-facing performance budgets (docs/benchmarks.md, "Performance budgets"): start-up,
// listing, resume, workflow step overhead, checkpoint cost, open + fold and the picker's first
// frame. Every row is measured side by side in this one run: the CLI rows interleave each
// command with a bare `node -e 0` so load on the machine hits both alike, and each row is printed
// against its budget. Uses the built CLI (apps/cli/dist/conclave.mjs).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createSessions, defaultCliPath } from './cli-startup.mjs';
import { measureContentSearch } from './content-search.mjs';

export function median(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Only PATH and the data home: no user config, no API keys, the same for every command. */
function cliEnvironment(home) {
  return { PATH: process.env.PATH ?? '', CONCLAVE_HOME: home, NO_COLOR: '1' };
}

function timeProcess(args, options = {}) {
  const start = performance.now();
  const result = spawnSync(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  const elapsed = performance.now() - start;
  if (result.status !== 0 && !options.allowFailure) {
    throw new Error(`node ${args.join(' ')} exited ${result.status}: ${result.stderr?.toString('utf8').slice(-800)}`);
  }
  return elapsed;
}

/** A command against `node -e 0`, interleaved; the first run of each warms the compile and file caches. */
function versusBareNode(args, runs, env) {
  timeProcess(['-e', '0'], { env });
  timeProcess(args, { env });
  const bare = [];
  const command = [];
  for (let index = 0; index < runs; index += 1) {
    bare.push(timeProcess(['-e', '0'], { env }));
    command.push(timeProcess(args, { env }));
  }
  return { bareMs: median(bare), commandMs: median(command), ratio: median(command) / median(bare) };
}

/** A workflow of `steps` trivial shell steps, then one that fails until `go` exists and then stamps its start. */
function writeResumeFlow(directory, steps) {
  const lines = ['name: resume-bench', 'agents: { helper: { prompt: "You help." } }', 'steps:'];
  for (let index = 0; index < steps; index += 1) lines.push('  - shell: "true"');
  lines.push('  - shell: "test -f go && date +%s%N > started"');
  lines.push('    name: first-new-step');
  writeFileSync(path.join(directory, 'flow.yaml'), `${lines.join('\n')}\n`);
}

function newestSessionId(cli, env) {
  const listed = JSON.parse(execFileSync(process.execPath, [cli, 'sessions', 'list', '--json'], { env }).toString());
  return listed[0].id;
}

/**
 * `run --resume` of a workflow whose first `steps` steps completed: from spawning the CLI to the
 * moment the first new step's command starts (its own clock stamp), median of `repeats` fresh sessions.
 */
async function measureResume(cli, steps, repeats) {
  const samples = [];
  for (let repeat = 0; repeat < repeats; repeat += 1) {
    const directory = await mkdtemp(path.join(tmpdir(), 'conclave-bench-resume-'));
    try {
      const home = path.join(directory, 'home');
      const env = cliEnvironment(home);
      writeResumeFlow(directory, steps);
      timeProcess([cli, 'run', 'flow.yaml', '--quiet'], { cwd: directory, env, allowFailure: true });
      const id = newestSessionId(cli, env);
      writeFileSync(path.join(directory, 'go'), '');
      // The step stamps wall-clock time (`date +%s%N`): the spawn moment is taken on the same clock.
      const wallStartNs = BigInt(Date.now()) * 1_000_000n;
      timeProcess([cli, 'run', '--resume', id, '--yes', '--quiet'], { cwd: directory, env });
      const stamped = BigInt(readFileSync(path.join(directory, 'started'), 'utf8').trim());
      samples.push(Number(stamped - wallStartNs) / 1e6);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  }
  return { steps, firstNewStepMs: median(samples), samples };
}

/**
 * Per-step cost of a workflow shell step beyond the command itself: (run of `many` steps minus run
 * of 1 step) / (many - 1), minus the median cost of starting the same command with `sh -c` directly.
 */
async function measureShellStepOverhead(cli, many, repeats, extraEnv = {}) {
  const directory = await mkdtemp(path.join(tmpdir(), 'conclave-bench-steps-'));
  try {
    const home = path.join(directory, 'home');
    const env = { ...cliEnvironment(home), ...extraEnv };
    const flow = (count) => {
      const lines = ['name: step-bench', 'agents: { helper: { prompt: "You help." } }', 'steps:'];
      for (let index = 0; index < count; index += 1) lines.push('  - shell: "true"');
      return `${lines.join('\n')}\n`;
    };
    writeFileSync(path.join(directory, 'one.yaml'), flow(1));
    writeFileSync(path.join(directory, 'many.yaml'), flow(many));
    const one = [];
    const all = [];
    for (let repeat = 0; repeat < repeats; repeat += 1) {
      one.push(timeProcess([cli, 'run', 'one.yaml', '--quiet'], { cwd: directory, env }));
      all.push(timeProcess([cli, 'run', 'many.yaml', '--quiet'], { cwd: directory, env }));
    }
    // The command started directly, from a fresh Node process like the CLI's (starting a child
    // costs more from this benchmark's large heap, which would flatter the CLI).
    const rawScript = `
      const { spawnSync } = require('node:child_process');
      const samples = [];
      for (let i = 0; i < 200; i += 1) {
        const start = performance.now();
        spawnSync('sh', ['-c', 'true'], { stdio: 'ignore' });
        samples.push(performance.now() - start);
      }
      samples.sort((a, b) => a - b);
      process.stdout.write(String(samples[100]));`;
    const rawCommandMs = Number(
      execFileSync(process.execPath, ['-e', rawScript], { cwd: directory, env: cliEnvironment(home) }).toString(),
    );
    const perStepMs = (median(all) - median(one)) / (many - 1);
    return { steps: many, perStepMs, rawCommandMs, overheadMs: perStepMs - rawCommandMs };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/**
 * The picker's first frame: `conclave tui` in a pseudo-terminal (`script`) over `sessions` sessions,
 * from spawn until the first row of the list is on the screen.
 */
async function measurePickerFirstFrame(cli, home, repeats) {
  if (!existsSync('/usr/bin/script') && spawnSync('script', ['--version']).status !== 0) return null;
  const samples = [];
  for (let repeat = 0; repeat < repeats; repeat += 1) {
    samples.push(
      await new Promise((resolve, reject) => {
        const start = performance.now();
        const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(cli)} tui`;
        const child = spawn('script', ['-qfec', command, '/dev/null'], {
          env: { ...cliEnvironment(home), TERM: 'xterm-256color', COLUMNS: '120', LINES: '40' },
          stdio: ['pipe', 'pipe', 'pipe'],
        });
        let screen = '';
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          reject(new Error(`the picker showed no session row within 20 s:\n${screen.slice(-2000)}`));
        }, 20_000);
        child.stdout.on('data', (chunk) => {
          screen += chunk.toString('utf8');
          if (/session \d+/.test(screen.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, ''))) {
            clearTimeout(timer);
            const elapsed = performance.now() - start;
            child.kill('SIGKILL');
            resolve(elapsed);
          }
        });
        child.on('error', reject);
      }),
    );
  }
  return { firstFrameMs: median(samples), samples };
}

/**
 * A data home as a user's is between runs: its sessions folder settled (the listing index is
 * stamped only once the folder has not changed for STAMP_SETTLE_MS) and listed once since, so
 * the index is stamped. The listing that first follows a change checks every session instead:
 * that case is measured too (`afterChange`).
 */
async function settleAndList(cli, home) {
  await new Promise((resolve) => setTimeout(resolve, 2_200));
  execFileSync(process.execPath, [cli, 'sessions', 'list', '--json', '--quiet'], {
    env: cliEnvironment(home),
    maxBuffer: 256 * 1024 * 1024,
  });
}

/** Changes the sessions folder (a session created or written would), so the next listing checks every session. */
function touchSessionsFolder(home) {
  const marker = path.join(home, 'sessions', '.bench-touch');
  mkdirSync(marker);
  rmdirSync(marker);
}

export async function measurePerformanceBudgets({ quick = false, cli = defaultCliPath } = {}) {
  if (!existsSync(cli)) throw new Error(`${cli} does not exist: build the CLI first (./bin/pnpm build).`);
  const runs = quick ? 7 : 21;
  const directory = await mkdtemp(path.join(tmpdir(), 'conclave-bench-budgets-'));
  try {
    const listHome = path.join(directory, 'list-home');
    await mkdir(listHome, { recursive: true });
    await createSessions(listHome, 1_000);
    await settleAndList(cli, listHome);
    const version = versusBareNode([cli, '--version'], runs, cliEnvironment(listHome));
    const list = versusBareNode([cli, 'sessions', 'list', '--json'], runs, cliEnvironment(listHome));
    const resume5 = await measureResume(cli, 5, quick ? 3 : 7);
    const resume100 = await measureResume(cli, 100, quick ? 3 : 7);
    const steps = await measureShellStepOverhead(cli, quick ? 50 : 200, quick ? 2 : 5);
    const receiver = await startOtlpReceiver();
    let traced;
    try {
      traced = await measureShellStepOverhead(cli, quick ? 50 : 200, quick ? 2 : 5, {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      });
    } finally {
      // Nothing received would mean the row timed runs that sent nothing.
      if (traced) traced.bytesReceived = await receiver.stop();
      else await receiver.stop();
    }
    const pickerHome = path.join(directory, 'picker-home');
    await createSessions(pickerHome, quick ? 2_000 : 10_000);
    await settleAndList(cli, pickerHome);
    const picker = await measurePickerFirstFrame(cli, pickerHome, quick ? 2 : 5);
    // The first picker after a change: every session checked, the index written again (one run each).
    if (picker) {
      const afterChange = [];
      for (let repeat = 0; repeat < (quick ? 1 : 3); repeat += 1) {
        touchSessionsFolder(pickerHome);
        afterChange.push((await measurePickerFirstFrame(cli, pickerHome, 1))?.firstFrameMs ?? Number.NaN);
      }
      picker.afterChangeMs = median(afterChange);
    }
    // Content search and the cost ledger over sessions made by scripted discussions.
    const search = await measureContentSearch({
      cli,
      home: path.join(directory, 'search-home'),
      sessions: quick ? 2_000 : 10_000,
      runs: quick ? 3 : 7,
    });
    return {
      version,
      list,
      resume5,
      resume100,
      steps,
      traced,
      picker,
      pickerSessions: quick ? 2_000 : 10_000,
      search,
    };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/**
 * A local OTLP/HTTP receiver in a process of its own (the measurements spawn synchronously, which
 * would stall one in this process): answers every request and counts the bytes it was sent.
 */
async function startOtlpReceiver() {
  const script = `
    let bytes = 0;
    const server = require('node:http').createServer((request, response) => {
      request.on('data', (chunk) => { bytes += chunk.length; });
      request.on('end', () => { response.writeHead(200, { 'content-type': 'application/x-protobuf' }); response.end(); });
    });
    server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
    process.on('SIGTERM', () => { process.stderr.write(String(bytes)); process.exit(0); });`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  const port = await new Promise((resolve, reject) => {
    child.stdout.once('data', (chunk) => resolve(Number(chunk.toString().trim())));
    child.once('error', reject);
  });
  let received = '';
  child.stderr.on('data', (chunk) => {
    received += chunk;
  });
  const exited = new Promise((resolve) => child.once('close', resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    /** Stops it; resolves with how many bytes of spans it was sent. */
    async stop() {
      child.kill('SIGTERM');
      await exited;
      return Number(received);
    },
  };
}

/**
 * `measurePerformanceBudgets` in a fresh Node process of its own. The rows time commands from
 * spawning them, and spawning costs the parent time in proportion to its memory: after the storage
 * sections `pnpm bench` holds about 400 MB, which added tens of milliseconds to every spawn (a
 * user's shell is a few megabytes). A fresh process measures what a user starting the CLI sees.
 */
export function measurePerformanceBudgetsApart({ quick = false } = {}) {
  const result = spawnSync(
    process.execPath,
    [fileURLToPath(import.meta.url), '--measure', ...(quick ? ['--quick'] : [])],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  if (result.status !== 0) throw new Error(`the performance budgets run exited ${result.status}`);
  return JSON.parse(result.stdout.toString('utf8'));
}

if (
  process.argv[1] &&
  fileURLToPath(import.meta.url) === path.resolve(process.argv[1]) &&
  process.argv.includes('--measure')
) {
  const result = await measurePerformanceBudgets({ quick: process.argv.includes('--quick') });
  process.stdout.write(JSON.stringify(result));
}

/** Rows against budgets; `storage` brings the checkpoint and open rows measured by run.mjs in the same run. */
export function performanceRows(result, storage) {
  const rows = [
    [
      'conclave --version vs node -e 0',
      result.version.ratio,
      1.5,
      'x',
      `${result.version.commandMs.toFixed(0)} vs ${result.version.bareMs.toFixed(0)} ms`,
    ],
    [
      'sessions list --json (1,000) vs node -e 0',
      result.list.ratio,
      2,
      'x',
      `${result.list.commandMs.toFixed(0)} vs ${result.list.bareMs.toFixed(0)} ms`,
    ],
    ['run --resume, 100 steps, to first new step', result.resume100.firstNewStepMs, 150, ' ms', ''],
    ['run --resume, 5 steps, to first new step', result.resume5.firstNewStepMs, 150, ' ms', ''],
    [
      'shell step overhead beyond the command',
      result.steps.overheadMs,
      1,
      ' ms',
      `${result.steps.perStepMs.toFixed(2)} ms per step, sh -c true ${result.steps.rawCommandMs.toFixed(2)} ms`,
    ],
    [
      '  the same with tracing on (OTLP to a local receiver)',
      result.traced.overheadMs,
      1.5,
      ' ms',
      `${result.traced.perStepMs.toFixed(2)} ms per step: +${(result.traced.perStepMs - result.steps.perStepMs).toFixed(2)} ms for its span; ${(result.traced.bytesReceived / 1e3).toFixed(0)} KB sent`,
    ],
  ];
  for (const row of storage.checkpoints) {
    rows.push([
      `checkpoint vs raw writeSync+fdatasync, ${row.events} events`,
      row.engine.median / row.raw.median,
      1.3,
      'x',
      `${row.engine.median.toFixed(0)} vs ${row.raw.median.toFixed(0)} us`,
    ]);
  }
  rows.push([
    'open + fold of 10,000 messages (keyed, snapshot + tail)',
    storage.open.openMedianMs,
    50,
    ' ms',
    `then every message's text read once: +${storage.open.touchMedianMs.toFixed(1)} ms`,
  ]);
  rows.push([
    'open for ordered replay of 10,000 messages (whole journal)',
    storage.open.orderedOpenMedianMs,
    50,
    ' ms',
    `heap growth ${(storage.open.orderedHeapDeltaBytes / 1e6).toFixed(1)} MB`,
  ]);
  // With the buffers the opened session keeps (a snapshot's texts stay in its bytes until read);
  // the heap alone, as measured before, is printed next to it.
  rows.push([
    '  heap growth (with buffers) vs journal size',
    storage.open.retainedDeltaBytes / storage.open.journalBytes,
    3,
    'x',
    `${(storage.open.retainedDeltaBytes / 1e6).toFixed(1)} MB (heap alone ${(storage.open.heapDeltaBytes / 1e6).toFixed(1)} MB) vs ${(storage.open.journalBytes / 1e6).toFixed(1)} MB`,
  ]);
  if (result.picker) {
    rows.push([
      `TUI picker first frame, ${result.pickerSessions.toLocaleString('en')} sessions`,
      result.picker.firstFrameMs,
      300,
      ' ms',
      `first after a change (every session checked): ${result.picker.afterChangeMs.toFixed(0)} ms`,
    ]);
  }
  if (result.search) {
    const search = result.search;
    const sessions = search.sessions.toLocaleString('en');
    const beyondNode = (ms) => (ms - search.nodeBareMs).toFixed(0);
    rows.push([
      `sessions search over ${sessions} sessions, beyond node -e 0`,
      search.rareMs - search.nodeBareMs,
      100,
      ' ms',
      `a rare word (${search.rareHits} hits); a common word ${beyondNode(search.commonMs)} ms, a phrase ${beyondNode(search.phraseMs)} ms, for a person ${beyondNode(search.humanMs)} ms; node -e 0 ${search.nodeBareMs.toFixed(0)} ms; first build ${(search.firstBuildMs / 1000).toFixed(1)} s`,
    ]);
    rows.push([
      "  content index vs the sessions' bytes",
      search.indexRatio,
      0.2,
      'x',
      `${(search.indexBytes / 1e6).toFixed(1)} MB vs ${(search.sessionBytes / 1e6).toFixed(1)} MB`,
    ]);
    rows.push([`conclave usage over ${sessions} sessions`, search.usageMs, 300, ' ms', `--by model,day --json`]);
  }
  return rows.map(([what, value, limit, unit, detail]) => ({ what, value, limit, unit, detail, ok: value <= limit }));
}

export function formatPerformanceRows(rows) {
  const lines = ['performance budgets (side by side in this run)'];
  for (const row of rows) {
    const value = `${row.value.toFixed(row.unit === 'x' ? 2 : 1)}${row.unit}`;
    lines.push(
      `  ${row.what.padEnd(58)} ${value.padStart(10)}  ${row.ok ? 'ok    ' : 'MISSED'} (budget ${row.limit}${row.unit})${row.detail ? `  ${row.detail}` : ''}`,
    );
  }
  return `${lines.join('\n')}\n`;
}
