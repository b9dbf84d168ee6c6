import { PassThrough } from 'node:stream';
import { cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { renderWithProviders } from '../testing/render-with-providers.js';
import { createLiveRunView } from './create-live-run-view.js';
import { initialLiveRunState, type LiveRunEvent, liveRunReducer } from './live-run-reducer.js';
import { LiveRunView } from './live-run-view.js';

afterEach(() => cleanup());

const events: LiveRunEvent[] = [
  { type: 'run-started', sessionId: 's1', mode: 'discussion', resumed: false },
  { type: 'progress', label: 'round', done: 1, total: 3 },
  { type: 'turn-started', agent: 'architect', round: 1 },
  { type: 'delta', agent: 'architect', text: 'Scale first.' },
  {
    type: 'turn-completed',
    message: { role: 'assistant', speaker: 'architect', round: 1, content: 'Scale first.' },
    replayed: false,
  },
  { type: 'turn-started', agent: 'critic', round: 1 },
  { type: 'delta', agent: 'critic', text: 'Cost matt' },
  { type: 'usage', totals: { inputTokens: 1500, outputTokens: 300, costUsd: 0.02 } },
];

describe('LiveRunView', () => {
  it('shows finished turns, the streaming agent, progress, cost and the Ctrl+C hint', async () => {
    const state = events.reduce(
      (current, event) => liveRunReducer(current, { type: 'event', event }),
      initialLiveRunState,
    );
    const view = renderWithProviders(<LiveRunView state={state} />);
    const frame = await view.waitForFrame((text) => text.includes('Cost matt'));
    expect(frame).toContain('[architect] round 1\nScale first.');
    expect(frame).toContain('[critic] round 1 …');
    expect(frame).toContain('round 1 of 3 · 1.5k in / 300 out tokens · $0.02 · Ctrl+C saves a checkpoint and stops');
  });

  it('shows the last lines of the running command under its step, and drops them when the next step starts', async () => {
    const running: LiveRunEvent[] = [
      { type: 'run-started', sessionId: 's1', mode: 'chain', resumed: false, roundUnit: 'step' },
      { type: 'progress', label: 'steps', done: 1, total: 2 },
      { type: 'shell-output', step: 'build', text: 'compiling a\ncompiling b\n' },
      { type: 'shell-output', step: 'build', text: 'compiling c\ncompiling d\n' },
    ];
    const state = running.reduce(
      (current, event) => liveRunReducer(current, { type: 'event', event }),
      initialLiveRunState,
    );
    const view = renderWithProviders(<LiveRunView state={state} />);
    const frame = await view.waitForFrame((text) => text.includes('compiling d'));
    expect(frame).toMatch(/│ compiling b\n\s*│ compiling c\n\s*│ compiling d\n/);
    expect(frame).not.toContain('compiling a');
    const next = liveRunReducer(state, {
      type: 'event',
      event: { type: 'progress', label: 'steps', done: 2, total: 2 },
    });
    const after = renderWithProviders(<LiveRunView state={next} />);
    expect(await after.waitForFrame((text) => text.includes('steps 2 of 2'))).not.toContain('compiling');
  });

  it("names a chunked run's passes chunks", async () => {
    const chunked: LiveRunEvent[] = [
      { type: 'run-started', sessionId: 's1', mode: 'iterative', resumed: false, roundUnit: 'chunk' },
      { type: 'turn-started', agent: 'reader', round: 2 },
      { type: 'delta', agent: 'reader', text: 'Noted.' },
      {
        type: 'turn-completed',
        message: { role: 'assistant', speaker: 'reader', round: 2, content: 'Noted.' },
        replayed: false,
      },
      { type: 'turn-started', agent: 'critic', round: 2 },
      { type: 'delta', agent: 'critic', text: 'Hmm' },
    ];
    const state = chunked.reduce(
      (current, event) => liveRunReducer(current, { type: 'event', event }),
      initialLiveRunState,
    );
    const view = renderWithProviders(<LiveRunView state={state} />);
    const frame = await view.waitForFrame((text) => text.includes('Hmm'));
    expect(frame).toContain('[reader] chunk 2\nNoted.');
    expect(frame).toContain('[critic] chunk 2 …');
    expect(frame).not.toContain('round 2');
  });
});

/** A live view writing to a pipe (no terminal), and what it has written so far. */
function plainView() {
  const stdout = new PassThrough();
  let text = '';
  stdout.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  const view = createLiveRunView({
    stdout: stdout as unknown as NodeJS.WriteStream,
    stdin: new PassThrough() as unknown as NodeJS.ReadStream,
    env: {},
  });
  return { view, output: () => text };
}

describe('LiveRunView on a resume', () => {
  it('shows the restored turns counted while the first new turn starts', async () => {
    const state = [
      { type: 'run-started', sessionId: 's1', mode: 'discussion', resumed: true },
      {
        type: 'turn-completed',
        message: { role: 'assistant', speaker: 'architect', round: 1, content: 'Scale first.' },
        replayed: true,
      },
      { type: 'turn-started', agent: 'critic', round: 1 },
    ].reduce(
      (current, event) => liveRunReducer(current, { type: 'event', event: event as LiveRunEvent }),
      initialLiveRunState,
    );
    const view = renderWithProviders(<LiveRunView state={state} />);
    const frame = await view.waitForFrame((text) => text.includes('[critic] round 1'));
    expect(frame).toContain('↺ 1 turn restored from the journal (not run again)\n[critic] round 1 …');
  });
});

describe('createLiveRunView without a terminal', () => {
  it('writes plain lines: turns, progress, and the resume command on interrupt', async () => {
    const { view, output } = plainView();
    for (const event of events) view.onEvent(event);
    await view.finish({ status: 'interrupted', sessionId: 's1', resumeCommand: 'conclave --resume s1' });
    const text = output();
    expect(text).toContain('Session s1 (discussion)\n');
    expect(text).toContain('· round 1/3\n');
    expect(text).toContain('[architect] round 1\nScale first.\n');
    expect(text).not.toContain('Cost matt');
    expect(text).toContain('Interrupted; checkpoint saved. Resume with:\n  conclave --resume s1\n');
    expect(text).not.toContain('\u001B[');
  });
});

describe('createLiveRunView when a resume was declined', () => {
  it('says the session was not resumed and is unchanged, not that it was interrupted', async () => {
    const { view, output } = plainView();
    view.onEvent({ type: 'notice', text: 'Resume cancelled; nothing was changed.' });
    await view.finish({
      status: 'interrupted',
      sessionId: 's1',
      resumeCommand: 'conclave --resume s1',
      cancelled: true,
    });
    const text = output();
    expect(text).toContain('Not resumed; session s1 is unchanged. Resume it later with:\n  conclave --resume s1\n');
    expect(text).not.toContain('Interrupted');
    expect(text).not.toContain('checkpoint saved');
  });
});

describe('createLiveRunView after an interrupt', () => {
  it('names the checkpoint the run stopped at', async () => {
    const { view, output } = plainView();
    await view.finish({
      status: 'interrupted',
      sessionId: 's1',
      resumeCommand: 'conclave --resume s1',
      savedAt: 'chunk 3/15, agent critic',
    });
    expect(output()).toContain(
      'Interrupted; checkpoint saved at "chunk 3/15, agent critic". Resume with:\n  conclave --resume s1\n',
    );
  });
});

describe('createLiveRunView with hostile text', () => {
  it('writes plain lines with the terminal controls of turns, progress and errors shown, not acting', async () => {
    const hostile = 'x \u001b]0;PWNED\u0007\u001b[2J \u009b31m \u202egnp.exe';
    const { view, output } = plainView();
    view.onEvent({ type: 'run-started', sessionId: 's1', mode: 'discussion', resumed: false });
    view.onEvent({
      type: 'turn-completed',
      message: { role: 'assistant', speaker: 'architect', round: 1, content: hostile },
      replayed: false,
    });
    view.onEvent({ type: 'progress', label: `round ${hostile}`, done: 1, total: 2 });
    await view.finish({ status: 'failed', sessionId: 's1', message: hostile });
    expect(output()).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(output()).toContain('x ␛]0;PWNED␇␛[2J <U+009B>31m <U+202E>gnp.exe');
  });
});
