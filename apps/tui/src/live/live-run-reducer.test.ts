import { describe, expect, it } from 'vitest';
import {
  describeBranch,
  describeItems,
  initialLiveRunState,
  type LiveRunAction,
  type LiveRunEvent,
  liveRunReducer,
  tailLines,
} from './live-run-reducer.js';

const event = (value: LiveRunEvent): LiveRunAction => ({ type: 'event', event: value });
const message = (speaker: string, content: string, round: number) => ({
  role: 'assistant',
  speaker,
  content,
  round,
});

describe('liveRunReducer', () => {
  it('streams the current turn and moves it to the finished items when completed', () => {
    let state = [
      event({ type: 'run-started', sessionId: 's1', mode: 'discussion', resumed: false }),
      event({ type: 'turn-started', agent: 'architect', round: 1 }),
      event({ type: 'delta', agent: 'architect', text: 'Hello ' }),
      event({ type: 'delta', agent: 'architect', text: 'world' }),
    ].reduce(liveRunReducer, initialLiveRunState);
    expect(state.current).toEqual({ agent: 'architect', round: 1, unit: 'round', text: 'Hello world' });
    state = liveRunReducer(state, event({ type: 'turn-completed', message: message('architect', 'Hello world', 1) }));
    expect(state.current).toBeNull();
    expect(state.items.map((item) => item.kind)).toEqual(['started', 'turn']);
  });

  it('announces turns restored from the journal as one line instead of printing each', () => {
    const state = [
      event({ type: 'run-started', sessionId: 's1', mode: 'discussion', resumed: true }),
      event({ type: 'turn-completed', message: message('a', 'one', 1), replayed: true }),
      event({ type: 'turn-completed', message: message('b', 'two', 1), replayed: true }),
      event({ type: 'turn-started', agent: 'c', round: 1 }),
      event({ type: 'delta', agent: 'c', text: 'Now' }),
    ].reduce(liveRunReducer, initialLiveRunState);
    expect(state.items.at(-1)).toMatchObject({ kind: 'replayed', count: 2 });
    expect(state.items.filter((item) => item.kind === 'turn')).toHaveLength(0);
  });

  it('counts restored turns in one line even when their starts were announced, and nobody is left speaking', () => {
    const state = [
      event({ type: 'run-started', sessionId: 's1', mode: 'discussion', resumed: true }),
      event({ type: 'turn-started', agent: 'a', round: 1 }),
      event({ type: 'turn-completed', message: message('a', 'one', 1), replayed: true }),
      event({ type: 'turn-started', agent: 'b', round: 1 }),
      event({ type: 'turn-completed', message: message('b', 'two', 1), replayed: true }),
      event({ type: 'turn-started', agent: 'c', round: 1 }),
      event({ type: 'turn-completed', message: message('c', 'three', 1), replayed: true }),
    ].reduce(liveRunReducer, initialLiveRunState);
    expect(state.current).toBeNull();
    const live = [
      event({ type: 'turn-started', agent: 'judge', round: 1 }),
      event({ type: 'delta', agent: 'judge', text: 'Verdict' }),
      event({ type: 'turn-completed', message: message('judge', 'Verdict', 1) }),
    ].reduce(liveRunReducer, state);
    expect(live.items.map((item) => item.kind)).toEqual(['started', 'replayed', 'turn']);
    expect(live.items[1]).toMatchObject({ kind: 'replayed', count: 3 });
  });

  it('keeps progress, usage and the last checkpoint, and records the outcome once finished', () => {
    const actions: LiveRunAction[] = [
      event({ type: 'progress', label: 'chunk', done: 8, total: 15 }),
      event({ type: 'usage', totals: { inputTokens: 10, outputTokens: 5, costUsd: 0.01 } }),
      event({ type: 'checkpoint', seq: 42, label: 'chunk 8/15' }),
      { type: 'finished', result: { status: 'interrupted', sessionId: 's1', resumeCommand: 'conclave --resume s1' } },
    ];
    const state = actions.reduce(liveRunReducer, initialLiveRunState);
    expect(state.progress).toEqual({ label: 'chunk', done: 8, total: 15 });
    expect(state.checkpoint?.seq).toBe(42);
    expect(state.finished?.status).toBe('interrupted');
    expect(state.items.at(-1)?.kind).toBe('finished');
  });
});

describe('parallel groups in the live view', () => {
  it('shows a state line per step while the group runs, and one summary line once it joined', () => {
    const group = (branches: Array<[string, 'running' | 'completed' | 'failed' | 'waiting']>, finished = false) =>
      event({
        type: 'parallel',
        group: 'checks',
        number: 2,
        finished,
        branches: branches.map(([id, state]) => ({ id, state, detail: id === 'lint' ? 'attempt 2/3' : null })),
      });
    let state = [
      group([
        ['lint', 'running'],
        ['test', 'waiting'],
      ]),
      group([
        ['lint', 'running'],
        ['test', 'completed'],
      ]),
    ].reduce(liveRunReducer, initialLiveRunState);
    expect(state.parallel?.number).toBe(2);
    expect(state.parallel?.branches.map(describeBranch)).toEqual([
      '▸ lint  running · attempt 2/3',
      '✓ test  completed',
    ]);
    expect(state.items).toEqual([]);
    state = liveRunReducer(
      state,
      group(
        [
          ['lint', 'failed'],
          ['test', 'completed'],
        ],
        true,
      ),
    );
    expect(state.parallel).toBeNull();
    expect(state.items.map((item) => (item.kind === 'notice' ? item.text : item.kind))).toEqual([
      'step 2 parallel: lint failed, test completed',
    ]);
  });
});

describe('map steps in the live view', () => {
  it('keeps the latest item counts for the status line: done, running, failed', () => {
    const state = [
      event({ type: 'map-progress', stepId: 'review', total: 40, done: 0, running: 0, failed: 0 }),
      event({ type: 'map-progress', stepId: 'review', total: 40, done: 0, running: 4, failed: 0 }),
      event({ type: 'map-progress', stepId: 'review', total: 40, done: 12, running: 4, failed: 1 }),
    ].reduce(liveRunReducer, initialLiveRunState);
    expect(state.mapItems).toEqual({ stepId: 'review', total: 40, done: 12, running: 4, failed: 1 });
    expect(describeItems(state.mapItems as NonNullable<typeof state.mapItems>)).toBe(
      'items 12/40 done · 4 running · 1 failed',
    );
    // Counts are status, not history: nothing is added to the finished items.
    expect(state.items).toEqual([]);
  });
});

describe('tailLines', () => {
  it('wraps at the width and keeps the last lines', () => {
    expect(tailLines('abcdefghij\nxy', 4, 3)).toEqual(['efgh', 'ij', 'xy']);
    expect(tailLines('short', 80, 0)).toEqual([]);
  });
});
