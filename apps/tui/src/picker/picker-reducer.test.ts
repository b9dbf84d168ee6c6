import { describe, expect, it } from 'vitest';
import { sessionId, summary } from '../testing/fake-backend.js';
import {
  initialPickerState,
  listWindow,
  type PickerAction,
  type PickerState,
  pickerReducer,
  selectedSession,
  visibleSessions,
} from './picker-reducer.js';

function run(actions: PickerAction[], state: PickerState = initialPickerState()): PickerState {
  return actions.reduce(pickerReducer, state);
}

const sessions = [
  summary({ id: sessionId(3), title: 'Fix OCR errors', mode: 'iterative', status: 'interrupted' }),
  summary({ id: sessionId(2), title: 'Review authentication code', mode: 'orchestrated', status: 'completed' }),
  summary({ id: sessionId(1), title: 'Evaluate AI brain idea', mode: 'discussion', status: 'failed' }),
];

describe('pickerReducer', () => {
  it('lists sessions waiting for an answer first, and the status filter reaches them', () => {
    const mixed = [
      summary({ id: sessionId(4), title: 'Newest, finished', status: 'completed' }),
      summary({
        id: sessionId(3),
        title: 'Needs approval',
        status: 'waiting',
        waitingFor: { key: 'approval', prompt: 'Ship it?' },
      }),
      summary({ id: sessionId(2), title: 'Interrupted', status: 'interrupted' }),
    ];
    const loaded = run([{ type: 'sessions-loaded', sessions: mixed }]);
    expect(visibleSessions(loaded).map((session) => session.title)).toEqual([
      'Needs approval',
      'Newest, finished',
      'Interrupted',
    ]);
    expect(selectedSession(loaded)?.title).toBe('Needs approval');
    const waitingOnly = run(Array(5).fill({ type: 'status-filter-cycled' }), loaded);
    expect(waitingOnly.statusFilter).toBe('waiting');
    expect(visibleSessions(waitingOnly).map((session) => session.title)).toEqual(['Needs approval']);
  });

  it('starts on the sessions of the directory it was opened from; w switches to every workspace and back', () => {
    const spread = [
      summary({ id: sessionId(3), title: 'Here, newest', workspaceDir: '/work/here' }),
      summary({ id: sessionId(2), title: 'Elsewhere', workspaceDir: '/work/elsewhere' }),
      summary({ id: sessionId(1), title: 'Here, older', workspaceDir: '/work/here' }),
    ];
    const here = run(
      [{ type: 'sessions-loaded', sessions: spread }],
      initialPickerState({ workspaceDir: '/work/here' }),
    );
    expect(visibleSessions(here).map((item) => item.title)).toEqual(['Here, newest', 'Here, older']);
    const all = run([{ type: 'workspace-filter-toggled' }], here);
    expect(visibleSessions(all).map((item) => item.title)).toEqual(['Here, newest', 'Elsewhere', 'Here, older']);
    expect(visibleSessions(run([{ type: 'workspace-filter-toggled' }], all))).toHaveLength(2);
    // Opened where nothing ran: every workspace, and it says so.
    const nowhere = run(
      [{ type: 'sessions-loaded', sessions: spread }],
      initialPickerState({ workspaceDir: '/work/new' }),
    );
    expect(visibleSessions(nowhere)).toHaveLength(3);
    expect(nowhere.notice).toContain('No session ran in this directory');
    // The full-screen browser starts on all of them.
    const browser = run(
      [{ type: 'sessions-loaded', sessions: spread }],
      initialPickerState({ workspaceDir: '/work/here', onlyThisDirectory: false }),
    );
    expect(visibleSessions(browser)).toHaveLength(3);
  });

  it('selects the newest session once summaries load and moves within bounds', () => {
    const loaded = run([{ type: 'sessions-loaded', sessions }]);
    expect(loaded.loading).toBe(false);
    expect(selectedSession(loaded)?.title).toBe('Fix OCR errors');
    const down = run(
      [
        { type: 'moved', by: 1 },
        { type: 'moved', by: 5 },
      ],
      loaded,
    );
    expect(selectedSession(down)?.title).toBe('Evaluate AI brain idea');
    const up = run([{ type: 'moved', by: -10 }], down);
    expect(selectedSession(up)?.title).toBe('Fix OCR errors');
  });

  it('filters titles as the query is typed and keeps the selection on a visible session', () => {
    const state = run([
      { type: 'sessions-loaded', sessions },
      { type: 'search-opened' },
      { type: 'query-typed', text: 'a' },
      { type: 'query-typed', text: 'uth' },
    ]);
    expect(visibleSessions(state).map((session) => session.title)).toEqual(['Review authentication code']);
    expect(selectedSession(state)?.title).toBe('Review authentication code');
    const erased = run([{ type: 'search-closed', keepQuery: false }], state);
    expect(visibleSessions(erased)).toHaveLength(3);
    expect(erased.query).toBe('');
  });

  it('adds content matches of the current query only', () => {
    const base = run([
      { type: 'sessions-loaded', sessions },
      { type: 'query-typed', text: 'kubernetes' },
      { type: 'content-search-started', query: 'kubernetes' },
    ]);
    expect(visibleSessions(base)).toHaveLength(0);
    const match = {
      sessionId: sessionId(1),
      snippet: 'use kubernetes',
      matchStart: 4,
      matchEnd: 14,
      speaker: 'critic',
    };
    const stale = run([{ type: 'content-matched', query: 'kube', match }], base);
    expect(visibleSessions(stale)).toHaveLength(0);
    const found = run([{ type: 'content-matched', query: 'kubernetes', match }], base);
    expect(visibleSessions(found).map((session) => session.id)).toEqual([sessionId(1)]);
    expect(selectedSession(found)?.id).toBe(sessionId(1));
  });

  it('cycles status and mode filters back to all', () => {
    let state = run([{ type: 'sessions-loaded', sessions }, { type: 'status-filter-cycled' }]);
    expect(state.statusFilter).toBe('interrupted');
    expect(visibleSessions(state).map((session) => session.title)).toEqual(['Fix OCR errors']);
    state = run(
      Array.from({ length: 6 }, () => ({ type: 'status-filter-cycled' }) as const),
      state,
    );
    expect(state.statusFilter).toBeNull();
    state = run([{ type: 'mode-filter-cycled' }], state);
    expect(state.modeFilter).toBe('discussion');
    expect(visibleSessions(state).map((session) => session.title)).toEqual(['Evaluate AI brain idea']);
  });

  it('deletes only after a request and moves the cursor to the neighbour', () => {
    const loaded = run([
      { type: 'sessions-loaded', sessions },
      { type: 'moved', by: 1 },
    ]);
    const cancelled = run([{ type: 'delete-requested' }, { type: 'delete-cancelled' }], loaded);
    expect(cancelled.sessions).toHaveLength(3);
    expect(cancelled.mode).toBe('browse');
    const deleted = run([{ type: 'delete-requested' }, { type: 'session-deleted', sessionId: sessionId(2) }], loaded);
    expect(deleted.sessions.map((session) => session.id)).not.toContain(sessionId(2));
    expect(selectedSession(deleted)?.id).toBe(sessionId(1));
    expect(deleted.notice).toContain(sessionId(2));
  });

  it('reports a failed deletion without removing the session', () => {
    const state = run([
      { type: 'sessions-loaded', sessions },
      { type: 'delete-requested' },
      { type: 'delete-failed', message: 'Session is in use by pid 42' },
    ]);
    expect(state.sessions).toHaveLength(3);
    expect(state.notice).toBe('Session is in use by pid 42');
  });
});

describe('listWindow', () => {
  it('draws only a window around the cursor', () => {
    expect(listWindow(1000, 0, 10)).toEqual({ start: 0, end: 10 });
    expect(listWindow(1000, 500, 10)).toEqual({ start: 495, end: 505 });
    expect(listWindow(1000, 999, 10)).toEqual({ start: 990, end: 1000 });
    expect(listWindow(3, 2, 10)).toEqual({ start: 0, end: 3 });
  });
});
