import { describe, expect, it } from 'vitest';
import { type ResumePromptPlan, resumePlanLines } from './resume-prompt-plan.js';

const plan = (uncertain: ResumePromptPlan['uncertain']): ResumePromptPlan => ({
  sessionId: '0001m8byyywan7fp3j6bew',
  title: 'orphan',
  action: 'resume',
  question: 'Resume from step 1 of 2?',
  next: 'step 1 of 2',
  checkpoint: null,
  done: [],
  skipped: [],
  rerun: [],
  uncertain,
  retrying: [],
  cost: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
  changes: { compatibility: null, files: null, git: null },
});

describe('the resume prompt plan', () => {
  it("says when an uncertain step's command is still running, and only then", () => {
    const step = { label: 'step[long]/shell', attempt: 1, action: 'decide' as const };
    const running = resumePlanLines(plan([{ ...step, running: { pid: 4242 } }])).map((line) => line.text);
    expect(running).toContain(
      '  its command is still running (pid 4242): the resume waits for it to end before asking',
    );
    const ended = resumePlanLines(plan([step])).map((line) => line.text);
    expect(ended.join('\n')).not.toContain('still running');
  });
});
