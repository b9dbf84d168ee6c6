// Workflow map steps: items from every source, each item a durable unit run up to
// `parallel` at once, per-item retries and the dead-letter list, the item environment,
// and a resume that runs only the items that did not complete.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createEngine } from '@resume/core';
import { ConfigError, type SessionStore, UsageError } from '@resume/core/spec';
import { describe, expect, it } from 'vitest';
import { MapItemsFailedError } from '../modes/map-items-failed-error.js';
import { formatResumePlan } from '../resume/format-resume-plan.js';
import { runnerFixture } from '../testing/runner-fixture.js';
import type { RunEvent } from './run-event.js';
import { createRunner } from './runner.js';
import type { RunnerOptions } from './runner-types.js';
import {
  createFakeModels,
  createRunnerInterruptedAt,
  createTestStore,
  instantSleep,
  transcriptOf,
} from './test-kit.js';

const fixture = runnerFixture({ name: 'map' });

async function lines(file: string): Promise<string[]> {
  const text = await readFile(fixture.path(file), 'utf8').catch(() => '');
  return text.split('\n').filter((line) => line !== '');
}

function count(all: string[], value: string): number {
  return all.filter((line) => line === value).length;
}

function setup(extra: Partial<RunnerOptions> = {}) {
  const { store, engine } = createTestStore();
  const models = createFakeModels();
  const options = (): RunnerOptions => ({
    engine: engine(),
    models: models.resolve,
    workspaceDir: fixture.workspace,
    sleep: instantSleep,
    ...extra,
  });
  return { store, engine, models, options, runner: () => createRunner(options()) };
}

async function spec(text: string): Promise<void> {
  await writeFile(fixture.path('flow.yaml'), text);
}

describe('map steps: where items come from', () => {
  it('runs do: once per item of a list, with {{ item }}, {{ item.field }}, {{ item_id }}, {{ item_index }}', async () => {
    await spec(`
name: literal
agents:
  reviewer: { prompt: "You review." }
steps:
  - id: each
    map:
      items: [alpha, { id: b2, name: beta }]
      do:
        - shell: 'echo "$CONCLAVE_ITEM_INDEX|$CONCLAVE_ITEM_ID|$CONCLAVE_STEP|$CONCLAVE_ITEM" >> env.txt'
        - agent: reviewer
          input: "{{ item_index }} {{ item_id }} {{ item }}"
`);
    const { runner, engine } = setup();
    const result = await runner().runWorkflow('flow.yaml');
    expect(result.status).toBe('completed');
    expect(await lines('env.txt')).toEqual(['0|alpha|each/1|alpha', '1|b2|each/1|{"id":"b2","name":"beta"}']);
    const inputs = (await engine().readSession(result.sessionId)).messages
      .filter((message) => message.speaker === 'workflow')
      .map((message) => message.content);
    expect(inputs).toEqual(['0 alpha alpha', '1 b2 {"id":"b2","name":"beta"}']);
  });

  it('leaves an item too large for the environment out of CONCLAVE_ITEM, and still runs it', async () => {
    await writeFile(fixture.path('big.json'), JSON.stringify([{ id: 'big', text: 'x'.repeat(200_000) }]));
    await spec(`
name: big
steps:
  - map:
      items: { file: big.json }
      do:
        - shell: 'echo "$CONCLAVE_ITEM_ID:\${#CONCLAVE_ITEM}" >> seen.txt'
`);
    const result = await setup().runner().runWorkflow('flow.yaml');
    expect(result.status).toBe('completed');
    expect(await lines('seen.txt')).toEqual(['big:0']);
  });

  it('reads items from a JSON file and from a JSON lines file, with {{ item.field }}', async () => {
    await writeFile(
      fixture.path('items.json'),
      JSON.stringify([
        { id: 'x', n: 1 },
        { id: 'y', n: 2 },
      ]),
    );
    await writeFile(fixture.path('items.jsonl'), '{"id":"p","n":3}\n\n{"id":"q","n":4}\n');
    await spec(`
name: files
steps:
  - map:
      items: { file: items.json }
      do:
        - shell: 'echo "{{ item_id }}={{ item.n }}" >> seen.txt'
  - map:
      items: { file: items.jsonl }
      do:
        - shell: 'echo "{{ item_id }}={{ item.n }}" >> seen.txt'
`);
    const result = await setup().runner().runWorkflow('flow.yaml');
    expect(result.status).toBe('completed');
    expect(await lines('seen.txt')).toEqual(['x=1', 'y=2', 'p=3', 'q=4']);
  });

  it('runs over the files a glob matches, sorted, each item with its path and name', async () => {
    await mkdir(fixture.path('docs', 'sub'), { recursive: true });
    await writeFile(fixture.path('docs', 'b.md'), 'b');
    await writeFile(fixture.path('docs', 'a.md'), 'a');
    await writeFile(fixture.path('docs', 'skip.txt'), 'no');
    await spec(`
name: glob
steps:
  - map:
      items: { glob: "docs/*.md" }
      do:
        - shell: 'echo "{{ item_id }} {{ item.path }} {{ item.name }}" >> seen.txt; echo made > docs/new.md'
`);
    const result = await setup().runner().runWorkflow('flow.yaml');
    expect(result.status).toBe('completed');
    // The list is taken once: the file the items create is not an item.
    expect(await lines('seen.txt')).toEqual(['docs/a.md docs/a.md a.md', 'docs/b.md docs/b.md b.md']);
  });

  it("takes items from an earlier step's JSON output ({{ steps.find.output }})", async () => {
    await spec(`
name: found
steps:
  - id: find
    shell: 'echo "[\\"one\\", {\\"id\\": \\"two\\", \\"size\\": 2}]"'
  - map:
      items: "{{ steps.find.output }}"
      do:
        - shell: 'echo "$CONCLAVE_ITEM_ID" >> seen.txt'
`);
    const result = await setup().runner().runWorkflow('flow.yaml');
    expect(result.status).toBe('completed');
    expect(await lines('seen.txt')).toEqual(['one', 'two']);
  });

  it('gives duplicate items ids of their own, so each runs once', async () => {
    await spec(`
name: duplicates
steps:
  - map:
      items: [a, a, { k: 1 }, { k: 1 }]
      do:
        - shell: 'echo "$CONCLAVE_ITEM_ID" >> seen.txt'
`);
    const result = await setup().runner().runWorkflow('flow.yaml');
    expect(result.status).toBe('completed');
    const seen = await lines('seen.txt');
    expect(seen.slice(0, 2)).toEqual(['a', 'a~2']);
    expect(seen[2]).toMatch(/^item-[0-9a-f]{10}$/);
    expect(seen[3]).toBe(`${seen[2]}~2`);
  });
});

describe('map steps: per-item artifacts', () => {
  it("writes each item's files once it passed; a path leaving the workspace sends the item to the dead-letter list", async () => {
    await spec(`
name: artifacts
agents:
  reviewer: { prompt: "You review." }
steps:
  - id: each
    map:
      items: [{ id: a, file: "out/a.md" }, { id: b, file: "../escape.md" }]
      do:
        - agent: reviewer
          input: "Review {{ item_id }}"
      artifacts:
        - { path: "{{ item.file }}", from: "{{ item_id }}: {{ last_response }}" }
`);
    const { runner } = setup();
    const result = await runner().runWorkflow('flow.yaml');
    expect(result.status).toBe('failed');
    expect(await readFile(fixture.path('out', 'a.md'), 'utf8')).toMatch(/^a: reviewer says /);
    const [map] = await runner().mapItems(result.sessionId);
    expect(map?.items.map((item) => [item.id, item.state])).toEqual([
      ['a', 'completed'],
      ['b', 'failed'],
    ]);
    expect(map?.items[1]?.deadLetter).toMatchObject({ step: 'artifacts' });
  });
});

describe('map steps: parallel', () => {
  it('runs up to parallel items at once', async () => {
    // Each item waits until all three are running: only three at once can finish.
    const barrier =
      'touch "running-$CONCLAVE_ITEM_ID"; n=0; while [ "$(ls running-* | wc -l)" -lt 3 ]; do n=$((n+1)); [ $n -gt 500 ] && exit 1; sleep 0.01; done';
    await spec(`
name: together
steps:
  - map:
      items: [a, b, c]
      parallel: 3
      do:
        - shell: '${barrier}'
`);
    const events: RunEvent[] = [];
    const result = await setup({ onEvent: (event) => events.push(event) })
      .runner()
      .runWorkflow('flow.yaml');
    expect(result.status).toBe('completed');
    const running = events.flatMap((event) => (event.type === 'map-progress' ? [event.running] : []));
    expect(Math.max(...running)).toBe(3);
  });

  it('runs one item at a time in list order by default', async () => {
    await spec(`
name: one-by-one
steps:
  - map:
      items: [c, a, b]
      do:
        - shell: 'mkdir lock || exit 1; echo "$CONCLAVE_ITEM_ID" >> order.txt; sleep 0.02; rmdir lock'
`);
    const result = await setup().runner().runWorkflow('flow.yaml');
    expect(result.status).toBe('completed');
    expect(await lines('order.txt')).toEqual(['c', 'a', 'b']);
  });

  it('refuses parallel above the configured limit before a session exists', async () => {
    await spec(`
name: too-wide
steps:
  - map:
      items: [a]
      parallel: 8
      do:
        - shell: 'true'
`);
    const { runner, engine } = setup({ maxParallel: 4 });
    const error = await runner()
      .runWorkflow('flow.yaml')
      .catch((caught: unknown) => caught);
    expect(ConfigError.isInstance(error)).toBe(true);
    expect((error as ConfigError).message).toContain('steps[0].map.parallel');
    expect((error as ConfigError).hint).toContain('limits.maxParallel');
    expect(await engine().listSessions()).toEqual([]);
  });

  it('gives the same transcript whatever the number of items at once', async () => {
    const flow = (parallel: number) => `
name: reviews
agents:
  reviewer: { prompt: "You review." }
  writer: { prompt: "You summarize." }
steps:
  - map:
      items: [a, b, c, d, e]
      parallel: ${parallel}
      do:
        - agent: reviewer
          input: "Review {{ item }}"
        - agent: reviewer
          input: "Shorten: {{ last_response }}"
      reduce: { agent: writer, input: "Summarize {{ map.results }}" }
`;
    const transcripts = [];
    for (const parallel of [1, 4]) {
      await spec(flow(parallel));
      const { runner, engine } = setup();
      const result = await runner().runWorkflow('flow.yaml');
      expect(result.status).toBe('completed');
      transcripts.push(transcriptOf((await engine().readSession(result.sessionId)).messages));
    }
    expect(transcripts[1]).toEqual(transcripts[0]);
    expect(transcripts[0]?.filter((message) => message.speaker === 'reviewer')).toHaveLength(10);
  });
});

const flaky = `
name: flaky
agents:
  fixer: { prompt: "You fix things." }
  writer: { prompt: "You summarize." }
steps:
  - id: each
    map:
      items: [ok1, bad, ok2]
      parallel: 2
      do:
        - shell: 'echo "$CONCLAVE_ITEM_ID" >> ran.txt; test "$CONCLAVE_ITEM_ID" != bad || test -f fixed'
          retry: { attempts: 2 }
          on_failure: { agent: fixer, input: "Fix {{ item }}: {{ error }}" }
      reduce: { agent: writer, input: "{{ map.completed }} of {{ map.total }} passed, {{ map.failed }} failed" }
  - shell: 'echo after >> ran.txt'
`;

describe('map steps: retries and the dead-letter list', () => {
  it('retries an item, then lists it as failed without failing the items that passed', async () => {
    await spec(flaky);
    const { runner, models, engine } = setup();
    const result = await runner().runWorkflow('flow.yaml');
    expect(result.status).toBe('failed');
    expect(MapItemsFailedError.isInstance(result.error)).toBe(true);
    expect(result.error?.message).toContain('1 of 3 items of map step "each" failed');
    const ran = await lines('ran.txt');
    expect([count(ran, 'ok1'), count(ran, 'bad'), count(ran, 'ok2'), count(ran, 'after')]).toEqual([1, 2, 1, 0]);
    // The fixer ran between the attempts, with the item and its error.
    const fixes = models.calls.filter((call) => call.agent === 'fixer');
    expect(fixes).toHaveLength(1);
    expect(fixes[0]?.lastMessage).toContain('Fix bad: Command');
    // The reduce step saw every result.
    const summary = (await engine().readSession(result.sessionId)).messages.find(
      (message) => message.speaker === 'workflow' && message.content.includes('passed'),
    );
    expect(summary?.content).toBe('2 of 3 passed, 1 failed');
    const [map] = await runner().mapItems(result.sessionId);
    expect(map?.counts).toEqual({ completed: 2, failed: 1, started: 0, pending: 0 });
    const dead = map?.items.find((item) => item.state === 'failed');
    expect(dead?.deadLetter).toMatchObject({
      id: 'bad',
      index: 1,
      step: expect.stringMatching(/^shell-/),
      attempts: 2,
    });
  });

  it('a plain resume leaves dead letters alone and says how to retry them', async () => {
    await spec(flaky);
    const { runner } = setup();
    const first = await runner().runWorkflow('flow.yaml');
    const plan = await runner().plan(first.sessionId);
    expect(plan.maps[0]).toMatchObject({ done: ['ok1', 'ok2'], failed: ['bad'], unfinished: [], pending: [] });
    expect(formatResumePlan(plan)).toContain(
      `failed, left in the dead-letter list (conclave run retry ${first.sessionId} --items failed): 1 (bad)`,
    );
    await writeFile(fixture.path('fixed'), '');
    const again = await runner().resume(first.sessionId);
    expect(again.status).toBe('failed');
    expect(MapItemsFailedError.isInstance(again.error)).toBe(true);
    expect((again.error as MapItemsFailedError).nextStep).toEqual({
      kind: 'retry-failed-items',
      sessionId: first.sessionId,
    });
    expect(count(await lines('ran.txt'), 'bad')).toBe(2);
  });

  it('retry --items failed runs only the failed items again, then the rest of the workflow', async () => {
    await spec(flaky);
    const { runner, engine } = setup();
    const first = await runner().runWorkflow('flow.yaml');
    await writeFile(fixture.path('fixed'), '');
    const retried = await runner().retryItems(first.sessionId, 'failed');
    expect(retried.status).toBe('completed');
    const ran = await lines('ran.txt');
    expect([count(ran, 'ok1'), count(ran, 'bad'), count(ran, 'ok2'), count(ran, 'after')]).toEqual([1, 3, 1, 1]);
    const [map] = await runner().mapItems(first.sessionId);
    expect(map?.counts).toEqual({ completed: 3, failed: 0, started: 0, pending: 0 });
    // The reduce ran again: what it sees changed.
    const summaries = (await engine().readSession(first.sessionId)).messages
      .filter((message) => message.speaker === 'workflow' && message.content.includes('passed'))
      .map((message) => message.content);
    expect(summaries).toEqual(['2 of 3 passed, 1 failed', '3 of 3 passed, 0 failed']);
  });

  it('retries the items named, and refuses one that completed', async () => {
    await spec(flaky);
    const { runner } = setup();
    const first = await runner().runWorkflow('flow.yaml');
    const refused = await runner()
      .retryItems(first.sessionId, ['ok1'])
      .catch((caught: unknown) => caught);
    expect(UsageError.isInstance(refused)).toBe(true);
    expect((refused as Error).message).toContain('"ok1"');
    await writeFile(fixture.path('fixed'), '');
    const retried = await runner().retryItems(first.sessionId, ['bad']);
    expect(retried.status).toBe('completed');
  });
});

describe('map steps: item ids with slashes', () => {
  const checks = `
name: checks
steps:
  - id: check
    map:
      items: [src, src/a.ts, src/sub/bad.ts]
      do:
        - shell: 'echo "$CONCLAVE_ITEM_ID" >> ran.txt; test "$CONCLAVE_ITEM_ID" != src/sub/bad.ts || test -f fixed'
`;

  it('reads and retries items of a session that journaled their ids with the slashes as they are', async () => {
    await spec(checks);
    const { store, options } = setup();
    // How releases before the ids were escaped wrote the item keys: \`item/src/sub/bad.ts/...\`.
    const unescaped = <T>(value: T): T => JSON.parse(JSON.stringify(value).replaceAll('%2F', '/')) as T;
    const olderStore: SessionStore = {
      ...store,
      append: (sessionId, batch) => store.append(sessionId, unescaped(batch)),
      putSnapshot: (sessionId, snapshot) => store.putSnapshot(sessionId, unescaped(snapshot)),
    };
    const first = await createRunner({ ...options(), engine: createEngine({ store: olderStore }) }).runWorkflow(
      'flow.yaml',
    );
    expect(first.status).toBe('failed');
    const keys = [];
    for await (const event of store.read(first.sessionId)) if ('key' in event) keys.push(event.key);
    expect(keys).toContain('step[check]/item/src/sub/bad.ts/dead-letter-1');

    const runner = createRunner(options());
    const [map] = await runner.mapItems(first.sessionId);
    expect(map?.items.map((item) => `${item.id} ${item.state}`)).toEqual([
      'src completed',
      'src/a.ts completed',
      'src/sub/bad.ts failed',
    ]);
    await writeFile(fixture.path('fixed'), '');
    const retried = await runner.retryItems(first.sessionId, ['src/sub/bad.ts']);
    expect(retried.status).toBe('completed');
    expect(await lines('ran.txt')).toEqual(['src', 'src/a.ts', 'src/sub/bad.ts', 'src/sub/bad.ts']);
    const [after] = await createRunner(options()).mapItems(first.sessionId);
    expect(after?.counts).toEqual({ completed: 3, failed: 0, started: 0, pending: 0 });
  });

  it('journals an id with slashes as one key segment, and keeps the id as it is', async () => {
    await spec(checks);
    const { store, runner } = setup();
    const first = await runner().runWorkflow('flow.yaml');
    const keys = [];
    for await (const event of store.read(first.sessionId)) if ('key' in event) keys.push(event.key);
    expect(keys).toContain('step[check]/item/src%2Fsub%2Fbad.ts/dead-letter-1');
    const [map] = await runner().mapItems(first.sessionId);
    expect(map?.items.find((item) => item.state === 'failed')?.deadLetter).toMatchObject({ id: 'src/sub/bad.ts' });
  });
});

describe('map steps: resume', () => {
  const reviews = `
name: reviews
agents:
  reviewer: { prompt: "You review." }
  writer: { prompt: "You summarize." }
steps:
  - id: each
    map:
      items: [a, b, c, d, e, f]
      parallel: 2
      do:
        - shell: 'echo "$CONCLAVE_ITEM_ID" >> effects.txt'
        - agent: reviewer
          input: "Review {{ item }}"
      reduce: { agent: writer, input: "Summarize {{ map.results }}" }
`;

  it('runs only the items that did not complete; the transcript equals an uninterrupted run', async () => {
    await spec(reviews);
    const uninterrupted = setup();
    const reference = await uninterrupted.runner().runWorkflow('flow.yaml');
    const expected = transcriptOf((await uninterrupted.engine().readSession(reference.sessionId)).messages);
    await rm(fixture.path('effects.txt'));

    const { options, engine, models, runner } = setup({ decisions: { uncertainStep: () => 'rerun' } });
    // Interrupted once three items are done (which three depends on timing with two at once).
    let done = 0;
    const third = (checkpoint: { label: string | null }) => {
      if (checkpoint.label?.startsWith('map each: item') === true) done += 1;
      return done === 3;
    };
    const interrupted = await createRunnerInterruptedAt(third, options()).runWorkflow('flow.yaml');
    expect(interrupted.status).toBe('interrupted');
    const before = await runner().mapItems(interrupted.sessionId);
    const completedBefore = before[0]?.items.filter((item) => item.state === 'completed').map((item) => item.id) ?? [];
    expect(completedBefore.length).toBeGreaterThanOrEqual(3);
    expect(completedBefore.length).toBeLessThan(6);
    const callsBefore = models.calls.length;
    // The plan before resuming (and --dry-run) lists the items by state.
    const plan = await runner().plan(interrupted.sessionId);
    expect(plan.maps).toHaveLength(1);
    expect(plan.maps[0]?.total).toBe(6);
    expect(plan.maps[0]?.done).toEqual(completedBefore);
    expect([...(plan.maps[0]?.unfinished ?? []), ...(plan.maps[0]?.pending ?? [])].sort()).toEqual(
      ['a', 'b', 'c', 'd', 'e', 'f'].filter((id) => !completedBefore.includes(id)),
    );
    const text = formatResumePlan(plan);
    expect(text).toContain('Map step each: 6 items');
    expect(text).toContain(`done, will be skipped: ${completedBefore.length} (${completedBefore.join(', ')})`);

    const resumed = await runner().resume(interrupted.sessionId);
    expect(resumed.status).toBe('completed');
    const effects = await lines('effects.txt');
    for (const id of ['a', 'b', 'c', 'd', 'e', 'f']) {
      // A completed item's side effect never happens again.
      if (completedBefore.includes(id)) expect(count(effects, id)).toBe(1);
      else expect(count(effects, id)).toBeGreaterThanOrEqual(1);
    }
    // Completed items' reviews were not asked again.
    const reviewsAfter = models.calls.slice(callsBefore).filter((call) => call.agent === 'reviewer');
    for (const id of completedBefore)
      expect(reviewsAfter.map((call) => call.lastMessage)).not.toContain(`Review ${id}`);
    expect(transcriptOf((await engine().readSession(interrupted.sessionId)).messages)).toEqual(expected);
  });
});
