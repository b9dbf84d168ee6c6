import { cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { keys, renderWithProviders } from '../testing/render-with-providers.js';
import { DeletePrompt } from './delete-prompt.js';

afterEach(() => cleanup());

const info = {
  sessionId: '0000000000000000000001',
  title: 'Evaluate my idea',
  details: 'completed · discussion · updated 2026-03-01 12:00',
  children: ['0000000000000000000002 "What about scale?"'],
  toTrash: false,
};

describe('DeletePrompt', () => {
  it('names the sessions that continue from it, and Enter keeps the session', async () => {
    const answers: boolean[] = [];
    const view = renderWithProviders(<DeletePrompt info={info} onAnswer={(yes) => answers.push(yes)} />);
    const frame = await view.waitForFrame((text) => text.includes('[y/N]'));
    expect(frame).toContain('Delete "Evaluate my idea" for good?');
    expect(frame).toContain('1 child session will keep its own history and lose its parent link');
    expect(frame).toContain('What about scale?');
    await view.press(keys.enter);
    expect(answers).toEqual([false]);
  });

  it('to the trash, says the children keep their parent link until the trash is emptied', async () => {
    const view = renderWithProviders(<DeletePrompt info={{ ...info, toTrash: true }} onAnswer={() => {}} />);
    const frame = await view.waitForFrame((text) => text.includes('[y/N]'));
    expect(frame).toContain('Move "Evaluate my idea" to the trash?');
    expect(frame).toContain('1 child session will keep its parent link until the trash is emptied');
  });

  it('deletes only on y', async () => {
    const answers: boolean[] = [];
    const view = renderWithProviders(<DeletePrompt info={info} onAnswer={(yes) => answers.push(yes)} />);
    await view.waitForFrame((text) => text.includes('[y/N]'));
    await view.press('y');
    expect(answers).toEqual([true]);
  });
});
