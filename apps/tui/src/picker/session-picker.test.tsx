import { cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { createFakeBackend, sessionId, summary } from '../testing/fake-backend.js';
import { keys, renderWithProviders } from '../testing/render-with-providers.js';
import { SessionPicker } from './session-picker.js';
import type { PickedSession } from './use-session-picker.js';

afterEach(() => cleanup());

const sessions = [
  summary({
    id: sessionId(3),
    title: 'Fix OCR errors',
    mode: 'iterative',
    status: 'interrupted',
    progress: { label: 'chunk', done: 7, total: 15 },
    updatedAt: '2026-03-01T10:00:00.000Z',
    costUsd: 0.12,
  }),
  summary({ id: sessionId(2), title: 'Review authentication code', mode: 'orchestrated', status: 'completed' }),
  summary({ id: sessionId(1), title: 'Evaluate AI brain idea', status: 'failed' }),
];

function renderPicker(backendInput: Parameters<typeof createFakeBackend>[0], size = { columns: 100, rows: 30 }) {
  const fake = createFakeBackend(backendInput);
  const answers: (PickedSession | null)[] = [];
  const view = renderWithProviders(
    <SessionPicker backend={fake.backend} onDone={(picked) => answers.push(picked)} settleMs={0} />,
    { size },
  );
  return { ...view, ...fake, answers };
}

describe('SessionPicker', () => {
  it('lists sessions newest first with status symbol, mode, progress, age and cost', async () => {
    const view = renderPicker({ sessions });
    const frame = await view.waitForFrame((text) => text.includes('Fix OCR errors'));
    expect(frame).toContain('3 of 3');
    const row = frame.split('\n').find((line) => line.includes('Fix OCR errors')) ?? '';
    expect(row).toMatch(/›\s+‖\s+Fix OCR errors\s+iterative\s+7\/15 chunks\s+2h ago\s+\$0\.12/);
    expect(frame.indexOf('Fix OCR errors')).toBeLessThan(frame.indexOf('Evaluate AI brain idea'));
  });

  it('Enter resumes an unfinished session and c continues one', async () => {
    const view = renderPicker({ sessions });
    await view.waitForFrame((text) => text.includes('Fix OCR errors'));
    await view.press(keys.enter);
    expect(view.answers).toEqual([{ action: 'resume', sessionId: sessionId(3), summary: sessions[0] }]);
    const again = renderPicker({ sessions });
    await again.waitForFrame((text) => text.includes('Fix OCR errors'));
    await again.press('c');
    expect(again.answers[0]).toMatchObject({ action: 'continue', sessionId: sessionId(3) });
  });

  it('Enter or c on a session a program wrote stays in the picker and says where it goes on', async () => {
    const advice =
      'Continue it from your app: run the graph again with thread_id "ticket-42" and the same checkpointer store.';
    const view = renderPicker({ sessions, notRunnable: { [sessionId(3)]: advice } });
    await view.waitForFrame((text) => text.includes('Fix OCR errors'));
    await view.press(keys.enter);
    const frame = await view.waitForFrame((text) => text.includes('thread_id "ticket-42"'));
    expect(frame).toContain('Fix OCR errors');
    await view.press('c');
    expect(view.answers).toEqual([]);
    // Another session is handed over as before.
    await view.press('j', keys.enter);
    await view.waitForFrame(() => view.answers.length === 1, 'the session handed over');
    expect(view.answers[0]).toMatchObject({ action: 'continue', sessionId: sessionId(2) });
  });

  it('wraps a notice longer than the terminal is wide, and keeps the frame within the terminal', async () => {
    const advice =
      'Continue it from your app: run the graph again with thread_id "ticket-42" and the same checkpointer store.';
    const view = renderPicker({ sessions, notRunnable: { [sessionId(3)]: advice } }, { columns: 60, rows: 24 });
    await view.waitForFrame((text) => text.includes('Fix OCR e'));
    await view.press(keys.enter);
    const frame = await view.waitForFrame((text) => text.includes('thread_id "ticket-42"'));
    expect(frame.replace(/\s+/g, ' ')).toContain(advice);
    expect(frame).toContain('Fix OCR e');
    expect(frame.split('\n').length).toBeLessThanOrEqual(23);
  });

  it('widens the progress column to a long count, keeping the columns after it in line and the rows within the terminal', async () => {
    const thread = summary({
      id: sessionId(4),
      title: 'LangGraph thread ticket-42',
      mode: 'langgraph',
      status: 'interrupted',
      progress: { label: 'checkpoints', done: 10002, total: null },
      updatedAt: '2026-03-01T11:00:00.000Z',
    });
    const view = renderPicker({ sessions: [thread, ...sessions] }, { columns: 90, rows: 24 });
    const frame = await view.waitForFrame((text) => text.includes('Fix OCR errors'));
    const lines = frame.split('\n');
    const row = lines.find((line) => line.includes('LangGraph thread')) ?? '';
    expect(row).toContain(' 10002 checkpoints ');
    const header = lines.find((line) => line.includes('PROGRESS')) ?? '';
    const other = lines.find((line) => line.includes('Fix OCR errors')) ?? '';
    expect(other.indexOf('7/15 chunks')).toBe(header.indexOf('PROGRESS'));
    expect(row.indexOf('10002')).toBe(header.indexOf('PROGRESS'));
    expect(other.indexOf('$0.12')).toBe(header.indexOf('COST'));
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(90);
  });

  it('j moves down, Enter on a completed session continues it', async () => {
    const view = renderPicker({ sessions });
    await view.waitForFrame((text) => text.includes('Fix OCR errors'));
    await view.press('j', keys.enter);
    expect(view.answers[0]).toMatchObject({ action: 'continue', sessionId: sessionId(2) });
  });

  it('q leaves without picking anything', async () => {
    const view = renderPicker({ sessions });
    await view.waitForFrame((text) => text.includes('Fix OCR errors'));
    await view.press('q');
    expect(view.answers).toEqual([null]);
  });

  it('/ searches message content lazily and shows the matching snippet', async () => {
    const view = renderPicker({
      sessions,
      content: {
        [sessionId(1)]: [
          { role: 'assistant', speaker: 'critic', round: 1, content: 'It would not scale on kubernetes.' },
        ],
      },
    });
    await view.waitForFrame((text) => text.includes('Fix OCR errors'));
    expect(view.contentLoads).toEqual([]);
    await view.press('/', 'k', 'u', 'b', 'e');
    const frame = await view.waitForFrame((text) => text.includes('critic:'), 'the content snippet');
    expect(frame).toContain('Evaluate AI brain idea');
    expect(frame).not.toContain('Fix OCR errors');
    expect(frame).toContain('not scale on kube');
    await view.press(keys.enter, keys.enter);
    expect(view.answers[0]).toMatchObject({ sessionId: sessionId(1) });
  });

  it('takes "/" and the query typed as one chunk (fast typing, paste)', async () => {
    const view = renderPicker({ sessions });
    await view.waitForFrame((text) => text.includes('Fix OCR errors'));
    await view.press('/auth');
    const frame = await view.waitForFrame((text) => text.includes('/ auth'), 'the search box');
    expect(frame).toContain('1 of 3');
    expect(frame).toContain('Review authentication code');
    await view.press('\r\r');
    expect(view.answers[0]).toMatchObject({ action: 'continue', sessionId: sessionId(2) });
  });

  it('acts on the session a key before it selected, though the picker has not drawn it yet (one chunk)', async () => {
    const view = renderPicker({ sessions });
    await view.waitForFrame((text) => text.includes('Fix OCR errors'));
    await view.press('jp');
    const frame = await view.waitForFrame((text) => text.includes('Pinned'), 'the pin notice');
    expect(frame).toContain('Pinned "Review authentication code"');
    await view.press('jc');
    expect(view.answers[0]).toMatchObject({ action: 'continue', sessionId: sessionId(3) });
  });

  it('d asks for confirmation and deletes only on y', async () => {
    const view = renderPicker({ sessions });
    await view.waitForFrame((text) => text.includes('Fix OCR errors'));
    await view.press('d');
    await view.waitForFrame((text) => text.includes('Move "Fix OCR errors" to the trash?'));
    await view.press('n');
    expect(view.deleted).toEqual([]);
    await view.press('d', 'y');
    const frame = await view.waitForFrame((text) => text.includes(`Moved ${sessionId(3)} to the trash`));
    expect(view.deleted).toEqual([sessionId(3)]);
    expect(frame).toContain('2 of 2');
  });

  it("shows a LangGraph thread's checkpoints as its graph's, and the command that lists them", async () => {
    const view = renderPicker({
      sessions,
      details: (id) => ({
        sessionId: id,
        lineage: [],
        checkpoints: [],
        graphCheckpoints: 7,
        plan: null,
        lineageCostUsd: null,
      }),
    });
    const frame = await view.waitForFrame((text) => text.includes('Checkpoints'), 'the details pane');
    expect(frame).toContain('Checkpoints: 7 of the graph (listed by conclave checkpoints list)');
  });

  it('s filters by status', async () => {
    const view = renderPicker({ sessions });
    await view.waitForFrame((text) => text.includes('Fix OCR errors'));
    await view.press('s');
    const frame = await view.waitForFrame((text) => text.includes('status: interrupted'));
    expect(frame).toContain('1 of 3');
    expect(frame).not.toContain('Review authentication code');
  });

  it('shows lineage, checkpoints and the resume plan of the selected session', async () => {
    const view = renderPicker({
      sessions,
      details: (id) => ({
        sessionId: id,
        lineage: [
          { id: 'root', title: 'Original question', status: 'completed', depth: 0, current: false, branchPoint: null },
          { id, title: 'Follow-up', status: 'interrupted', depth: 1, current: true, branchPoint: null },
        ],
        checkpoints: [{ seq: 43, label: 'chunk 7/15', at: '2026-03-01T10:00:00.000Z' }],
        plan: { position: 'chunk 8 of 15', skipped: ['a', 'b'], uncertain: [], next: ['chunk 8 of 15'], warnings: [] },
        lineageCostUsd: 0.5,
      }),
    });
    const frame = await view.waitForFrame((text) => text.includes('Checkpoints'), 'the details pane');
    expect(frame).toContain('Lineage: ✓ Original question');
    expect(frame).toMatch(/└ ‖ Follow-up\s+← this/);
    expect(frame).toContain('Checkpoints: 1, last #43 "chunk 7/15"');
    expect(frame).toContain('Plan: resume from chunk 8 of 15 · skip 2 done');
    // The place it resumes from is what runs next: it is not said twice.
    expect(frame).not.toContain('next: chunk 8 of 15');
  });

  it('names what runs next when it is not the place the resume starts from', async () => {
    const view = renderPicker({
      sessions,
      details: (id) => ({
        sessionId: id,
        lineage: [],
        checkpoints: [{ seq: 12, label: 'step tests', at: '2026-03-01T10:00:00.000Z' }],
        plan: { position: 'step tests', skipped: [], uncertain: ['deploy'], next: ['step docs'], warnings: [] },
        lineageCostUsd: 0,
      }),
    });
    const frame = await view.waitForFrame((text) => text.includes('Checkpoints'), 'the details pane');
    expect(frame).toContain('Plan: resume from step tests · 1 uncertain · next: step docs');
  });

  it('keeps a space between a long title and its mode at 80 columns', async () => {
    const long = summary({
      id: sessionId(9),
      title: 'A very long session title that certainly does not fit into the title column',
      mode: 'orchestrated',
      status: 'completed',
    });
    const view = renderPicker({ sessions: [long] }, { columns: 80, rows: 24 });
    const frame = await view.waitForFrame((text) => text.includes('A very long'));
    const row = frame.split('\n').find((line) => line.includes('A very long')) ?? '';
    expect(row).toMatch(/…\s+orchestrated\s/);
    expect(row.length).toBeLessThanOrEqual(80);
  });

  it('renders only a window of 1,000 sessions and keeps the cursor visible in 80x24', async () => {
    const many = Array.from({ length: 1000 }, (_, index) =>
      summary({ id: sessionId(1000 - index), title: `Task number ${1000 - index}` }),
    );
    const view = renderPicker({ sessions: many }, { columns: 80, rows: 24 });
    const first = await view.waitForFrame((text) => text.includes('1000 of 1000'));
    expect(first.split('\n').length).toBeLessThanOrEqual(23);
    expect(first.split('\n').every((line) => line.length <= 80)).toBe(true);
    expect(first).not.toContain('Task number 900');
    // The key help wraps between its keys instead of being cut off.
    expect(first).toContain('q quit');
    expect(first).toContain('w this dir/all');
    await view.press(...Array.from({ length: 12 }, () => keys.down));
    const moved = await view.waitForFrame((text) => text.includes('› ✓ Task number 988'));
    expect(moved).not.toContain('Task number 1000 ');
  });
});
