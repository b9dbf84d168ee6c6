// Answering a waiting session from the picker: `a` opens the answer box in the details pane
// with the question and what the answer must be; an answer that does not fit is refused
// inline and nothing is written; Esc leaves without writing; an accepted answer picks the
// session to be resumed.
import { cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import type { PendingQuestion } from '../backend/tui-backend.js';
import { createFakeBackend, sessionId, summary } from '../testing/fake-backend.js';
import { keys, renderWithProviders } from '../testing/render-with-providers.js';
import { SessionPicker } from './session-picker.js';
import type { PickedSession } from './use-session-picker.js';

afterEach(() => cleanup());

const waiting = summary({
  id: sessionId(5),
  title: 'Deploy v2',
  mode: 'orchestrated',
  status: 'waiting',
  waitingFor: { key: 'approval', prompt: 'Deploy v2 to production now?' },
});
const interrupted = summary({ id: sessionId(4), title: 'Fix OCR errors', status: 'interrupted' });

const approval: PendingQuestion = {
  sessionId: sessionId(5),
  key: 'approval',
  prompt: 'Deploy v2 to production now?',
  hint: 'yes or no',
  choices: ['yes', 'no'],
};

function renderPicker(size = { columns: 100, rows: 30 }) {
  const fake = createFakeBackend({
    sessions: [interrupted, waiting],
    questions: { [sessionId(5)]: approval },
    // As the engine's schema check would: a yes-or-no question takes yes or no.
    checkAnswer: (_question, text) => (/^(yes|no)$/i.test(text) ? null : 'Invalid input: expected boolean'),
  });
  const picked: (PickedSession | null)[] = [];
  const view = renderWithProviders(
    <SessionPicker backend={fake.backend} onDone={(answer) => picked.push(answer)} settleMs={0} />,
    { size },
  );
  return { ...view, ...fake, picked };
}

describe('answering a waiting session in the picker', () => {
  it('a opens the answer box with the question and its hint; a fitting answer is journaled and resumes', async () => {
    const view = renderPicker();
    const listed = await view.waitForFrame((text) => text.includes('a answers it here'), 'the details pane');
    // The waiting session is listed first and selected.
    expect(listed).toMatch(/›\s+\?\s+Deploy v2/);
    expect(listed).toContain('a answer');
    await view.press('a');
    const box = await view.waitForFrame((text) => text.includes('Expected: yes or no'), 'the answer box');
    expect(box).toContain(`── Answer ${sessionId(5)}`);
    expect(box).toContain('? Deploy v2 to production now?');
    expect(box).toContain('Enter answer and continue');
    await view.press('y', 'e', 's');
    await view.waitForFrame((text) => text.includes('> yes'), 'the typed answer');
    await view.press(keys.enter);
    await view.waitForFrame(() => view.picked.length > 0, 'the answer to be sent');
    expect(view.answers).toEqual([{ sessionId: sessionId(5), key: 'approval', text: 'yes' }]);
    expect(view.picked).toEqual([{ action: 'resume', sessionId: sessionId(5), summary: waiting, answered: true }]);
  });

  it('refuses an answer that does not fit, inline, and writes nothing', async () => {
    const view = renderPicker();
    await view.waitForFrame((text) => text.includes('a answers it here'), 'the details pane');
    await view.press('a');
    await view.waitForFrame((text) => text.includes('Expected: yes or no'), 'the answer box');
    await view.press('maybe');
    await view.press(keys.enter);
    const refused = await view.waitForFrame((text) => text.includes('✗ Invalid input'), 'the problem');
    expect(refused).toContain('✗ Invalid input: expected boolean');
    // The box stays open with what was typed, so it can be corrected.
    expect(refused).toContain('> maybe');
    expect(view.answers).toEqual([]);
    expect(view.picked).toEqual([]);
    // An empty answer is never sent either.
    await view.press('\u0015', keys.enter);
    await view.waitForFrame((text) => text.includes('Type an answer first'), 'the empty-answer notice');
    expect(view.answers).toEqual([]);
    // ↑↓ go through the choices of a closed question.
    await view.press(keys.down);
    await view.waitForFrame((text) => text.includes('> yes'), 'the first choice');
    await view.press(keys.enter);
    await view.waitForFrame(() => view.picked.length > 0, 'the answer to be sent');
    expect(view.answers).toEqual([{ sessionId: sessionId(5), key: 'approval', text: 'yes' }]);
  });

  it('Esc leaves the answer box without writing anything and stays in the picker', async () => {
    const view = renderPicker();
    await view.waitForFrame((text) => text.includes('a answers it here'), 'the details pane');
    await view.press('a');
    await view.waitForFrame((text) => text.includes('Expected: yes or no'), 'the answer box');
    await view.press('n', 'o', keys.escape);
    const back = await view.waitForFrame((text) => text.includes('Not answered; nothing was written.'), 'the picker');
    expect(back).not.toContain('Expected: yes or no');
    expect(view.answers).toEqual([]);
    expect(view.picked).toEqual([]);
    // Keys are the picker's again: q leaves.
    await view.press('q');
    expect(view.picked).toEqual([null]);
  });

  it('a on a session that is not waiting says so and opens nothing', async () => {
    const view = renderPicker();
    await view.waitForFrame((text) => text.includes('a answers it here'), 'the details pane');
    await view.press('j', 'a');
    const frame = await view.waitForFrame((text) => text.includes('is not waiting for an answer'), 'the notice');
    expect(frame).toContain('"Fix OCR errors" is not waiting for an answer (it is interrupted).');
    expect(frame).not.toContain('Expected:');
  });

  it('opens the answer box on a terminal too small for the details pane', async () => {
    const view = renderPicker({ columns: 80, rows: 18 });
    await view.waitForFrame((text) => text.includes('Deploy v2'), 'the list');
    await view.press('a');
    const box = await view.waitForFrame((text) => text.includes('Expected: yes or no'), 'the answer box');
    expect(box.split('\n').length).toBeLessThanOrEqual(17);
    expect(box).toContain('? Deploy v2 to production now?');
  });
});
