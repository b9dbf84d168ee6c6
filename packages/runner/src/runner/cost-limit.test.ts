import { writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { formatResumePlan } from '../resume/format-resume-plan.js';
import { runnerFixture } from '../testing/runner-fixture.js';
import { CostLimitError } from '../usage/cost-limit-error.js';
import type { RunEvent } from './run-event.js';
import type { RunnerOptions } from './runner-types.js';
import { createFakeModels, createTestStore } from './test-kit.js';

const fixture = runnerFixture({ name: 'cost' });

// gpt-4o: $2.50 / $10 per million tokens. Each fake call reports 1000 in / 500 out: $0.0075.
const CALL_USD = 0.0075;
const flow = `
name: four-calls
agents:
  writer: { prompt: "You write.", model: gpt-4o }
steps:
  - agent: writer
    input: "one"
  - agent: writer
    input: "two"
  - agent: writer
    input: "three"
  - agent: writer
    input: "four"
`;

function setup(limits: RunnerOptions['limits']) {
  const { engine } = createTestStore();
  const models = createFakeModels({ usage: { inputTokens: 1000, outputTokens: 500 } });
  const events: RunEvent[] = [];
  const runner = (overrides: RunnerOptions['limits'] = limits) =>
    fixture.runner({
      engine: engine(),
      models: models.resolve,
      onEvent: (event) => events.push(event),
      ...(overrides ? { limits: overrides } : {}),
    });
  return { engine, models, events, runner };
}

describe('cost limits', () => {
  it('stops at a checkpoint before the call that would pass the limit, and resumes with a higher one', async () => {
    await writeFile(fixture.path('flow.yaml'), flow);
    const { engine, models, events, runner } = setup({ maxCostUsd: 0.02 });
    const first = await runner().runWorkflow('flow.yaml');

    // Two calls cost $0.015; the third's estimate (about $0.005) would pass $0.02: it is not made.
    expect(models.calls).toHaveLength(2);
    expect(first.status).toBe('interrupted');
    expect(first.stopReason).toBe('cost-limit');
    expect(CostLimitError.isInstance(first.error)).toBe(true);
    const details = (first.error as CostLimitError).details;
    expect(details).toMatchObject({
      scope: 'session',
      limitUsd: 0.02,
      stepKey: expect.stringMatching(/^step\[agent-writer-[0-9a-f]{8}\]\/writer$/),
    });
    expect(details.spentUsd).toBeCloseTo(2 * CALL_USD, 10);
    expect(details.spentUsd + details.estimateUsd).toBeGreaterThan(0.02);
    expect(first.resumeCommand).toBe(`conclave run --resume ${first.sessionId}`);
    const state = await engine().readSession(first.sessionId);
    expect(state.status).toBe('interrupted');
    expect(state.statusReason).toBe('cost-limit');
    expect(state.checkpoints.at(-1)?.label).toBe('cost limit');
    expect(events.some((event) => event.type === 'notice' && event.text.includes('cost limit'))).toBe(true);

    // The plan says what was spent and what the rest may cost.
    const plan = await runner().plan(first.sessionId);
    expect(plan.cost.costUsd).toBeCloseTo(2 * CALL_USD, 10);
    expect(plan.remaining).toMatchObject({ calls: 2, atMost: false });
    expect(plan.remaining?.costUsd).toBeCloseTo(2 * CALL_USD, 10);
    expect(formatResumePlan(plan)).toContain('Still to run: 2 model calls, about $0.0150 at $0.0075 per call so far');

    // The same limit stops again before any call; a higher one finishes without repeating a call.
    const again = await runner().resume(first.sessionId);
    expect(again.stopReason).toBe('cost-limit');
    expect(models.calls).toHaveLength(2);
    const done = await runner({ maxCostUsd: 1 }).resume(first.sessionId);
    expect(done.status).toBe('completed');
    expect(models.calls.map((call) => call.lastMessage)).toEqual(['one', 'two', 'three', 'four']);
  });

  it('never makes a call whose cost, as the calls so far cost, would cross the limit', async () => {
    await writeFile(fixture.path('flow.yaml'), flow);
    // Each call costs $0.0075 although its prompt is a few words: the provider counts more tokens.
    for (const limit of [0.021, 0.029]) {
      const { models, runner } = setup({ maxCostUsd: limit });
      const result = await runner().runWorkflow('flow.yaml');
      expect(result.stopReason).toBe('cost-limit');
      expect(result.usage.costUsd ?? 0).toBeLessThanOrEqual(limit);
      expect(models.calls).toHaveLength(Math.floor(limit / CALL_USD));
      expect((result.error as CostLimitError).message).toContain('would take this session past its cost limit');
    }
  });

  it('counts the parents of a continued session against the lineage limit, not against the session limit', async () => {
    const { models, runner } = setup(undefined);
    const parent = await runner().start({
      mode: 'discussion',
      task: 'Pick a name',
      agents: [{ name: 'namer', model: 'gpt-4o' }],
      judge: { name: 'judge', model: 'gpt-4o' },
      options: { maxRounds: 1 },
    });
    expect(parent.status).toBe('completed');
    expect(models.calls).toHaveLength(2);

    // The parent cost $0.015: a lineage limit of $0.016 leaves no room for one more call.
    const child = await runner({ maxLineageCostUsd: 0.016 }).continue(parent.sessionId, 'And a slogan?');
    expect(child.stopReason).toBe('cost-limit');
    expect((child.error as CostLimitError).details).toMatchObject({ scope: 'lineage' });
    expect((child.error as CostLimitError).details.spentUsd).toBeCloseTo(2 * CALL_USD, 10);
    expect(models.calls).toHaveLength(2);
    // A session limit of the same amount lets a new child run: it has spent nothing itself.
    const again = await runner({ maxCostUsd: 0.016 }).continue(parent.sessionId, 'And a slogan?');
    expect(again.status).toBe('completed');
    expect(models.calls).toHaveLength(4);
  });

  it('warns before resuming a session whose lineage cost is above warnAboveUsd', async () => {
    await writeFile(fixture.path('flow.yaml'), flow);
    const { events, runner } = setup({ maxCostUsd: 0.02, warnAboveUsd: 0.01 });
    const first = await runner().runWorkflow('flow.yaml');
    const plan = await runner().plan(first.sessionId);
    expect(plan.costWarning).toContain('$0.0150 so far, above the $0.0100 warning threshold');
    expect(formatResumePlan(plan)).toContain('Warning: This session');
    events.length = 0;
    await runner({ maxCostUsd: 1, warnAboveUsd: 0.01 }).resume(first.sessionId);
    const noticeIndex = events.findIndex(
      (event) => event.type === 'notice' && event.text.includes('warning threshold'),
    );
    const startIndex = events.findIndex((event) => event.type === 'run-started');
    expect(noticeIndex).toBeGreaterThanOrEqual(0);
    expect(noticeIndex).toBeLessThan(startIndex);
    // Below the threshold nothing is said.
    const quiet = await runner({ maxCostUsd: 1, warnAboveUsd: 5 }).plan(first.sessionId);
    expect(quiet.costWarning).toBeNull();
  });

  it('says once that a model of unknown price cannot be counted, and runs', async () => {
    await writeFile(fixture.path('flow.yaml'), flow.replaceAll('gpt-4o', 'my-local-model'));
    const { models, events, runner } = setup({ maxCostUsd: 0.0001 });
    const result = await runner().runWorkflow('flow.yaml');
    expect(result.status).toBe('completed');
    expect(models.calls).toHaveLength(4);
    const notices = events.filter((event) => event.type === 'notice' && event.text.includes('my-local-model'));
    expect(notices).toHaveLength(1);
  });
});
