import { cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { keys, renderWithProviders } from '../testing/render-with-providers.js';
import { FollowUpPrompt } from './follow-up-prompt.js';
import { emptyTextInput, textInputReducer } from './text-input-reducer.js';
import { UnfinishedContinuePrompt } from './unfinished-continue-prompt.js';

afterEach(() => cleanup());

const info = { sessionId: '0000000000000000000001', title: 'Evaluate my idea', conclusion: 'Build it small.' };

describe('FollowUpPrompt', () => {
  it('takes a typed question, with editing, and Enter submits it', async () => {
    const answers: (string | null)[] = [];
    const view = renderWithProviders(<FollowUpPrompt info={info} onAnswer={(answer) => answers.push(answer)} />);
    await view.waitForFrame((frame) => frame.includes('Follow-up question:'));
    expect(view.lastFrame()).toContain('Concluded: Build it small.');
    await view.press('What about scal', 'x', keys.backspace, 'e?');
    await view.waitForFrame((frame) => frame.includes('What about scale?'));
    await view.press(keys.enter);
    expect(answers).toEqual(['What about scale?']);
  });

  it('submits all that was typed, though Enter came before the prompt drew the last of it', async () => {
    const answers: (string | null)[] = [];
    const view = renderWithProviders(<FollowUpPrompt info={info} onAnswer={(answer) => answers.push(answer)} />);
    await view.waitForFrame((frame) => frame.includes('Follow-up question:'));
    // A paste, then Enter at once: the prompt draws after both.
    view.stdin.write('What about scale?');
    view.stdin.write(keys.enter);
    await view.waitForFrame(() => answers.length === 1, 'the answer');
    expect(answers).toEqual(['What about scale?']);
  });

  it('submits a question whose Enter came in the same chunk as its last characters (typed over a slow link)', async () => {
    const answers: (string | null)[] = [];
    const view = renderWithProviders(<FollowUpPrompt info={info} onAnswer={(answer) => answers.push(answer)} />);
    await view.waitForFrame((frame) => frame.includes('Follow-up question:'));
    view.stdin.write('What about scale?\r');
    await view.waitForFrame(() => answers.length === 1, 'the answer');
    expect(answers).toEqual(['What about scale?']);
  });

  it('never submits an empty question, and Esc leaves without one', async () => {
    const answers: (string | null)[] = [];
    let answered = () => {};
    const answer = new Promise<void>((resolve) => (answered = resolve));
    const view = renderWithProviders(
      <FollowUpPrompt
        info={info}
        onAnswer={(given) => {
          answers.push(given);
          answered();
        }}
      />,
    );
    await view.waitForFrame((frame) => frame.includes('Follow-up question:'));
    await view.press('  ', keys.enter);
    await view.waitForFrame((frame) => frame.includes('Type a question first'));
    expect(answers).toEqual([]);
    await view.press(keys.escape);
    await answer;
    expect(answers).toEqual([null]);
  });
});

describe('textInputReducer', () => {
  it('inserts at the cursor, erases either side and turns pasted line breaks into spaces', () => {
    let state = textInputReducer(emptyTextInput, { type: 'typed', text: 'ac' });
    state = textInputReducer(state, { type: 'moved', by: -1 });
    state = textInputReducer(state, { type: 'typed', text: 'b' });
    expect(state).toEqual({ text: 'abc', cursor: 2 });
    state = textInputReducer(state, { type: 'erased-forward' });
    expect(state).toEqual({ text: 'ab', cursor: 2 });
    state = textInputReducer(state, { type: 'moved-to', position: 'start' });
    expect(textInputReducer(state, { type: 'erased-back' })).toBe(state);
    expect(textInputReducer(state, { type: 'typed', text: 'one\ntwo ' }).text).toBe('one two ab');
  });
});

describe('UnfinishedContinuePrompt', () => {
  it('says the session has no conclusion and defaults to cancel', async () => {
    const answers: string[] = [];
    const view = renderWithProviders(
      <UnfinishedContinuePrompt
        info={{ ...info, status: 'interrupted', followUp: 'What about scale?', stoppedAt: 'round 2 of 4' }}
        onAnswer={(answer) => answers.push(answer)}
      />,
    );
    const frame = await view.waitForFrame((text) => text.includes('before it reached a conclusion'));
    expect(frame).toContain('stopped at round 2 of 4');
    expect(frame).toContain('Resume it first, then ask the follow-up');
    await view.press(keys.enter);
    expect(answers).toEqual(['cancel']);
  });
});
