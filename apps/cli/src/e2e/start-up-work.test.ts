// End-to-end: work the built CLI does not do at start-up. zod compiles a parser of its own
// (`new Function`) for every object schema on its first parse, which a command that parses
// each schema a few times pays for without gaining anything: the CLI runs zod without it.
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

beforeAll(() => assertBuilt());

describe('conclave: work a run and a resume do not do at start-up', () => {
  let sandbox: Sandbox;
  let counting: Record<string, string>;
  beforeAll(async () => {
    sandbox = await createSandbox();
    const preload = path.join(sandbox.root, 'count-compiled.cjs');
    await writeFile(preload, COUNT_COMPILED);
    counting = { NODE_OPTIONS: `--require ${preload}` };
  });
  afterAll(() => sandbox.remove());

  it('compiles no functions from strings: zod validates without generating parsers', async () => {
    const spec = ['name: start-up', 'steps:', '  - shell: "true"', '  - shell: "test -f go"', ''].join('\n');
    await writeFile(path.join(sandbox.workspace, 'flow.yaml'), spec);
    const failed = await sandbox.run(['run', 'flow.yaml'], { env: counting });
    expect(failed.code).toBe(1);
    expect(compiledIn(failed.stderr)).toBe(0);
    const id = /conclave run --resume ([0-9a-z]{22})/.exec(failed.stderr)?.[1] ?? '';
    expect(id).not.toBe('');

    await writeFile(path.join(sandbox.workspace, 'go'), '');
    const resumed = await sandbox.run(['run', '--resume', id, '--yes'], { env: counting });
    expect(resumed.code).toBe(0);
    expect(compiledIn(resumed.stderr)).toBe(0);
  });
});
