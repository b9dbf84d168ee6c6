// End-to-end: workflow map steps through the built `conclave`: the dead-letter list
// (`run dlq`), retrying failed items (`run retry`), plain progress, and the map-review
// example running offline with the scripted provider.
import { cp, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from './run-cli.js';
import { sandboxFixture } from './sandbox-fixture.js';

beforeAll(() => assertBuilt());

const sandbox = sandboxFixture();

const flaky = [
  'name: flaky',
  'agents:',
  '  writer: { prompt: "You summarize." }',
  'steps:',
  '  - id: each',
  '    map:',
  '      items: [ok1, bad, ok2]',
  '      parallel: 2',
  '      do:',
  '        - shell: \'echo "$CONCLAVE_ITEM_ID" >> ran.txt; test "$CONCLAVE_ITEM_ID" != bad || test -f fixed\'',
  '          retry: { attempts: 2 }',
  '      reduce: { agent: writer, input: "{{ map.completed }} of {{ map.total }} passed" }',
  "  - shell: 'echo after >> ran.txt'",
  '',
].join('\n');

interface DeadLetterJson {
  step: string;
  id: string;
  index: number;
  item: unknown;
  failedStep: string;
  error: string;
  attempts: number;
}

async function ran(): Promise<string[]> {
  return (await readFile(path.join(sandbox.workspace, 'ran.txt'), 'utf8')).split('\n').filter(Boolean);
}

describe('conclave run: map steps from the command line', () => {
  it('a failed item ends the run with exit 1 and the way to list and retry it; dlq lists it; retry runs it alone', async () => {
    await writeFile(path.join(sandbox.workspace, 'flaky.yaml'), flaky);
    const first = await sandbox.run(['run', 'flaky.yaml']);
    expect(first.code, first.stderr).toBe(1);
    const sessionId = /Session (\S+) keeps everything/.exec(first.stderr)?.[1] ?? '';
    expect(first.stderr).toContain('1 of 3 items of map step "each" failed after their retries (bad)');
    expect(first.stderr).toContain(`conclave run dlq ${sessionId}`);
    expect(first.stderr).toContain(`conclave run retry ${sessionId} --items failed`);
    expect(first.stderr).toContain('items 2/3 done · 0 running · 1 failed');

    const listed = await sandbox.run(['run', 'dlq', sessionId]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('Map step each: 3 items: 2 completed, 1 failed');
    expect(listed.stdout).toMatch(/1 {2}bad {2}failed {2}shell-[0-9a-f]{8}, 2 attempts: Command/);
    const letters = await sandbox.json<DeadLetterJson[]>(['run', 'dlq', sessionId]);
    expect(letters).toEqual([expect.objectContaining({ step: 'each', id: 'bad', index: 1, item: 'bad', attempts: 2 })]);
    expect(letters[0]?.error).toContain('exited with code 1');

    const refused = await sandbox.run(['run', 'retry', sessionId, '--items', 'ok1', '--yes']);
    expect(refused.code).toBe(64);
    expect(refused.stderr).toContain('"ok1" of map step each is completed, not failed');

    const dry = await sandbox.run(['run', 'retry', sessionId, '--items', 'failed', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('Map step each: would retry bad');
    expect((await ran()).filter((line) => line === 'bad')).toHaveLength(2);

    await writeFile(path.join(sandbox.workspace, 'fixed'), '');
    const retried = await sandbox.run(['run', 'retry', sessionId, '--items', 'failed', '--yes']);
    expect(retried.code, retried.stderr).toBe(0);
    const lines = await ran();
    expect(lines.filter((line) => line === 'ok1')).toHaveLength(1);
    expect(lines.filter((line) => line === 'ok2')).toHaveLength(1);
    expect(lines.filter((line) => line === 'bad')).toHaveLength(3);
    expect(lines.at(-1)).toBe('after');
    const after = await sandbox.run(['run', 'dlq', sessionId]);
    expect(after.stdout).toContain('3 items: 3 completed, 0 failed');
  });

  it('lists and retries a failed glob item, whose id is a path with slashes', async () => {
    const spec = [
      'name: checks',
      'steps:',
      '  - id: check',
      '    map:',
      '      items: { glob: "src/**/*.ts" }',
      '      do:',
      '        - shell: \'echo "$CONCLAVE_ITEM_ID" >> ran.txt; grep -q good "$CONCLAVE_ITEM_ID"\'',
      '',
    ].join('\n');
    await writeFile(path.join(sandbox.workspace, 'checks.yaml'), spec);
    await mkdir(path.join(sandbox.workspace, 'src', 'sub'), { recursive: true });
    await writeFile(path.join(sandbox.workspace, 'src', 'a.ts'), 'good\n');
    await writeFile(path.join(sandbox.workspace, 'src', 'sub', 'bad.ts'), 'bad\n');
    const first = await sandbox.run(['run', 'checks.yaml']);
    expect(first.code, first.stderr).toBe(1);
    const sessionId = /Session (\S+) keeps everything/.exec(first.stderr)?.[1] ?? '';
    expect(first.stderr).toContain('(src/sub/bad.ts)');

    const listed = await sandbox.run(['run', 'dlq', sessionId]);
    expect(listed.stdout).toContain('Map step check: 2 items: 1 completed, 1 failed');
    expect(listed.stdout).toContain('src/sub/bad.ts  failed');
    const all = await sandbox.json<Array<{ items: Array<{ id: string; state: string }> }>>([
      'run',
      'dlq',
      sessionId,
      '--all',
    ]);
    expect(all[0]?.items.map((item) => `${item.id} ${item.state}`)).toEqual([
      'src/a.ts completed',
      'src/sub/bad.ts failed',
    ]);

    await writeFile(path.join(sandbox.workspace, 'src', 'sub', 'bad.ts'), 'good now\n');
    const retried = await sandbox.run(['run', 'retry', sessionId, '--items', 'src/sub/bad.ts', '--yes']);
    expect(retried.code, retried.stderr).toBe(0);
    expect(await ran()).toEqual(['src/a.ts', 'src/sub/bad.ts', 'src/sub/bad.ts']);
    const after = await sandbox.run(['run', 'dlq', sessionId]);
    expect(after.stdout).toContain('2 items: 2 completed, 0 failed');
  });

  it('says and journals that a map step had no items, and fails the run when require_items is set', async () => {
    const spec = (required: boolean) =>
      [
        'name: empty',
        'steps:',
        '  - id: each',
        '    map:',
        '      items: { glob: "src/**/*.ts" }',
        ...(required ? ['      require_items: true'] : []),
        '      do:',
        '        - shell: \'echo "$CONCLAVE_ITEM_ID"\'',
        "  - shell: 'echo after >> ran.txt'",
        '',
      ].join('\n');
    await writeFile(path.join(sandbox.workspace, 'empty.yaml'), spec(false));
    const run = await sandbox.run(['run', 'empty.yaml']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('Map step each had no items.');
    const sessionId = /Started session (\S+)/.exec(run.stderr)?.[1] ?? '';
    const shown = await sandbox.run(['sessions', 'show', sessionId]);
    expect(shown.stdout).toContain('Map step each had no items.');
    const json = await sandbox.json<{ notices: string[] }>(['sessions', 'show', sessionId]);
    expect(json.notices).toEqual(['Map step each had no items.']);

    await writeFile(path.join(sandbox.workspace, 'empty.yaml'), spec(true));
    const required = await sandbox.run(['run', 'empty.yaml']);
    expect(required.code, required.stderr).toBe(1);
    expect(required.stderr).toContain('Map step each had no items, and it has require_items: true');
    expect(await ran()).toEqual(['after']);
  });

  it('run dlq and run retry teach their use in --help', async () => {
    const dlq = await sandbox.run(['run', 'dlq', '--help']);
    expect(dlq.stdout).toContain('dead-letter list');
    expect(dlq.stdout).toContain('conclave run retry 01jf3k --items failed');
    const retry = await sandbox.run(['run', 'retry', '--help']);
    expect(retry.stdout).toContain('--items <failed|ids>');
    expect(retry.stdout).toContain('completed items never run');
    const run = await sandbox.run(['run', '--help']);
    expect(run.stdout).toMatch(/dlq \[options\] <id>/);
  });

  it('the map-review example reviews every file of its folder offline', async () => {
    const examples = fileURLToPath(new URL('../../../../examples/', import.meta.url));
    await cp(path.join(examples, 'map-review.yaml'), path.join(sandbox.workspace, 'examples', 'map-review.yaml'));
    await cp(
      path.join(examples, 'map-review', 'docs'),
      path.join(sandbox.workspace, 'examples', 'map-review', 'docs'),
      {
        recursive: true,
      },
    );
    const result = await sandbox.run(['run', 'examples/map-review.yaml']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('items 3/3 done · 0 running · 0 failed');
    const reviews = path.join(sandbox.workspace, 'examples', 'map-review', 'reviews');
    expect((await readdir(reviews)).sort()).toEqual([
      'install.md.review.md',
      'resume.md.review.md',
      'summary.md',
      'workflows.md.review.md',
    ]);
    expect(await readFile(path.join(reviews, 'install.md.review.md'), 'utf8')).toMatch(
      /^# examples\/map-review\/docs\/install\.md\n\n\S/,
    );
  });
});
