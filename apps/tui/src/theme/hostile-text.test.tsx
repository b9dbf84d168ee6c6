// Text a session carries (its title, what the models said, a question, a file's path, an error)
// is shown on the screens with its controls visible (␛, <U+202E>), never acting on the terminal.
import { cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { ConflictScreen } from '../conflicts/conflict-screen.js';
import { initialLiveRunState, type LiveRunEvent, liveRunReducer } from '../live/live-run-reducer.js';
import { LiveRunView } from '../live/live-run-view.js';
import { SessionPicker } from '../picker/session-picker.js';
import { ModelUnavailablePrompt } from '../prompts/model-unavailable-prompt.js';
import { UncertainStepPrompt } from '../prompts/uncertain-step-prompt.js';
import { createFakeBackend, sessionId, summary } from '../testing/fake-backend.js';
import { renderWithProviders } from '../testing/render-with-providers.js';

afterEach(() => cleanup());

/** Sets the window title, clears the screen, a C1 CSI, and an override that reverses what follows. */
const HOSTILE = 'x \u001b]0;PWNED\u0007\u001b[2J \u009b31m \u202egnp.exe';
const SHOWN = 'x ␛]0;PWNED␇␛[2J <U+009B>31m <U+202E>gnp.exe';
/**
 * What would act on the terminal: any escape sequence but the screen's own bold, dim and inverse
 * (colours are off in these renders, so a colour sequence can only come from the text), BEL, C1
 * controls, bidi controls, a carriage return.
 */
const ACTING =
  /\u001b(?!\[(?:1|2|7|22|27)m)|[\u0000-\u0008\u000b-\u001a\u001c-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

function expectInert(frame: string): void {
  expect(frame).not.toMatch(ACTING);
}

describe('the screens show hostile text without letting it act', () => {
  it('the picker: a title in the list, a content match, a waiting question in the details', async () => {
    const id = sessionId(1);
    const fake = createFakeBackend({
      sessions: [
        summary({
          id,
          title: `${HOSTILE}\nsecond line`,
          status: 'waiting',
          waitingFor: { key: 'ok', prompt: `Proceed? ${HOSTILE}` },
        }),
      ],
      content: { [id]: [{ role: 'assistant', speaker: 'critic', round: 1, content: `Consider ${HOSTILE}` }] },
    });
    const view = renderWithProviders(<SessionPicker backend={fake.backend} onDone={() => undefined} settleMs={0} />, {
      size: { columns: 160, rows: 30 },
    });
    const frame = await view.waitForFrame((text) => text.includes('Waiting for an answer'));
    expectInert(frame);
    // One line in the list: the newline in the title is shown, not broken.
    expect(frame).toContain(`${SHOWN}␊second line`);
    await view.press('/', 'c', 'o', 'n', 's', 'i', 'd');
    const searched = await view.waitForFrame((text) => text.includes('Consider x'), 'the content match');
    expectInert(searched);
    expect(searched).toContain('Consider x ␛]0;PWNED␇');
  });

  it('the live run view: finished turns, the streaming turn, notices and the failure', async () => {
    const events: LiveRunEvent[] = [
      { type: 'run-started', sessionId: 's1', mode: 'discussion', resumed: false },
      { type: 'turn-started', agent: 'architect', round: 1 },
      {
        type: 'turn-completed',
        message: { role: 'assistant', speaker: 'architect', round: 1, content: `First ${HOSTILE}\r\nsecond` },
        replayed: false,
      },
      { type: 'notice', text: `Careful: ${HOSTILE}` },
      { type: 'turn-started', agent: 'critic', round: 1 },
      { type: 'delta', agent: 'critic', text: `Streaming ${HOSTILE}` },
    ];
    const state = events.reduce(
      (current, event) => liveRunReducer(current, { type: 'event', event }),
      initialLiveRunState,
    );
    const view = renderWithProviders(<LiveRunView state={state} />, { size: { columns: 120, rows: 30 } });
    const frame = await view.waitForFrame((text) => text.includes('Streaming'));
    expectInert(frame);
    expect(frame).toContain(`First ${SHOWN}\nsecond`);
    expect(frame).toContain(`Streaming ${SHOWN}`);
    const failed = liveRunReducer(state, {
      type: 'finished',
      result: { status: 'failed', sessionId: 's1', message: `Command failed: ${HOSTILE}` },
    });
    const last = renderWithProviders(<LiveRunView state={failed} />, { size: { columns: 120, rows: 30 } });
    expectInert(await last.waitForFrame((text) => text.includes('failed')));
  });

  it('prompts: an uncertain step, an unavailable model, a changed file and its diff', async () => {
    const uncertain = renderWithProviders(
      <UncertainStepPrompt
        info={{
          sessionId: 's',
          key: `deploy ${HOSTILE}`,
          occurrence: 1,
          attempt: 2,
          safety: 'unsafe',
          idempotencyKey: `s:deploy ${HOSTILE}:1`,
          startedAt: '2026-03-01T11:00:00.000Z',
          previousFailures: [{ name: 'Error', message: `exit 1 ${HOSTILE}`, code: null, retryable: false }],
        }}
        onAnswer={() => undefined}
      />,
    );
    expectInert(await uncertain.waitForFrame((text) => text.includes('Uncertain step')));
    const model = renderWithProviders(
      <ModelUnavailablePrompt
        info={{ model: `gpt ${HOSTILE}`, agents: [`agent ${HOSTILE}`], alternatives: ['gpt-4.1'], reason: HOSTILE }}
        onAnswer={() => undefined}
      />,
    );
    expectInert(await model.waitForFrame((text) => text.includes('is not available')));
    const diff = `--- a/notes.md\n+++ b/notes.md\n@@ -1 +1 @@\n-old\n+new ${HOSTILE}`;
    const conflicts = renderWithProviders(
      <ConflictScreen
        changes={[{ path: `notes ${HOSTILE}.md`, status: 'modified' }]}
        diffs={{ [`notes ${HOSTILE}.md`]: diff }}
        onAnswer={() => undefined}
      />,
      { size: { columns: 120, rows: 24 } },
    );
    expectInert(await conflicts.waitForFrame((text) => text.includes('notes')));
    await conflicts.press('d');
    expectInert(await conflicts.waitForFrame((text) => text.includes('+new'), 'the diff'));
  });
});
