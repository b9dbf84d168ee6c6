import type { RunEvent, RunResult } from '@resume/runner';
import { describe, expect, it } from 'vitest';
import { createTerminal } from '../output/terminal.js';
import { createPlainRunView } from './progress.js';

/** A plain run view writing to a buffer, and the lines it wrote to stderr. */
function plainView() {
  let stderr = '';
  const terminal = createTerminal(
    { stdout: { write: () => true }, stderr: { write: (text: string) => (stderr += text) } },
    { color: false, quiet: false, env: {} },
  );
  return { view: createPlainRunView(terminal), lines: () => stderr.split('\n').filter((line) => line !== '') };
}

const turn = (speaker: string, round: number, replayed: boolean): RunEvent => ({
  type: 'turn-completed',
  message: { role: 'assistant', speaker, round, content: `${speaker} says round ${round}` },
  replayed,
});

const result = (status: RunResult['status']): RunResult => ({
  sessionId: 's1',
  status,
  conclusion: null,
  resumeCommand: null,
  usage: { inputTokens: 0, outputTokens: 0, costUsd: 0, calls: 0 },
  error: null,
});

describe('plain run view', () => {
  it('counts turns restored on a resume in one line, then says where the run picks up', async () => {
    const { view, lines } = plainView();
    const events: RunEvent[] = [
      { type: 'run-started', sessionId: 's1', mode: 'discussion', resumed: true, roundUnit: 'round' },
      { type: 'progress', label: 'rounds', done: 0, total: 4 },
      turn('architect', 1, true),
      turn('judge', 1, true),
      { type: 'progress', label: 'rounds', done: 1, total: 4 },
      turn('architect', 2, true),
      turn('judge', 2, true),
      { type: 'progress', label: 'rounds', done: 2, total: 4 },
      turn('architect', 3, true),
      { type: 'turn-started', agent: 'judge', round: 3, stepKey: 'round-3/judge' },
      turn('judge', 3, false),
    ];
    for (const event of events) view.onEvent(event);
    await view.finish(result('completed'), null);
    expect(lines()).toEqual([
      '→ Resuming session s1 (discussion)',
      '  ↺ 5 turns restored from the journal (not run again)',
      '  rounds 2/4',
      '  round 3 · judge is speaking…',
      '  [judge] judge says round 3',
    ]);
  });

  it('still says how many turns were restored when the run stops before anything new happens', async () => {
    const { view, lines } = plainView();
    view.onEvent({ type: 'run-started', sessionId: 's1', mode: 'discussion', resumed: true, roundUnit: 'round' });
    view.onEvent(turn('architect', 1, true));
    await view.finish(result('interrupted'), null);
    expect(lines()).toContain('  ↺ 1 turn restored from the journal (not run again)');
  });

  it("names a chunked run's passes chunks", async () => {
    const { view, lines } = plainView();
    view.onEvent({ type: 'run-started', sessionId: 's1', mode: 'iterative', resumed: false, roundUnit: 'chunk' });
    view.onEvent({ type: 'turn-started', agent: 'critic', round: 3, stepKey: 'chunk-3/critic' });
    expect(lines()).toContain('  chunk 3 · critic is speaking…');
  });
});
