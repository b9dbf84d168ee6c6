// A session whose files the store found damaged is marked in the picker (`!`, red) with the
// problem and the command that shows what a repair would do, in the row and the details pane.
import { cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { createFakeBackend, sessionId, summary } from '../testing/fake-backend.js';
import { renderWithProviders } from '../testing/render-with-providers.js';
import { SessionPicker } from './session-picker.js';

afterEach(() => cleanup());

describe('damaged sessions in the picker', () => {
  it('marks a damaged session with its problem and the repair command', async () => {
    const damaged = summary({
      id: sessionId(7),
      title: 'Summarize the contracts',
      status: 'interrupted',
      damage: { problem: 'the journal ends in the middle of an event', file: 'journal.ndjson' },
    });
    const healthy = summary({ id: sessionId(6), title: 'Review the budget', status: 'interrupted' });
    const fake = createFakeBackend({ sessions: [damaged, healthy] });
    const view = renderWithProviders(<SessionPicker backend={fake.backend} onDone={() => undefined} settleMs={0} />);
    const frame = await view.waitForFrame((text) => text.includes('See what a repair would do'), 'the details pane');
    expect(frame).toMatch(/›\s+!\s+Summarize the contracts/);
    expect(frame).toMatch(/‖\s+Review the budget/);
    expect(frame).toContain('! damaged: the journal ends in the middle of an event (repair: see the details)');
    expect(frame).toContain(`See what a repair would do: conclave sessions repair ${sessionId(7)} --dry-run`);
    expect(frame).toContain('! damaged (interrupted)');
    expect(frame).toContain('Damaged: the journal ends in the middle of an event (journal.ndjson)');
  });

  it('marks a session whose files may not be read as unreadable, with the refused path', async () => {
    const refused = '/home/user/.conclave/sessions/0001';
    const unreadable = summary({
      id: sessionId(7),
      title: 'Summarize the contracts',
      status: 'completed',
      unreadable: { path: refused, problem: `Permission denied: cannot read ${refused}` },
    });
    const healthy = summary({ id: sessionId(6), title: 'Review the budget', status: 'interrupted' });
    const fake = createFakeBackend({ sessions: [unreadable, healthy] });
    const view = renderWithProviders(<SessionPicker backend={fake.backend} onDone={() => undefined} settleMs={0} />);
    const frame = await view.waitForFrame((text) => text.includes('Check the owner and mode'), 'the details pane');
    expect(frame).toMatch(/›\s+!\s+Summarize the contracts/);
    expect(frame).toMatch(/‖\s+Review the budget/);
    expect(frame).toContain(`! unreadable: Permission denied: cannot read ${refused}`);
    expect(frame).toContain('! unreadable');
    expect(frame).toContain(`Check the owner and mode of ${refused} (and of the folders above it).`);
  });
});
