// A sleeping session in the picker: its row says so with the time it wakes, and the details
// pane says what wakes it.
import { cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { createFakeBackend, sessionId, summary } from '../testing/fake-backend.js';
import { renderWithProviders } from '../testing/render-with-providers.js';
import { SessionPicker } from './session-picker.js';

afterEach(() => cleanup());

describe('a sleeping session in the picker', () => {
  it('shows the sleeping status and its wake time in the row and the details', async () => {
    const sleeping = summary({
      id: sessionId(6),
      title: 'Nightly report',
      status: 'sleeping',
      wakeAt: '2099-01-01T09:00:00.000Z',
    });
    const fake = createFakeBackend({ sessions: [sleeping] });
    const view = renderWithProviders(<SessionPicker backend={fake.backend} onDone={() => {}} settleMs={0} />, {
      size: { columns: 110, rows: 30 },
    });
    const frame = await view.waitForFrame((text) => text.includes('Sleeping until'), 'the details pane');
    expect(frame).toMatch(/z\s+Nightly report/);
    expect(frame).toContain('z sleeping until 2099-01-01T09:00:00.000Z (in ');
    expect(frame).toContain('Sleeping until 2099-01-01T09:00:00.000Z: a recover or a resume after that time wakes it');
  });
});
