// Work the built CLI does at start-up, counted (not timed) for a workflow run and its resume:
// functions compiled from strings (zod runs without its JIT in the CLI), zod schemas built (all,
// and the journal's event schemas), whether the YAML parser was loaded, and which of Node's
// modules that no command uses were loaded. Each count comes from a preload that hooks zod's
// global configuration or reads Node's module lists: internals, so these are figures to watch,
// not assertions. `node bench/src/start-up-work.mjs` prints them alone.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultCliPath } from './cli-startup.mjs';

const PRELOAD = `const Original = Function;
let compiled = 0;
globalThis.Function = new Proxy(Original, {
  construct(target, args, newTarget) { compiled += 1; return Reflect.construct(target, args, newTarget); },
  apply(target, self, args) { compiled += 1; return Reflect.apply(target, self, args); },
});
let schemas = 0;
let eventSchemas = 0;
globalThis.__zod_globalConfig = {
  postProcessor(schema) {
    schemas += 1;
    const definition = schema._zod.def;
    if (definition.type === 'literal' && definition.values.includes('session-resumed')) eventSchemas += 1;
  },
};
const unused = ['internal/process/report', 'worker_threads', 'internal/util/parse_args/parse_args'];
process.on('exit', () => {
  const yaml = Object.keys(require('node:module')._cache).some((file) => file.endsWith('lazy-yaml.cjs'));
  const nodeModules = unused.filter((name) => process.moduleLoadList.includes('NativeModule ' + name));
  process.stderr.write('start-up work: ' + JSON.stringify({ compiled, schemas, eventSchemas, yaml, nodeModules }) + '\\n');
});
`;

function counted(stderr) {
  const line = /start-up work: (\{.*\})/.exec(stderr)?.[1];
  if (!line) throw new Error(`the preload printed nothing:\n${stderr.slice(-800)}`);
  return JSON.parse(line);
}

/** A two-step workflow whose second step fails until `go` exists: its run, then its resume, counted. */
export async function measureStartUpWork({ cli = defaultCliPath } = {}) {
  const directory = await mkdtemp(path.join(tmpdir(), 'conclave-bench-start-up-work-'));
  try {
    const preload = path.join(directory, 'count.cjs');
    await writeFile(preload, PRELOAD);
    await writeFile(
      path.join(directory, 'flow.yaml'),
      'name: work\nsteps:\n  - shell: "true"\n  - shell: "test -f go"\n',
    );
    const env = {
      PATH: process.env.PATH ?? '',
      CONCLAVE_HOME: path.join(directory, 'home'),
      NO_COLOR: '1',
      NODE_OPTIONS: `--require ${preload}`,
    };
    const cliRun = (args) => spawnSync(process.execPath, [cli, ...args], { cwd: directory, env, encoding: 'utf8' });
    const run = cliRun(['run', 'flow.yaml', '--quiet']);
    const listed = execFileSync(process.execPath, [cli, 'sessions', 'list', '--json'], {
      env: { ...env, NODE_OPTIONS: '' },
    });
    await writeFile(path.join(directory, 'go'), '');
    const resume = cliRun(['run', '--resume', JSON.parse(listed.toString())[0].id, '--yes', '--quiet']);
    if (resume.status !== 0) throw new Error(`the resume exited ${resume.status}:\n${resume.stderr.slice(-800)}`);
    return { run: counted(run.stderr), resume: counted(resume.stderr) };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

export function formatStartUpWork(work) {
  const lines = ['start-up work of a workflow run and its resume (counted, watched, not budgeted)'];
  const rows = [
    ['functions compiled from strings', (counts) => counts.compiled],
    ['zod schemas built', (counts) => counts.schemas],
    ["  of which the journal's event schemas", (counts) => counts.eventSchemas],
    ['YAML parser loaded', (counts) => (counts.yaml ? 'yes' : 'no')],
    ['unused Node modules loaded', (counts) => counts.nodeModules.join(', ') || 'none'],
  ];
  lines.push(`  ${''.padEnd(40)} ${'run'.padStart(8)} ${'resume'.padStart(8)}`);
  for (const [what, value] of rows) {
    lines.push(`  ${what.padEnd(40)} ${String(value(work.run)).padStart(8)} ${String(value(work.resume)).padStart(8)}`);
  }
  return `${lines.join('\n')}\n`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  process.stdout.write(formatStartUpWork(await measureStartUpWork()));
}
