// The picker's behaviour: loads summaries first (instant), searches content lazily
// in the background, loads the details of the session under the cursor, deletes
// after confirmation, and turns keys into reducer actions.

import type { MetadataChange } from '@resume/core';
import type { SessionSummary } from '@resume/core/spec';
import { useInput } from 'ink';
import { useEffect, useRef } from 'react';
import type { TuiBackend } from '../backend/tui-backend.js';
import { errorText } from '../errors/error-hints.js';
import {
  answerKeys,
  commandFor,
  deleteKeys,
  type KeyPress,
  organizeKeys,
  pickerKeys,
  searchKeys,
  usageKeys,
} from '../keys/key-bindings.js';
import { useLatestReducer } from '../keys/use-latest-reducer.js';
import { answerCommandAction, answerText } from '../prompts/answer-reducer.js';
import { textInputAction } from '../prompts/text-input-reducer.js';
import {
  initialPickerState,
  type PickerState,
  pickerReducer,
  selectedSession,
  titleMatches,
  typedTags,
  visibleSessions,
} from './picker-reducer.js';

export type PickedAction = 'resume' | 'continue';

export interface PickedSession {
  action: PickedAction;
  sessionId: string;
  summary: SessionSummary;
  /** The session's question was answered in the picker (`a`): resume it without asking again. */
  answered?: boolean;
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
  const { state, dispatch, latest } = useLatestReducer(pickerReducer, () =>
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

  /** Hands the session to the caller, unless the backend says it cannot be run from here: then the notice says why. */
  const pick = (picked: PickedSession) => {
    if (!backend.whyNotRunnable) return finish(picked);
    backend.whyNotRunnable(picked.sessionId).then(
      (refusal) => (refusal === null ? finish(picked) : dispatch({ type: 'pick-refused', message: refusal })),
      // A session that cannot be read now is the caller's to report, as before.
      () => finish(picked),
    );
  };

  useEffect(() => {
    let cancelled = false;
    backend.listSessions().then(
      (sessions) => !cancelled && dispatch({ type: 'sessions-loaded', sessions }),
      (error: unknown) => !cancelled && dispatch({ type: 'load-failed', message: errorText(error) }),
    );
    return () => {
      cancelled = true;
    };
  }, [backend, dispatch]);

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
  }, [backend, query, sessions, settleMs, dispatch]);

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
  }, [backend, selectedId, state.showDetails, haveDetails, settleMs, dispatch]);

  // The answer box: the question's hint and choices are read from the journal when it opens,
  // and an answer sent (Enter) is journaled through the backend; a refused one keeps it open.
  const answering = state.answer;
  const answeringId = answering?.question.sessionId ?? null;
  const questionLoaded = answering?.loaded ?? true;
  useEffect(() => {
    if (answeringId === null || questionLoaded) return;
    let cancelled = false;
    backend.loadQuestion(answeringId).then(
      (question) => !cancelled && dispatch({ type: 'answer-question-loaded', question }),
      (error: unknown) =>
        !cancelled && dispatch({ type: 'answer-changed', action: { type: 'rejected', problem: errorText(error) } }),
    );
    return () => {
      cancelled = true;
    };
  }, [backend, answeringId, questionLoaded, dispatch]);
  const sending = answering?.submitting ? { question: answering.question, text: answerText(answering) } : null;
  const sendingKey = sending ? `${sending.question.sessionId}\u0000${sending.question.key}\u0000${sending.text}` : null;
  const sendingRef = useRef(sending);
  sendingRef.current = sending;
  // Only a new answer sent starts a call; what it sends is read from the ref.
  // biome-ignore lint/correctness/useExhaustiveDependencies: keyed on the answer sent, see above
  useEffect(() => {
    const current = sendingRef.current;
    if (sendingKey === null || current === null) return;
    let cancelled = false;
    const { sessionId, key } = current.question;
    backend.answerQuestion(sessionId, key, current.text).then(
      (outcome) => {
        if (cancelled) return;
        if (!outcome.accepted) {
          dispatch({ type: 'answer-changed', action: { type: 'rejected', problem: outcome.problem } });
          return;
        }
        const summary = state.sessions.find((each) => each.id === sessionId);
        if (summary) finish({ action: 'resume', sessionId, summary, answered: true });
      },
      (error: unknown) =>
        !cancelled && dispatch({ type: 'answer-changed', action: { type: 'rejected', problem: errorText(error) } }),
    );
    return () => {
      cancelled = true;
    };
  }, [backend, sendingKey]);

  /** Journals a change to a session; the notice says what changed, or why it was refused. */
  const changeMetadata = (sessionId: string, change: MetadataChange, done: (summary: SessionSummary) => string) => {
    backend.changeMetadata(sessionId, change).then(
      (summary) => dispatch({ type: 'session-updated', summary, notice: done(summary) }),
      (error: unknown) => dispatch({ type: 'update-failed', message: errorText(error) }),
    );
  };

  // Enter in the name or tags box marks the edit as saving (the reducer sees every key typed
  // before it, even in one chunk); what the box holds then becomes the name, or the tags.
  const editing = state.edit;
  const savingKey = editing?.saving ? `${editing.sessionId}\u0000${editing.kind}\u0000${editing.input.text}` : null;
  const editingRef = useRef({ edit: editing, sessions: state.sessions });
  editingRef.current = { edit: editing, sessions: state.sessions };
  // biome-ignore lint/correctness/useExhaustiveDependencies: keyed on the edit saved, read from the ref
  useEffect(() => {
    const { edit, sessions: known } = editingRef.current;
    const summary = known.find((each) => each.id === edit?.sessionId);
    if (savingKey === null || !edit || !summary) return;
    if (edit.kind === 'name') {
      const name = edit.input.text.trim();
      changeMetadata(summary.id, { name: name === '' ? null : name }, (changed) =>
        changed.name ? `Named "${changed.name}".` : 'The name is removed.',
      );
      return;
    }
    const wanted = typedTags(edit.input.text.toLowerCase());
    const current = summary.tags ?? [];
    changeMetadata(
      summary.id,
      { addTags: wanted, removeTags: current.filter((tag) => !wanted.includes(tag)) },
      (changed) => ((changed.tags ?? []).length === 0 ? 'No tags now.' : `Tags: ${(changed.tags ?? []).join(', ')}.`),
    );
  }, [backend, savingKey]);

  /** Handles one keypress in `mode`; returns the mode the next character of the same chunk sees. */
  const handleKey = (press: KeyPress, mode: PickerState['mode']): PickerState['mode'] => {
    const { key } = press;
    // What the keys before this one did, drawn or not (see use-latest-reducer.ts).
    const state = latest.current;
    const selected = selectedSession(state);
    if (mode === 'edit') {
      const command = commandFor(organizeKeys, press);
      if (!command) return mode;
      if (command.type === 'submit') dispatch({ type: 'edit-submitted' });
      else if (command.type === 'cancel') {
        if (state.edit?.saving) return mode;
        dispatch({ type: 'edit-cancelled' });
        return 'browse';
      } else dispatch({ type: 'edit-changed', edit: textInputAction(command) });
      return mode;
    }
    if (mode === 'answer') {
      const command = commandFor(answerKeys, press);
      if (!command) return mode;
      const action = answerCommandAction(command);
      if (action.type === 'cancel') {
        if (state.answer?.submitting) return mode;
        dispatch({ type: 'answer-cancelled' });
        return 'browse';
      }
      dispatch({ type: 'answer-changed', action });
      return mode;
    }
    if (mode === 'confirm-delete') {
      const answer = commandFor(deleteKeys, press);
      if (answer?.type === 'answer' && answer.yes && selected) {
        const id = selected.id;
        backend.deleteSession(id).then(
          () => dispatch({ type: 'session-deleted', sessionId: id }),
          (error: unknown) => dispatch({ type: 'delete-failed', message: errorText(error) }),
        );
      } else if (answer !== null) {
        // Enter or anything but "y" keeps the session: deleting is never the default.
        dispatch({ type: 'delete-cancelled' });
      }
      return answer === null ? mode : 'browse';
    }
    if (mode === 'usage') {
      if (commandFor(usageKeys, press)?.type !== 'close') return mode;
      dispatch({ type: 'usage-closed' });
      return 'browse';
    }
    if (mode === 'search') {
      const command = commandFor(searchKeys, press);
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
    const command = commandFor(pickerKeys, press);
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
        if (selected) pick({ action: defaultAction(selected), sessionId: selected.id, summary: selected });
        return mode;
      case 'continue':
        if (selected) pick({ action: 'continue', sessionId: selected.id, summary: selected });
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
      case 'rename':
      case 'edit-tags':
        if (!selected) return mode;
        dispatch({ type: 'edit-opened', kind: command.type === 'rename' ? 'name' : 'tags' });
        return 'edit';
      case 'toggle-pin':
        if (selected)
          changeMetadata(selected.id, { pinned: !selected.pinned }, (changed) =>
            changed.pinned
              ? `Pinned "${changed.name ?? changed.title}": it comes first.`
              : `Unpinned "${changed.name ?? changed.title}".`,
          );
        return mode;
      case 'cycle-tag':
        dispatch({ type: 'tag-filter-cycled' });
        return mode;
      case 'toggle-archived':
        dispatch({ type: 'archived-toggled' });
        return mode;
      case 'usage': {
        const loadUsage = backend.loadUsage?.bind(backend);
        if (!loadUsage) return mode;
        dispatch({ type: 'usage-opened' });
        loadUsage().then(
          (view) => dispatch({ type: 'usage-loaded', view }),
          (error: unknown) => dispatch({ type: 'usage-failed', message: errorText(error) }),
        );
        return 'usage';
      }
      case 'answer':
        dispatch({ type: 'answer-opened' });
        return selected?.status === 'waiting' && selected.waitingFor ? 'answer' : mode;
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
      handleKey({ input, key }, latest.current.mode);
      return;
    }
    // Fast typing and pasting arrive as one chunk ("/release"): each character is a key,
    // so "/" opens the search and the rest becomes the query.
    let mode = latest.current.mode;
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
