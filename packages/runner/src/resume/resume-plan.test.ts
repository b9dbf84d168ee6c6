import { describe, expect, it } from 'vitest';
import { journal } from './__fixtures__/journal-builder.js';
import { checkCompatibility } from './compatibility.js';
import { formatResumePlan } from './format-resume-plan.js';
import { buildResumePlan } from './resume-plan.js';

function iterativeSession() {
  const builder = journal({ mode: 'iterative', title: 'Fix OCR errors' });
  builder.message('user', 'Fix OCR errors');
  for (let chunk = 1; chunk <= 7; chunk += 1) {
    builder.completedStep(`chunk ${chunk}`, `fixed ${chunk}`);
    builder.add({ type: 'data-set', key: 'chunk', value: chunk });
    builder.usage('gpt-4o', 'editor', 100, 50, 0.01);
    builder.checkpoint(`chunk ${chunk}/15`);
  }
  return builder;
}

const describeChunks = (state: { data: Record<string, unknown> }) => `chunk ${Number(state.data.chunk) + 1} of 15`;

/** A chain journal in which the unsafe step `key` failed `count` attempts (exit code = attempt). */
function failedAttempts(key: string, count: number, options: { givenUp: boolean }) {
  const builder = journal({ mode: 'chain' });
  for (let attempt = 1; attempt <= count; attempt += 1) {
    const idempotencyKey = `${builder.id}:${key}:1`;
    builder.add({ type: 'step-started', key, occurrence: 1, attempt, safety: 'unsafe', idempotencyKey });
    builder.add({
      type: 'step-failed',
      key,
      occurrence: 1,
      attempt,
      error: { name: 'ShellStepError', message: `exit code ${attempt}`, code: null, retryable: true },
      willRetry: !(options.givenUp && attempt === count),
    });
  }
  return builder;
}

describe('buildResumePlan', () => {
  it('lists completed steps as skipped and asks to resume from the next chunk', () => {
    const builder = iterativeSession();
    builder.add({ type: 'status-changed', status: 'interrupted', reason: 'SIGINT' });
    const plan = buildResumePlan(builder.state(), { describeNext: describeChunks });

    expect(plan.action).toBe('resume');
    expect(plan.done.map((step) => step.label)).toEqual([
      'chunk 1',
      'chunk 2',
      'chunk 3',
      'chunk 4',
      'chunk 5',
      'chunk 6',
      'chunk 7',
    ]);
    expect(plan.uncertain).toEqual([]);
    expect(plan.retrying).toEqual([]);
    expect(plan.checkpoint?.label).toBe('chunk 7/15');
    expect(plan.next).toBe('chunk 8 of 15');
    expect(plan.question).toBe('Resume from chunk 8 of 15?');
    expect(plan.cost.calls).toBe(7);
    expect(plan.cost.costUsd).toBeCloseTo(0.07);

    const text = formatResumePlan(plan);
    expect(text).toContain('Done, will be skipped: 7 steps');
    expect(text).toContain('Next: chunk 8 of 15');
    expect(text).toContain('Cost so far: $0.0700');
    expect(text.split('\n').at(-1)).toBe('Resume from chunk 8 of 15?');
  });

  it('marks an unfinished idempotent step for re-run and an unfinished unsafe step for a decision', () => {
    const builder = iterativeSession();
    const id = builder.id;
    builder.add({
      type: 'step-started',
      key: 'summarize',
      occurrence: 1,
      attempt: 1,
      safety: 'idempotent',
      idempotencyKey: `${id}:summarize:1`,
    });
    builder.add({
      type: 'step-started',
      key: 'write report.md',
      occurrence: 1,
      attempt: 1,
      safety: 'unsafe',
      idempotencyKey: `${id}:write report.md:1`,
    });
    const plan = buildResumePlan(builder.state());

    expect(plan.uncertain.map((step) => [step.label, step.action, step.attempt])).toEqual([
      ['summarize', 'rerun', 1],
      ['write report.md', 'decide', 1],
    ]);
    const text = formatResumePlan(plan);
    expect(text).toContain('summarize, attempt 1: idempotent, will run again');
    expect(text).toContain('write report.md, attempt 1: has side effects: choose rerun, skip or abort');
  });

  it('continues a retried step at the next attempt with its failure history', () => {
    const key = 'npm test';
    const builder = failedAttempts(key, 2, { givenUp: false });
    builder.add({ type: 'status-changed', status: 'interrupted', reason: 'SIGTERM' });
    const plan = buildResumePlan(builder.state(), { maxAttemptsOf: (step) => (step.key === key ? 5 : null) });

    expect(plan.retrying).toHaveLength(1);
    expect(plan.retrying[0]?.nextAttempt).toBe(3);
    expect(plan.retrying[0]?.failures.map((failure) => failure.message)).toEqual(['exit code 1', 'exit code 2']);
    const text = formatResumePlan(plan);
    expect(text).toContain('npm test: attempt 3 of 5, 2 failures');
    expect(text).toContain('1. ShellStepError: exit code 1');
    expect(text).toContain('2. ShellStepError: exit code 2');
  });

  it('gives a step that had given up a fresh retry budget, keeping the whole failure history', () => {
    const key = 'npm test';
    const builder = failedAttempts(key, 2, { givenUp: true });
    builder.add({ type: 'status-changed', status: 'failed' });
    const plan = buildResumePlan(builder.state(), { maxAttemptsOf: () => 2 });

    expect(plan.retrying[0]).toMatchObject({ nextAttempt: 3, attemptInBudget: 1, willRetry: false });
    expect(formatResumePlan(plan)).toContain(
      'npm test: attempt 1 of 2 (attempt 3 overall), 2 failures (it had given up; a resume tries again)',
    );
  });

  it('re-runs what completed after an earlier checkpoint chosen with fromCheckpoint', () => {
    const builder = iterativeSession();
    const third = builder.state().checkpoints[2];
    const plan = buildResumePlan(builder.state(), { fromCheckpoint: third?.seq });

    expect(plan.checkpoint?.label).toBe('chunk 3/15');
    expect(plan.done.map((step) => step.key)).toEqual(['chunk 1', 'chunk 2', 'chunk 3']);
    expect(plan.rerun.map((step) => step.key)).toEqual(['chunk 4', 'chunk 5', 'chunk 6', 'chunk 7']);
    expect(formatResumePlan(plan)).toContain('After the checkpoint, will run again: 4');
  });

  it('counts only the messages kept up to the checkpoint, with the right plural', () => {
    const builder = iterativeSession();
    const first = builder.state().checkpoints[0];
    builder.message('assistant', 'notes after chunk 7');
    builder.message('assistant', 'more notes');
    const whole = buildResumePlan(builder.state());
    expect(formatResumePlan(whole)).toContain('7 steps, 3 messages');
    const early = buildResumePlan(builder.state(), { fromCheckpoint: first?.seq });
    expect(early.messageCount).toBe(1);
    expect(formatResumePlan(early)).toContain('Done, will be skipped: 1 step, 1 message');
  });

  it('proposes a continuation for a completed session and shows what changed and the ways out', () => {
    const builder = journal({ specHash: 'sha256:old' });
    builder.add({ type: 'tool-call-started', callId: 'c1', name: 'web_search', args: {} });
    builder.add({ type: 'tool-call-completed', callId: 'c1', name: 'web_search', result: 'ok' });
    builder.add({ type: 'status-changed', status: 'completed' });
    const state = builder.state();
    const compatibility = checkCompatibility({ state, availableTools: ['read_file'] });
    const plan = buildResumePlan(state, { compatibility });

    expect(plan.action).toBe('continue');
    const text = formatResumePlan(plan);
    expect(text).toContain('block: tool "web_search" was used by the session but is not available now');
    expect(text).toContain('Blocked. Ways out:');
    expect(text).toContain('Resume anyway with --force');
  });
});
