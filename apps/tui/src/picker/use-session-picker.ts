// The picker's behaviour: loads summaries first (instant), searches content lazily
// in the background, loads the details of the session under the cursor, deletes
// after confirmation, and turns keys into reducer actions.
import type { SessionSummary } from '@resume/core/spec';
import { useInput } from 'ink';
import { useEffect, useReducer, useRef } from 'react';
import type { TuiBackend } from '../backend/tui-backend.js';
import { confirmCommand, type KeyPress, pickerCommand, searchInputCommand } from '../keys/key-bindings.js';
import {
  initialPickerState,
  type PickerState,
  pickerReducer,
  selectedSession,
  titleMatches,
  visibleSessions,
} from './picker-reducer.js';

export type PickedAction = 'resume' | 'continue';

export interface PickedSession {
  action: PickedAction;
  sessionId: string;
  summary: SessionSummary;
}

/** Enter resumes what is unfinished and continues what is completed. */
export function defaultAction(summary: SessionSummary): PickedAction {
  return summary.status === 'completed' ? 'continue' : 'resume';
}

export interface UseSessionPickerOptions {
  backend: TuiBackend;
  onDone: (picked: PickedSession | null) => void;
  /** Rows one PgUp/PgDn moves. */
  pageSize: number;
  /** Off: `d` does nothing (e.g. when the picker only chooses what to continue). */
  allowDelete?: boolean;
  /** The directory the picker is opened from: it starts on this directory's sessions (`w`: all). */
  workspaceDir?: string;
  /** Start on every workspace (the full-screen browser); `w` narrows to `workspaceDir`. */
  allWorkspaces?: boolean;
  /** Debounce before content search and details loading start, so fast typing/scrolling stays cheap. */
  settleMs?: number;
}

export interface SessionPickerModel {
  state: PickerState;
  visible: SessionSummary[];
  selected: SessionSummary | null;
}

export function useSessionPicker(options: UseSessionPickerOptions): SessionPickerModel {
  const { backend, onDone, pageSize, allowDelete = true, settleMs = 120 } = options;
  const [state, dispatch] = useReducer(pickerReducer, undefined, () =>
    initialPickerState({
      workspaceDir: options.workspaceDir ?? null,
      onlyThisDirectory: !(options.allWorkspaces ?? false),
    }),
  );
  const doneRef = useRef(false);
  const finish = (picked: PickedSession | null) => {
    if (doneRef.current) return;
    doneRef.current = true;
    onDone(picked);
  };

  useEffect(() => {
    let cancelled = false;
    backend.listSessions().then(
      (sessions) => !cancelled && dispatch({ type: 'sessions-loaded', sessions }),
      (error: unknown) => !cancelled && dispatch({ type: 'load-failed', message: errorMessage(error) }),
    );
    return () => {
      cancelled = true;
    };
  }, [backend]);

  // Content search: only sessions whose title does not already match are opened.
  const query = state.query.trim();
  const sessions = state.sessions;
  useEffect(() => {
    if (query === '') return;
    const controller = new AbortController();
    const timer = setTimeout(() => {
      dispatch({ type: 'content-search-started', query });
      const ids = sessions.filter((summary) => !titleMatches(summary, query)).map((summary) => summary.id);
      void (async () => {
        try {
          for await (const match of backend.searchContent(query, ids, controller.signal)) {
            if (controller.signal.aborted) return;
            dispatch({ type: 'content-matched', query, match });
          }
        } catch {
          // A failing search leaves the title matches in place; nothing to add.
        }
        if (!controller.signal.aborted) dispatch({ type: 'content-search-finished', query });
      })();
    }, settleMs);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [backend, query, sessions, settleMs]);

  const selected = selectedSession(state);
  const selectedId = selected?.id ?? null;
  const haveDetails = selectedId !== null && state.details[selectedId] !== undefined;
  useEffect(() => {
    if (selectedId === null || !state.showDetails || haveDetails) return;
    let cancelled = false;
    const timer = setTimeout(() => {
      backend.loadDetails(selectedId).then(
        (details) => !cancelled && dispatch({ type: 'details-loaded', details }),
        () => undefined,
      );
    }, settleMs);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [backend, selectedId, state.showDetails, haveDetails, settleMs]);

  /** Handles one keypress in `mode`; returns the mode the next character of the same chunk sees. */
  const handleKey = (press: KeyPress, mode: PickerState['mode']): PickerState['mode'] => {
    const { key } = press;
    if (mode === 'confirm-delete') {
      const answer = confirmCommand(press);
      if (answer?.type === 'answer' && answer.yes && selected) {
        const id = selected.id;
        backend.deleteSession(id).then(
          () => dispatch({ type: 'session-deleted', sessionId: id }),
          (error: unknown) => dispatch({ type: 'delete-failed', message: errorMessage(error) }),
        );
      } else if (answer !== null) {
        // Enter or anything but "y" keeps the session: deleting is never the default.
        dispatch({ type: 'delete-cancelled' });
      }
      return answer === null ? mode : 'browse';
    }
    if (mode === 'search') {
      const command = searchInputCommand(press);
      if (!command) return mode;
      if (command.type === 'type') dispatch({ type: 'query-typed', text: command.text });
      else if (command.type === 'erase') dispatch({ type: 'query-erased' });
      else if (command.type === 'move') dispatch({ type: 'moved', by: command.by });
      else {
        dispatch({ type: 'search-closed', keepQuery: command.type === 'accept' });
        return 'browse';
      }
      return mode;
    }
    const command = pickerCommand(press);
    if (!command) return mode;
    switch (command.type) {
      case 'move':
        dispatch({ type: 'moved', by: command.by });
        return mode;
      case 'page':
        dispatch({ type: 'moved', by: command.direction * pageSize });
        return mode;
      case 'move-to':
        dispatch({ type: 'moved-to', position: command.position });
        return mode;
      case 'select':
        if (selected) finish({ action: defaultAction(selected), sessionId: selected.id, summary: selected });
        return mode;
      case 'continue':
        if (selected) finish({ action: 'continue', sessionId: selected.id, summary: selected });
        return mode;
      case 'delete':
        if (!allowDelete || !selected) return mode;
        dispatch({ type: 'delete-requested' });
        return 'confirm-delete';
      case 'search':
        dispatch({ type: 'search-opened' });
        return 'search';
      case 'cycle-status':
        dispatch({ type: 'status-filter-cycled' });
        return mode;
      case 'cycle-mode':
        dispatch({ type: 'mode-filter-cycled' });
        return mode;
      case 'toggle-workspace':
        dispatch({ type: 'workspace-filter-toggled' });
        return mode;
      case 'toggle-details':
        dispatch({ type: 'details-toggled' });
        return mode;
      case 'leave':
        // Esc first clears a kept search, then leaves.
        if (state.query !== '' && key.escape) dispatch({ type: 'search-closed', keepQuery: false });
        else finish(null);
        return mode;
    }
  };

  useInput((input, key) => {
    const plainText = input.length > 1 && !key.ctrl && !key.meta && !key.escape;
    if (!plainText) {
      handleKey({ input, key }, state.mode);
      return;
    }
    // Fast typing and pasting arrive as one chunk ("/release"): each character is a key,
    // so "/" opens the search and the rest becomes the query.
    let mode = state.mode;
    for (const character of input) mode = handleKey(keyOfCharacter(character), mode);
  });

  return { state, visible: visibleSessions(state), selected };
}

/** One character of a chunk as the keypress it stands for (Enter, Backspace and Tab arrive as characters). */
function keyOfCharacter(character: string): KeyPress {
  if (character === '\r' || character === '\n') return { input: '', key: { return: true } };
  if (character === '\u007F' || character === '\b') return { input: '', key: { backspace: true } };
  if (character === '\t') return { input: '', key: { tab: true } };
  return { input: character, key: {} };
}

function errorMessage(error: unknown): string {
  if (error instanceof Error) {
    const hint = (error as { hint?: unknown }).hint;
    return typeof hint === 'string' ? `${error.message} ${hint}` : error.message;
  }
  return String(error);
}
