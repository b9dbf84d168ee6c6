// Usage and cost as a run journals them: per call, priced from the table, 0 for the offline
// provider whatever model id it stands in for, null (never a guess) for an unknown model.

import { createEngine } from '@resume/core';
import { createMemoryStore, createMockModel } from '@resume/core/testing';
import { describe, expect, it } from 'vitest';
import { createRunner } from '../runner/runner.js';

async function discussionCost(provider: string, modelId: string) {
  const engine = createEngine({ store: createMemoryStore() });
  const model = createMockModel({
    provider,
    modelId,
    respond: (request) => ({
      text: request.metadata?.role === 'judge' ? 'VERDICT: CONSENSUS\nFinal solution: ship it.' : 'A view.',
      usage: { inputTokens: 1000, outputTokens: 100 },
    }),
  });
  const runner = createRunner({ engine, models: () => model, workspaceDir: process.cwd() });
  const result = await runner.start({ mode: 'discussion', task: 'Decide.', options: { forceConsensus: true } });
  const state = await engine.readSession(result.sessionId);
  return { usage: state.usage, records: state.usageRecords };
}

describe('usage and cost of a run', () => {
  it('prices each call of a known model from the table', async () => {
    const { usage, records } = await discussionCost('openai', 'gpt-4o');
    expect(records.length).toBeGreaterThan(1);
    // gpt-4o: 2.5 USD per million input tokens, 10 per million output tokens.
    for (const record of records) expect(record.costUsd).toBeCloseTo(0.0025 + 0.001, 10);
    expect(usage.costUsd).toBeCloseTo(records.length * 0.0035, 10);
  });

  it('costs nothing on the scripted provider, even when it stands in for a priced model', async () => {
    const { usage } = await discussionCost('scripted', 'gpt-4o');
    expect(usage.costUsd).toBe(0);
    expect(usage.inputTokens).toBeGreaterThan(0);
  });

  it('leaves the cost unknown for a model the table does not list', async () => {
    const { usage } = await discussionCost('openai', 'llama3.1:8b');
    expect(usage.costUsd).toBeNull();
  });
});
