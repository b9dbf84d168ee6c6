import { cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import type { ResumePromptPlan } from '../plan/resume-prompt-plan.js';
import { keys, renderWithProviders } from '../testing/render-with-providers.js';
import { AnswerPrompt } from './answer-prompt.js';
import { type ModelUnavailableAnswer, ModelUnavailablePrompt } from './model-unavailable-prompt.js';
import { ResumePrompt } from './resume-prompt.js';
import { type UncertainStepAnswer, UncertainStepPrompt } from './uncertain-step-prompt.js';

afterEach(() => cleanup());

const interruptedPlan: ResumePromptPlan = {
  sessionId: '0000000000000000000003',
  title: 'Fix OCR errors',
  action: 'resume',
  question: 'Resume from chunk 8 of 15?',
  next: 'chunk 8 of 15',
  checkpoint: { seq: 43, label: 'chunk 7/15' },
  done: Array.from({ length: 7 }, (_, index) => ({ label: `chunk-${index + 1}` })),
  skipped: [],
  rerun: [],
  uncertain: [{ label: 'write_file (#3)', attempt: 1, action: 'decide' }],
  retrying: [],
  cost: { inputTokens: 12_000, outputTokens: 3400, costUsd: 0.12 },
  changes: {
    compatibility: null,
    files: [
      { path: 'notes.md', status: 'modified' },
      { path: 'out.txt', status: 'unchanged' },
    ],
    git: null,
  },
};

describe('ResumePrompt', () => {
  it('shows what is skipped, uncertain and next, and Enter answers yes', async () => {
    const answers: boolean[] = [];
    const view = renderWithProviders(<ResumePrompt plan={interruptedPlan} onAnswer={(yes) => answers.push(yes)} />);
    const frame = await view.waitForFrame((text) => text.includes('[Y/n]'));
    expect(frame).toContain('Resume from chunk 8 of 15? [Y/n]');
    expect(frame).toContain('Skipped (already done, not repeated): 7 steps: chunk-1, chunk-2, chunk-3 and 4 more');
    expect(frame).toContain('Uncertain: write_file (#3) (attempt 1) never finished and has side effects');
    expect(frame).toContain('Next: chunk 8 of 15');
    expect(frame).toContain('Cost so far: $0.12 (12.0k in / 3.4k out tokens)');
    expect(frame).toContain('1 file changed since the session touched it: notes.md (modified)');
    await view.press(keys.enter);
    expect(answers).toEqual([true]);
  });

  it('shows the question answered since the session stopped, and the answer it goes on with', async () => {
    const plan = {
      ...interruptedPlan,
      answered: [{ prompt: 'Which city is the offsite in?', answer: 'Lisbon', answeredBy: 'ana' }],
    };
    const view = renderWithProviders(<ResumePrompt plan={plan} onAnswer={() => undefined} />);
    const frame = await view.waitForFrame((text) => text.includes('[Y/n]'));
    expect(frame).toContain('Answered: "Which city is the offsite in?" → Lisbon (by ana)');
  });

  it('lists the settings the config changed since the session stopped', async () => {
    const message =
      'discussion.maxRounds is 5 in ./.conclave.yaml, 4 in the session: the resume uses 4 (add --max-rounds 5 to use 5)';
    const plan = { ...interruptedPlan, changes: { ...interruptedPlan.changes, settings: [{ message }] } };
    const view = renderWithProviders(<ResumePrompt plan={plan} onAnswer={() => undefined} />, {
      size: { columns: 160, rows: 40 },
    });
    const frame = await view.waitForFrame((text) => text.includes('[Y/n]'));
    expect(frame.replace(/[│]/g, ' ').replace(/\s+/g, ' ')).toContain(message);
  });

  it('wraps long plan lines instead of cutting them, at 120 columns and at 80', async () => {
    const files = Array.from({ length: 12 }, (_, index) => ({
      path: `src/very/long/path/to/module-${index + 1}.ts`,
      status: 'modified' as const,
    }));
    const plan = { ...interruptedPlan, changes: { ...interruptedPlan.changes, files } };
    for (const columns of [120, 80]) {
      const view = renderWithProviders(<ResumePrompt plan={plan} onAnswer={() => undefined} />, {
        size: { columns, rows: 40 },
      });
      const frame = await view.waitForFrame((text) => text.includes('[Y/n]'));
      const joined = frame.replace(/[│╭╮╰╯─]/g, ' ').replace(/\s+/g, ' ');
      // The plan names the first files; none of what it says is cut off at the frame's edge.
      expect(joined).toContain(
        'src/very/long/path/to/module-1.ts (modified), src/very/long/path/to/module-2.ts (modified), src/very/long/path/to/module-3.ts (modified)',
      );
      expect(frame.split('\n').every((line) => line.length <= columns)).toBe(true);
      cleanup();
    }
  });

  it('n answers no', async () => {
    const answers: boolean[] = [];
    const view = renderWithProviders(<ResumePrompt plan={interruptedPlan} onAnswer={(yes) => answers.push(yes)} />);
    await view.waitForFrame((text) => text.includes('[Y/n]'));
    await view.press('n');
    expect(answers).toEqual([false]);
  });
});

describe('UncertainStepPrompt', () => {
  const info = {
    sessionId: 's',
    key: 'deploy',
    occurrence: 1,
    attempt: 2,
    safety: 'unsafe' as const,
    idempotencyKey: 's:deploy:1',
    startedAt: '2026-03-01T11:00:00.000Z',
    previousFailures: [{ name: 'Error', message: 'exit 1', code: null, retryable: false }],
  };

  it('defaults to abort and takes shortcuts', async () => {
    const answers: UncertainStepAnswer[] = [];
    const view = renderWithProviders(<UncertainStepPrompt info={info} onAnswer={(answer) => answers.push(answer)} />);
    const frame = await view.waitForFrame((text) => text.includes('Uncertain step: deploy'));
    expect(frame).toContain('Attempt 2 started 1h ago and never finished');
    expect(frame).toContain('› [a] Abort the resume');
    await view.press(keys.enter);
    expect(answers).toEqual(['abort']);
  });

  it('r re-runs; arrows then Enter skip', async () => {
    const answers: UncertainStepAnswer[] = [];
    const view = renderWithProviders(<UncertainStepPrompt info={info} onAnswer={(answer) => answers.push(answer)} />);
    await view.waitForFrame((text) => text.includes('Uncertain step'));
    await view.press('r');
    expect(answers).toEqual(['rerun']);
    const second: UncertainStepAnswer[] = [];
    const other = renderWithProviders(<UncertainStepPrompt info={info} onAnswer={(answer) => second.push(answer)} />);
    await other.waitForFrame((text) => text.includes('Uncertain step'));
    await other.press(keys.up, keys.enter);
    expect(second).toEqual(['skip']);
  });

  it('names the tool a tool call step calls, the MCP server behind it, and its arguments, cut when long', async () => {
    const call = {
      name: 'ledger__append',
      args: { text: 'one', note: 'x'.repeat(1000) },
      server: 'ledger',
      tool: 'append',
    };
    const view = renderWithProviders(
      <UncertainStepPrompt info={{ ...info, toolCall: call }} onAnswer={() => undefined} />,
      { size: { columns: 200, rows: 40 } },
    );
    const frame = (await view.waitForFrame((text) => text.includes('Uncertain step'))).replace(/[│\s]+/g, ' ');
    expect(frame).toContain('Tool append of MCP server ledger');
    expect(frame).toContain('Arguments: { "text": "one", "note": "xxx');
    expect(frame).toContain('x…');
    expect(frame).not.toContain('x'.repeat(500));
    const builtin = renderWithProviders(
      <UncertainStepPrompt
        info={{ ...info, toolCall: { name: 'write_file', args: { path: 'a.md' } } }}
        onAnswer={() => undefined}
      />,
    );
    const plain = await builtin.waitForFrame((text) => text.includes('Uncertain step'));
    expect(plain).toContain('Tool write_file');
    expect(plain).toContain('Arguments: { "path": "a.md" }');
  });
});

describe('ModelUnavailablePrompt', () => {
  const info = { model: 'gpt-4o', agents: ['architect'], alternatives: ['gpt-4.1', 'claude-sonnet'] };

  it('offers the same model, alternatives and cancel; a digit picks an alternative', async () => {
    const answers: ModelUnavailableAnswer[] = [];
    const view = renderWithProviders(
      <ModelUnavailablePrompt info={info} onAnswer={(answer) => answers.push(answer)} />,
    );
    const frame = await view.waitForFrame((text) => text.includes("Model 'gpt-4o' is not available"));
    expect(frame).toContain("[s] Continue with 'gpt-4o'");
    expect(frame).toContain("[2] Use 'claude-sonnet' instead");
    expect(frame).toContain('› [c] Cancel');
    await view.press('2');
    expect(answers).toEqual([{ choice: 'other', model: 'claude-sonnet' }]);
  });

  it('Esc cancels', async () => {
    const answers: ModelUnavailableAnswer[] = [];
    const view = renderWithProviders(
      <ModelUnavailablePrompt info={info} onAnswer={(answer) => answers.push(answer)} />,
    );
    await view.waitForFrame((text) => text.includes('not available'));
    await view.press(keys.escape);
    await view.waitForFrame(() => answers.length > 0, 'the cancel answer');
    expect(answers).toEqual([{ choice: 'cancel' }]);
  });
});

describe('AnswerPrompt', () => {
  const question = {
    sessionId: 's1',
    key: 'target',
    prompt: 'Deploy where?',
    hint: 'an environment name',
    choices: null,
  };

  it('sends an answer whose Enter came in the same chunk as its last characters, and keeps a pasted line break a space', async () => {
    const sent: string[] = [];
    const done: (string | null)[] = [];
    const view = renderWithProviders(
      <AnswerPrompt
        info={{ question, title: 'Deploy' }}
        submit={async (text) => {
          sent.push(text);
          return { accepted: true };
        }}
        onDone={(answer) => done.push(answer)}
      />,
    );
    await view.waitForFrame((frame) => frame.includes('Deploy where?'));
    // A paste with a line break inside stays in the box.
    view.stdin.write('staging\nnorth');
    await view.waitForFrame((frame) => frame.includes('staging north'));
    expect(sent).toEqual([]);
    // The rest, typed with its Enter in one chunk (over a slow link), sends the answer.
    view.stdin.write(' 2\r');
    await view.waitForFrame(() => done.length === 1, 'the answer');
    expect(sent).toEqual(['staging north 2']);
    expect(done).toEqual(['staging north 2']);
  });
});
