// Queued map items without a queue server: the run of a queued workflow puts at most `parallel`
// items out as child sessions and stops; each child runs its item (as a worker would) and the run,
// run again, records the children's outcomes and goes on. Items that fail become dead letters.
import { readFile, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { createRunner } from '../runner/runner.js';
import type { QueuedMapItem, RunnerOptions } from '../runner/runner-types.js';
import { createFakeModels, createTestStore } from '../runner/test-kit.js';
import { runnerFixture } from '../testing/runner-fixture.js';
import { queuedItemsEnded, queuedMapItem, runMapItem } from './map-item-job.js';

const fixture = runnerFixture({ name: 'queued-map' });

function setup() {
  const { engine } = createTestStore();
  const models = createFakeModels();
  const queued: QueuedMapItem[] = [];
  // The same options for runs and items, as a worker has.
  const options = (): Omit<RunnerOptions, 'engine'> => ({
    models: models.resolve,
    workspaceDir: fixture.workspace,
    mapItems: {
      enqueue: async (item) => {
        queued.push(item);
      },
    },
  });
  const shared = engine();
  const parent = () => createRunner({ ...options(), engine: shared });
  return { engine: shared, queued, options, parent };
}

const flow = `
name: queued
steps:
  - id: each
    map:
      items: [a, b, c, d, e]
      parallel: 2
      do:
        - shell: 'echo "$CONCLAVE_ITEM_ID" >> ran.txt; test "$CONCLAVE_ITEM_ID" != d && echo "done {{ item }}"'
      reduce:
        shell: 'echo "{{ map.completed }} of {{ map.total }}"'
`;

describe('queued map items', () => {
  it('puts at most parallel items out, each a child session of the run, and records their outcomes', async () => {
    await writeFile(fixture.path('flow.yaml'), flow);
    const { engine, queued, options, parent } = setup();
    let result = await parent().runWorkflow('flow.yaml');
    const parentId = result.sessionId;
    const woken: string[] = [];
    const handedOut: QueuedMapItem[] = [];
    let rounds = 0;
    while (result.status === 'interrupted' && result.stopReason === 'map-items-queued') {
      // Never more than `parallel` items out at once.
      expect(queued.length).toBeGreaterThan(0);
      expect(queued.length).toBeLessThanOrEqual(2);
      const state = await engine.readSession(parentId);
      expect(state.status).toBe('interrupted');
      expect(state.statusReason).toContain('queued items of map step "each"');
      for (const item of queued.splice(0)) {
        await runMapItem(engine, options(), queuedMapItem(item), async (runId) => woken.push(runId));
        handedOut.push(item);
      }
      expect(await queuedItemsEnded(engine, parentId)).toBe(true);
      result = await parent().resume(parentId);
      rounds += 1;
      expect(rounds).toBeLessThan(10);
    }
    // Item d's command fails: it is a dead letter of the run, the others completed once each.
    expect([rounds, result.status, result.error?.message]).toEqual([3, 'failed', expect.anything()]);
    expect(result.error?.message).toContain('1 of 5 items of map step "each" failed');
    const ran = (await readFile(fixture.path('ran.txt'), 'utf8')).trim().split('\n').sort();
    expect(ran).toEqual(['a', 'b', 'c', 'd', 'e']);

    const children = (await engine.listSessions()).filter((summary) => summary.id !== parentId);
    expect(children).toHaveLength(5);
    for (const child of children) {
      const state = await engine.readSession(child.id);
      expect(state.header.parentId).toBe(parentId);
    }
    const state = await engine.readSession(parentId);
    const outputs = state.steps
      .filter((step) => step.key.endsWith('/queued-result-1'))
      .map((step) => (step.output as { output: string }).output.trim())
      .sort();
    expect(outputs).toEqual(['done a', 'done b', 'done c', 'done e']);
    const letters = state.steps.filter((step) => step.key.includes('/dead-letter-'));
    expect(letters.map((step) => (step.output as { id: string }).id)).toEqual(['d']);
    // Each ended child woke its run.
    expect(woken).toEqual(Array.from({ length: 5 }, () => parentId));
  });

  it('an item handed out again after its child ended wakes its run without running again', async () => {
    await writeFile(fixture.path('flow.yaml'), flow);
    const { engine, queued, options, parent } = setup();
    const { sessionId } = await parent().runWorkflow('flow.yaml');
    const [first] = queued;
    if (!first) throw new Error('no item was put on the queue');
    await runMapItem(engine, options(), queuedMapItem(first));
    // Its worker died before the wake-up: the queue hands the item out again.
    const woken: string[] = [];
    const again = await runMapItem(engine, options(), queuedMapItem(first), async (runId) => woken.push(runId));
    expect(again.status).toBe('completed');
    expect(woken).toEqual([sessionId]);
    expect((await readFile(fixture.path('ran.txt'), 'utf8')).trim().split('\n')).toEqual([first.itemId]);
  });

  it("an item whose worker died before the child's first write runs on the next worker", async () => {
    await writeFile(fixture.path('flow.yaml'), flow);
    const { engine, queued, options, parent } = setup();
    await parent().runWorkflow('flow.yaml');
    const [first] = queued;
    if (!first) throw new Error('no item was put on the queue');
    // The worker dies at the child's first write: the store holds its header and nothing else.
    const append = engine.store.append;
    engine.store.append = async () => {
      throw new Error('killed');
    };
    await expect(runMapItem(engine, options(), queuedMapItem(first))).rejects.toThrow('killed');
    engine.store.append = append;
    expect(await engine.store.getSummary(first.id)).toBeNull();

    const again = await runMapItem(engine, options(), queuedMapItem(first));
    expect([again.sessionId, again.status]).toEqual([first.id, 'completed']);
    expect((await readFile(fixture.path('ran.txt'), 'utf8')).trim().split('\n')).toEqual([first.itemId]);
    const state = await engine.readSession(first.id);
    expect([state.status, state.header.parentId, state.header]).toEqual([
      'completed',
      first.parentId,
      await engine.store.getHeader(first.id),
    ]);
  });
});
