// End-to-end: work the built CLI does not do at start-up. zod compiles a parser of its own
// (`new Function`) for every object schema on its first parse, which a command that parses
// each schema a few times pays for without gaining anything: the CLI runs zod without it. And a
// resume builds none of the journal's schemas: the written-out parsers check what it reads.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, createSandbox, type Sandbox } from './run-cli.js';

/** A preload that counts functions compiled from strings (`Function` / `new Function`) and prints the count at exit. */
const COUNT_COMPILED = `const Original = Function;
let compiled = 0;
globalThis.Function = new Proxy(Original, {
  construct(target, args, newTarget) { compiled += 1; return Reflect.construct(target, args, newTarget); },
  apply(target, self, args) { compiled += 1; return Reflect.apply(target, self, args); },
});
process.on('exit', () => process.stderr.write('functions compiled from strings: ' + compiled + '\\n'));
`;

const compiledIn = (stderr: string) => Number(/functions compiled from strings: (\d+)/.exec(stderr)?.[1] ?? Number.NaN);

/**
 * A preload that counts the zod schemas built (zod calls its global config's post-processor for
 * every schema instance), those of the journal's events (the literal of one event type), those
 * of the workflow spec (its top-level object, the one with `steps` and `outputs`) and those of
 * the command line's options (the global options, a run's flags, a workflow's options), and
 * prints them at exit.
 */
const COUNT_SCHEMAS = `let built = 0;
let events = 0;
let specs = 0;
let options = 0;
const optionShapes = [['quiet', 'debug'], ['onUncertain', 'checkpointInterval'], ['saveSession', 'var']];
globalThis.__zod_globalConfig = {
  postProcessor(schema) {
    built += 1;
    const definition = schema._zod.def;
    if (definition.type === 'literal' && definition.values.includes('session-resumed')) events += 1;
    if (definition.type !== 'object') return;
    if ('steps' in definition.shape && 'outputs' in definition.shape) specs += 1;
    if (optionShapes.some((keys) => keys.every((key) => key in definition.shape))) options += 1;
  },
};
process.on('exit', () => {
  const yaml = Object.keys(require('node:module')._cache).some((file) => file.endsWith('lazy-yaml.cjs'));
  process.stderr.write('schemas built: ' + built + ', event schemas: ' + events + ', workflow spec schemas: ' + specs + ', option schemas: ' + options + ', YAML parser loaded: ' + yaml + '\\n');
});
`;

const schemasIn = (stderr: string) => {
  const counted =
    /schemas built: (\d+), event schemas: (\d+), workflow spec schemas: (\d+), option schemas: (\d+), YAML parser loaded: (true|false)/.exec(
      stderr,
    );
  return {
    built: Number(counted?.[1] ?? Number.NaN),
    events: Number(counted?.[2] ?? Number.NaN),
    specs: Number(counted?.[3] ?? Number.NaN),
    options: Number(counted?.[4] ?? Number.NaN),
    yaml: counted?.[5] === undefined ? null : counted[5] === 'true',
  };
};

/** A preload that prints, at exit, which of Node's modules that no command uses were loaded. */
const UNUSED_NODE_MODULES = ['internal/process/report', 'worker_threads', 'internal/util/parse_args/parse_args'];
const COUNT_NODE_MODULES = `const unused = ${JSON.stringify(UNUSED_NODE_MODULES)};
process.on('exit', () => {
  const loaded = unused.filter((name) => process.moduleLoadList.includes('NativeModule ' + name));
  process.stderr.write('unused Node modules loaded: [' + loaded.join(', ') + ']\\n');
});
`;

const unusedModulesIn = (stderr: string) => /unused Node modules loaded: \[(.*)\]/.exec(stderr)?.[1] ?? null;

/**
 * A two-step workflow whose second step fails until its marker file exists: its run, then (the
 * marker written) its resume, both with `env`. The run exits 1 and names its resume; the resume exits 0.
 */
async function runThenResume(sandbox: Sandbox, name: string, env: Record<string, string>) {
  const spec = [`name: ${name}`, 'steps:', '  - shell: "true"', `  - shell: "test -f ${name}.go"`, ''].join('\n');
  await writeFile(path.join(sandbox.workspace, `${name}.yaml`), spec);
  const failed = await sandbox.run(['run', `${name}.yaml`], { env });
  expect(failed.code).toBe(1);
  const id = /conclave run --resume ([0-9a-z]{22})/.exec(failed.stderr)?.[1] ?? '';
  expect(id).not.toBe('');
  await writeFile(path.join(sandbox.workspace, `${name}.go`), '');
  const resumed = await sandbox.run(['run', '--resume', id, '--yes'], { env });
  expect(resumed.code).toBe(0);
  return { failed, resumed };
}

beforeAll(() => assertBuilt());

describe('conclave: work a run and a resume do not do at start-up', () => {
  let sandbox: Sandbox;
  let counting: Record<string, string>;
  let countingSchemas: Record<string, string>;
  let countingModules: Record<string, string>;
  beforeAll(async () => {
    sandbox = await createSandbox();
    const preload = path.join(sandbox.root, 'count-compiled.cjs');
    await writeFile(preload, COUNT_COMPILED);
    counting = { NODE_OPTIONS: `--require ${preload}` };
    const schemaPreload = path.join(sandbox.root, 'count-schemas.cjs');
    await writeFile(schemaPreload, COUNT_SCHEMAS);
    countingSchemas = { NODE_OPTIONS: `--require ${schemaPreload}` };
    const modulesPreload = path.join(sandbox.root, 'count-modules.cjs');
    await writeFile(modulesPreload, COUNT_NODE_MODULES);
    countingModules = { NODE_OPTIONS: `--require ${modulesPreload}` };
  });
  afterAll(() => sandbox.remove());

  it('compiles no functions from strings: zod validates without generating parsers', async () => {
    const { failed, resumed } = await runThenResume(sandbox, 'start-up', counting);
    expect(compiledIn(failed.stderr)).toBe(0);
    expect(compiledIn(resumed.stderr)).toBe(0);
  });

  it("builds none of the journal's event schemas on a resume (events, records and files are checked by their written-out parsers) and never loads the YAML parser", async () => {
    const { failed, resumed } = await runThenResume(sandbox, 'start-up-schemas', countingSchemas);
    // A run parses its spec's YAML: the parser's file is loaded then...
    expect(schemasIn(failed.stderr).yaml).toBe(true);
    const counted = schemasIn(resumed.stderr);
    // The preload saw zod at work (the resume validates its options and the spec's data)...
    expect(counted.built).toBeGreaterThan(0);
    // ...but no event schema was built: reading, appending and the session's files never needed one.
    expect(counted.events).toBe(0);
    // ...and a resume validates the recorded data instead: it never reads the parser.
    expect(counted.yaml).toBe(false);
  });

  it("builds none of the workflow spec's schemas on a resume: the run journaled its spec as validated under these rules", async () => {
    const { failed, resumed } = await runThenResume(sandbox, 'start-up-spec', countingSchemas);
    // A run validates its spec in full: it builds the spec's schemas...
    expect(schemasIn(failed.stderr).specs).toBe(1);
    // ...and its resume, by the same build, takes the spec as the run validated it.
    const counted = schemasIn(resumed.stderr);
    expect(counted.built).toBeGreaterThan(0);
    expect(counted.specs).toBe(0);
  });

  it("builds none of the command line's option schemas on a run or a resume whose options are plain, and still names a bad value", async () => {
    const { failed, resumed } = await runThenResume(sandbox, 'start-up-options', countingSchemas);
    expect(schemasIn(failed.stderr).options).toBe(0);
    const counted = schemasIn(resumed.stderr);
    expect(counted.built).toBeGreaterThan(0);
    expect(counted.options).toBe(0);
    // A value only the schema decides on builds it (so the count sees these schemas), and the
    // error names the flag as before.
    const bad = await sandbox.run(['run', '--resume', 'x', '--max-cost', '1', '--checkpoint-interval', '0'], {
      env: countingSchemas,
    });
    expect(bad.code).toBe(64);
    expect(bad.stderr).toContain('--checkpoint-interval must be at least 1');
    expect(schemasIn(bad.stderr).options).toBeGreaterThan(0);
  });

  it("loads none of Node's modules a command never uses (the diagnostic report, worker threads, the argument parser) on a run or a resume", async () => {
    // Importing `node:process` or `node:util` as ES modules would load them: Node reads every
    // export of a built-in it serves as an ES module, lazy ones included.
    const { failed, resumed } = await runThenResume(sandbox, 'start-up-modules', countingModules);
    expect(unusedModulesIn(failed.stderr)).toBe('');
    expect(unusedModulesIn(resumed.stderr)).toBe('');
  });
});
