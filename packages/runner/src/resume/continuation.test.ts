import { createEngine } from '@resume/core';
import type { Message } from '@resume/core/spec';
import { createMemoryStore } from '@resume/core/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { journal } from './__fixtures__/journal-builder.js';
import { createExtractiveCompaction, estimateMessageTokens, SUMMARY_TAG } from './compaction.js';
import {
  buildContinuationMessages,
  buildResumeMessage,
  CONTINUATION_TAG,
  FOLLOW_UP_TAG,
  RESUME_MESSAGE_TAG,
} from './continuation.js';
import { lineageOf, lineageUsage } from './lineage.js';

const agents = ['architect', 'critic', 'pragmatist'];

function discussion(rounds: number) {
  const builder = journal();
  builder.message('user', 'Evaluate my idea: a shared memory for AI agents.');
  for (let round = 1; round <= rounds; round += 1) {
    for (const agent of agents) {
      builder.message(
        'assistant',
        `${agent} in round ${round} says the idea needs work on point ${round}. ${'Details follow at length. '.repeat(20)}`,
        { speaker: agent, round },
      );
    }
  }
  builder.message('assistant', 'VERDICT: CONSENSUS\nBuild it as a small library first.', {
    speaker: 'judge',
    tags: ['judge'],
  });
  builder.add({ type: 'status-changed', status: 'completed' });
  return builder.state();
}

const strategy = createExtractiveCompaction();
const total = (messages: readonly Message[]) =>
  messages.reduce((sum, message) => sum + estimateMessageTokens(message), 0);

describe('extractive compaction', () => {
  it('leaves a history that fits alone', () => {
    const messages = discussion(1).messages;
    const result = strategy.compact(messages, { budgetTokens: 100_000 });
    expect(result.compacted).toBe(false);
    expect(result.messages).toEqual(messages);
  });

  it('fits the budget and keeps the task, the conclusion and the latest turns verbatim', () => {
    const messages = discussion(6).messages;
    const budget = 1200;
    expect(total(messages)).toBeGreaterThan(budget);
    const result = strategy.compact(messages, { budgetTokens: budget });

    expect(result.compacted).toBe(true);
    expect(total(result.messages)).toBeLessThanOrEqual(budget);
    expect(result.messages[0]).toEqual(messages[0]);
    expect(result.messages.at(-1)).toEqual(messages.at(-1));
    // The turn just before the conclusion is the latest one and is kept word for word.
    expect(result.messages.at(-2)).toEqual(messages.at(-2));
    const summary = result.messages.find((message) => message.tags?.includes(SUMMARY_TAG));
    expect(summary?.content).toContain(
      '- architect (round 1): architect in round 1 says the idea needs work on point 1.',
    );
    expect(result.keptCount + result.summarizedCount + result.omittedCount).toBe(messages.length);
  });

  it('names the passes of a session that works in chunks as chunks in the summary', () => {
    const child = buildContinuationMessages(discussion(6), 'And then?', {
      budgetTokens: 1200,
      roundUnit: 'chunk',
    });
    const summary = child.messages.find((message) => message.tags?.includes(SUMMARY_TAG));
    expect(summary?.content).toContain('- architect (chunk 1): architect in round 1 says');
    expect(summary?.content).not.toContain('(round 1)');
  });

  it('always fits when the task and conclusion do, and keeps them (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 150, max: 4000 }), (rounds, budget) => {
        const messages = discussion(rounds).messages;
        const result = strategy.compact(messages, { budgetTokens: budget });
        expect(result.overBudget).toBe(false);
        expect(total(result.messages)).toBeLessThanOrEqual(Math.max(budget, 0));
        expect(result.messages[0]).toEqual(messages[0]);
        expect(result.messages.at(-1)).toEqual(messages.at(-1));
        // Deterministic: the same input compacts to the same messages.
        expect(strategy.compact(messages, { budgetTokens: budget })).toEqual(result);
      }),
      { numRuns: 40 },
    );
  });
});

describe('buildContinuationMessages', () => {
  it('starts the child with the continuation prompt, the compacted history and the follow-up', () => {
    const parent = discussion(6);
    const followUp = 'What about scale?';
    const { messages, compaction, previousTask, previousConclusion } = buildContinuationMessages(parent, followUp, {
      budgetTokens: 1500,
    });
    expect(previousTask).toBe('Evaluate my idea: a shared memory for AI agents.');
    expect(previousConclusion).toContain('Build it as a small library first.');
    const first = messages[0];
    expect(first?.role).toBe('system');
    expect(first?.tags).toEqual([CONTINUATION_TAG]);
    expect(first?.content).toContain('Previously you discussed: Evaluate my idea');
    expect(first?.content).toContain('You reached this conclusion: VERDICT: CONSENSUS');
    expect(first?.content).toContain('NEW FOLLOW-UP: What about scale?');
    expect(messages.at(-1)).toMatchObject({ role: 'user', content: followUp, tags: [FOLLOW_UP_TAG] });
    expect(compaction.compacted).toBe(true);
    expect(total(messages as Message[])).toBeLessThanOrEqual(1500);
  });

  it('never passes a mid-round turn of an interrupted session off as its conclusion', () => {
    const builder = journal();
    builder.message('user', 'Evaluate my idea: a shared memory for AI agents.');
    builder.message('assistant', 'architect in round 1: half a thought about caching', {
      speaker: 'architect',
      round: 1,
    });
    builder.add({ type: 'status-changed', status: 'interrupted' });
    const { messages, previousConclusion } = buildContinuationMessages(builder.state(), 'What about scale?', {
      budgetTokens: 8000,
    });
    expect(previousConclusion).toBeNull();
    expect(messages[0]?.content).not.toContain('You reached this conclusion');
    expect(messages[0]?.content).toContain('interrupted before it reached a conclusion');
  });
});

describe('buildResumeMessage', () => {
  it('says what is done and must not be repeated, what was found and where it stopped', () => {
    const builder = journal({ mode: 'orchestrated' });
    builder.message('user', 'Refactor the user module.');
    builder.completedStep('tool read_file', 'ok');
    builder.add({ type: 'tool-call-started', callId: 'c1', name: 'read_file', args: { path: 'src/user.ts' } });
    builder.add({ type: 'tool-call-completed', callId: 'c1', name: 'read_file', result: 'export const user = 1;' });
    builder.message('assistant', 'The user module mixes storage and validation. I will split it.', { speaker: 'lead' });
    builder.checkpoint('turn 2');
    const message = buildResumeMessage(builder.state(), 'branch');

    expect(message.role).toBe('system');
    expect(message.tags).toEqual([RESUME_MESSAGE_TAG]);
    expect(message.content).toContain('COMPLETED WORK (DO NOT REPEAT):');
    expect(message.content).toContain('Steps completed: tool read_file');
    expect(message.content).toContain('Tools successfully executed: read_file(src/user.ts)');
    expect(message.content).toContain('lead: The user module mixes storage and validation.');
    expect(message.content).toContain('Last checkpoint: turn 2');
    expect(message.content).toContain('branches from a checkpoint');
  });
});

describe('lineage', () => {
  it('follows parents and sums usage once per call, also across a branch', async () => {
    const engine = createEngine({ store: createMemoryStore(), holder: { pid: 1, host: 'test' } });
    const root = await engine.createSession({ title: 'root', mode: 'discussion' });
    const usage = (agent: string, cost: number) =>
      root.record({
        type: 'usage-recorded',
        provider: 'scripted',
        model: 'scripted-1',
        agent,
        inputTokens: 10,
        outputTokens: 5,
        costUsd: cost,
      });
    usage('architect', 0.5);
    const branchPoint = await root.checkpoint('round 1');
    usage('critic', 0.25);
    await root.checkpoint('round 2');

    const branch = await root.fork({ at: branchPoint, title: 'what if', replay: 'keyed' });
    branch.record({
      type: 'usage-recorded',
      provider: 'scripted',
      model: 'scripted-1',
      agent: 'critic',
      inputTokens: 1,
      outputTokens: 1,
      costUsd: 0.125,
    });
    await branch.checkpoint('round 2 again');
    const child = await engine.createSession({ title: 'follow-up', mode: 'discussion', parentId: branch.id });
    await child.checkpoint();

    const chain = await lineageOf(engine, child.id);
    expect(chain.map((entry) => entry.title)).toEqual(['root', 'what if', 'follow-up']);
    const summed = await lineageUsage(engine, child.id);
    expect(summed.sessions.map((session) => session.usage.costUsd)).toEqual([0.75, 0.125, 0]);
    expect(summed.total).toEqual({ inputTokens: 21, outputTokens: 11, costUsd: 0.875, calls: 3 });
    await Promise.all([root.close(), branch.close(), child.close()]);
  });
});
