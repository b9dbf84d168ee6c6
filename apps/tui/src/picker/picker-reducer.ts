// The session picker's state and its pure reducer (tested without rendering).
// The selection is kept by session id, so filtering, searching or deleting never
// jumps the cursor to another session.
import type { SessionMode, SessionStatus, SessionSummary } from '@resume/core/spec';
import type { ContentMatch, PendingQuestion, SessionDetails, UsageView } from '../backend/tui-backend.js';
import { type AnswerAction, type AnswerDraft, answerDraft, answerReducer } from '../prompts/answer-reducer.js';
import { type TextInputAction, type TextInputState, textInputReducer } from '../prompts/text-input-reducer.js';

export type PickerMode = 'browse' | 'search' | 'confirm-delete' | 'answer' | 'edit' | 'usage';

/** The name (`r`) or tags (`t`) of a session being edited. */
export interface MetadataEdit {
  kind: 'name' | 'tags';
  sessionId: string;
  input: TextInputState;
  /** Sent to the backend; the box stays until it answers. */
  saving: boolean;
}

export interface PickerState {
  sessions: SessionSummary[];
  loading: boolean;
  error: string | null;
  selectedId: string | null;
  mode: PickerMode;
  query: string;
  statusFilter: SessionStatus | null;
  modeFilter: SessionMode | null;
  /** The directory the picker was opened from (null: not known, every workspace is shown). */
  workspaceDir: string | null;
  /** Only sessions of `workspaceDir` (`w` switches between this directory and all). */
  onlyThisDirectory: boolean;
  /** Content hits for `contentQuery` (stale hits of an older query are never shown). */
  contentMatches: Record<string, ContentMatch>;
  contentQuery: string;
  contentSearching: boolean;
  showDetails: boolean;
  details: Record<string, SessionDetails>;
  notice: string | null;
  /** The answer being typed to the selected waiting session's question (mode `answer`). */
  answer: AnswerDraft | null;
  /** Only sessions with this tag (`#` cycles through the tags in use). */
  tagFilter: string | null;
  /** Archived sessions are left out unless shown (`A`). */
  showArchived: boolean;
  /** The name or tags being edited (mode `edit`). */
  edit: MetadataEdit | null;
  /** The usage screen (mode `usage`): its figures once loaded, or why they could not be. */
  usage: { view: UsageView | null; error: string | null } | null;
}

export type PickerAction =
  | { type: 'sessions-loaded'; sessions: SessionSummary[] }
  | { type: 'load-failed'; message: string }
  | { type: 'moved'; by: number }
  | { type: 'moved-to'; position: 'first' | 'last' }
  | { type: 'search-opened' }
  | { type: 'query-typed'; text: string }
  | { type: 'query-erased' }
  | { type: 'search-closed'; keepQuery: boolean }
  | { type: 'content-search-started'; query: string }
  | { type: 'content-matched'; query: string; match: ContentMatch }
  | { type: 'content-search-finished'; query: string }
  | { type: 'status-filter-cycled' }
  | { type: 'mode-filter-cycled' }
  | { type: 'workspace-filter-toggled' }
  | { type: 'details-toggled' }
  | { type: 'usage-opened' }
  | { type: 'usage-loaded'; view: UsageView }
  | { type: 'usage-failed'; message: string }
  | { type: 'usage-closed' }
  | { type: 'details-loaded'; details: SessionDetails }
  | { type: 'delete-requested' }
  | { type: 'delete-cancelled' }
  | { type: 'session-deleted'; sessionId: string }
  | { type: 'delete-failed'; message: string }
  | { type: 'answer-opened' }
  | { type: 'answer-question-loaded'; question: PendingQuestion | null }
  | { type: 'answer-changed'; action: AnswerAction }
  | { type: 'answer-cancelled' }
  | { type: 'tag-filter-cycled' }
  | { type: 'archived-toggled' }
  | { type: 'edit-opened'; kind: MetadataEdit['kind'] }
  | { type: 'edit-changed'; edit: TextInputAction }
  | { type: 'edit-submitted' }
  | { type: 'edit-cancelled' }
  | { type: 'session-updated'; summary: SessionSummary; notice: string }
  | { type: 'update-failed'; message: string }
  /** Enter or `c` on a session that cannot be run from here: why, and the picker stays. */
  | { type: 'pick-refused'; message: string };

export function initialPickerState(
  options: { showDetails?: boolean; workspaceDir?: string | null; onlyThisDirectory?: boolean } = {},
): PickerState {
  const workspaceDir = options.workspaceDir ?? null;
  return {
    workspaceDir,
    onlyThisDirectory: workspaceDir !== null && (options.onlyThisDirectory ?? true),
    sessions: [],
    loading: true,
    error: null,
    selectedId: null,
    mode: 'browse',
    query: '',
    statusFilter: null,
    modeFilter: null,
    contentMatches: {},
    contentQuery: '',
    contentSearching: false,
    showDetails: options.showDetails ?? true,
    details: {},
    notice: null,
    answer: null,
    tagFilter: null,
    showArchived: false,
    edit: null,
    usage: null,
  };
}

const statusCycle: readonly (SessionStatus | null)[] = [
  null,
  'interrupted',
  'running',
  'completed',
  'failed',
  'waiting',
  'sleeping',
];

/** Whether a session's name, title, task or one of its tags contains the query (case-insensitive). */
export function titleMatches(summary: SessionSummary, query: string): boolean {
  const needle = query.trim().toLowerCase();
  if (needle === '') return true;
  return [summary.name ?? '', summary.title, summary.task ?? '', ...(summary.tags ?? [])].some((text) =>
    text.toLowerCase().includes(needle),
  );
}

/**
 * The sessions the list shows: filters applied, then the search (names, titles and tags
 * first-class, content hits too). Pinned sessions come first, then those waiting for an answer
 * (a person is needed), newest first within each.
 */
export function visibleSessions(state: PickerState): SessionSummary[] {
  const query = state.query.trim();
  const shown = state.sessions.filter((summary) => {
    if (state.onlyThisDirectory && summary.workspaceDir !== state.workspaceDir) return false;
    if (state.statusFilter !== null && summary.status !== state.statusFilter) return false;
    if (state.modeFilter !== null && summary.mode !== state.modeFilter) return false;
    if (state.tagFilter !== null && !summary.tags?.includes(state.tagFilter)) return false;
    if (!state.showArchived && summary.archivedAt) return false;
    if (query === '') return true;
    if (titleMatches(summary, query)) return true;
    return state.contentQuery === query && state.contentMatches[summary.id] !== undefined;
  });
  // Pinned first, then those waiting; the sort is stable, so each group stays newest first.
  const rank = (summary: SessionSummary) => (summary.pinned ? 0 : 2) + (summary.status === 'waiting' ? 0 : 1);
  return shown.sort((left, right) => rank(left) - rank(right));
}

export function selectedIndex(state: PickerState, visible: readonly SessionSummary[]): number {
  const index = visible.findIndex((summary) => summary.id === state.selectedId);
  return index === -1 ? 0 : index;
}

export function selectedSession(state: PickerState): SessionSummary | null {
  const visible = visibleSessions(state);
  return visible[selectedIndex(state, visible)] ?? null;
}

/** Keeps the selection on a visible session after the list changed. */
function reselect(state: PickerState): PickerState {
  const visible = visibleSessions(state);
  if (visible.some((summary) => summary.id === state.selectedId)) return state;
  return { ...state, selectedId: visible[0]?.id ?? null };
}

function moveBy(state: PickerState, by: number): PickerState {
  const visible = visibleSessions(state);
  if (visible.length === 0) return state;
  const next = Math.min(visible.length - 1, Math.max(0, selectedIndex(state, visible) + by));
  return { ...state, selectedId: visible[next]?.id ?? null };
}

function cycle<T>(values: readonly (T | null)[], current: T | null): T | null {
  const index = values.indexOf(current);
  return values[(index + 1) % values.length] ?? null;
}

export function pickerReducer(state: PickerState, action: PickerAction): PickerState {
  switch (action.type) {
    case 'sessions-loaded': {
      const loaded = { ...state, sessions: action.sessions, loading: false, error: null };
      // Opened where no session ran: every workspace is shown rather than an empty list.
      if (
        state.onlyThisDirectory &&
        action.sessions.length > 0 &&
        !action.sessions.some((summary) => summary.workspaceDir === state.workspaceDir)
      ) {
        return reselect({
          ...loaded,
          onlyThisDirectory: false,
          notice: 'No session ran in this directory; showing every workspace (w: this directory only).',
        });
      }
      return reselect(loaded);
    }
    case 'load-failed':
      return { ...state, loading: false, error: action.message };
    case 'moved':
      return { ...moveBy(state, action.by), notice: null };
    case 'moved-to': {
      const visible = visibleSessions(state);
      const target = action.position === 'first' ? visible[0] : visible[visible.length - 1];
      return { ...state, selectedId: target?.id ?? state.selectedId, notice: null };
    }
    case 'search-opened':
      return { ...state, mode: 'search', notice: null };
    case 'query-typed':
      return reselect({ ...state, query: state.query + action.text });
    case 'query-erased':
      return reselect({ ...state, query: state.query.slice(0, -1) });
    case 'search-closed':
      return reselect(
        action.keepQuery
          ? { ...state, mode: 'browse' }
          : { ...state, mode: 'browse', query: '', contentMatches: {}, contentQuery: '', contentSearching: false },
      );
    case 'content-search-started':
      return { ...state, contentQuery: action.query, contentMatches: {}, contentSearching: true };
    case 'content-matched':
      if (action.query !== state.contentQuery) return state;
      return reselect({
        ...state,
        contentMatches: { ...state.contentMatches, [action.match.sessionId]: action.match },
      });
    case 'content-search-finished':
      if (action.query !== state.contentQuery) return state;
      return { ...state, contentSearching: false };
    case 'status-filter-cycled':
      return reselect({ ...state, statusFilter: cycle(statusCycle, state.statusFilter), notice: null });
    case 'mode-filter-cycled': {
      const modes = [...new Set(state.sessions.map((summary) => summary.mode))].sort();
      return reselect({ ...state, modeFilter: cycle<SessionMode>([null, ...modes], state.modeFilter), notice: null });
    }
    case 'workspace-filter-toggled':
      if (state.workspaceDir === null) return state;
      return reselect({ ...state, onlyThisDirectory: !state.onlyThisDirectory, notice: null });
    case 'details-toggled':
      return { ...state, showDetails: !state.showDetails };
    case 'usage-opened':
      return { ...state, mode: 'usage', usage: { view: null, error: null } };
    case 'usage-loaded':
      return state.usage ? { ...state, usage: { view: action.view, error: null } } : state;
    case 'usage-failed':
      return state.usage ? { ...state, usage: { view: null, error: action.message } } : state;
    case 'usage-closed':
      return { ...state, mode: 'browse', usage: null };
    case 'details-loaded':
      return { ...state, details: { ...state.details, [action.details.sessionId]: action.details } };
    case 'delete-requested':
      return selectedSession(state) ? { ...state, mode: 'confirm-delete', notice: null } : state;
    case 'delete-cancelled':
      return { ...state, mode: 'browse' };
    case 'session-deleted': {
      const visible = visibleSessions(state);
      const index = visible.findIndex((summary) => summary.id === action.sessionId);
      // The cursor stays where it was: on the next session, or the previous one at the end.
      const neighbour = visible[index + 1] ?? visible[index - 1] ?? null;
      const { [action.sessionId]: _removed, ...details } = state.details;
      return reselect({
        ...state,
        mode: 'browse',
        sessions: state.sessions.filter((summary) => summary.id !== action.sessionId),
        selectedId: state.selectedId === action.sessionId ? (neighbour?.id ?? null) : state.selectedId,
        details,
        notice: `Moved ${action.sessionId} to the trash (conclave sessions restore ${action.sessionId} brings it back).`,
      });
    }
    case 'delete-failed':
      return { ...state, mode: 'browse', notice: action.message };
    case 'answer-opened': {
      const selected = selectedSession(state);
      if (!selected) return state;
      if (selected.status !== 'waiting' || !selected.waitingFor)
        return { ...state, notice: `"${selected.title}" is not waiting for an answer (it is ${selected.status}).` };
      // The question from the listing is shown at once; its hint and choices follow from the journal.
      const question = { sessionId: selected.id, ...selected.waitingFor, hint: null, choices: null };
      return { ...state, mode: 'answer', notice: null, answer: answerDraft(question, false) };
    }
    case 'answer-question-loaded':
      if (!state.answer) return state;
      if (action.question === null)
        return {
          ...state,
          mode: 'browse',
          answer: null,
          notice: `${state.answer.question.sessionId} is no longer waiting: it was answered meanwhile. Enter resumes it.`,
        };
      if (action.question.sessionId !== state.answer.question.sessionId) return state;
      return { ...state, answer: answerReducer(state.answer, { type: 'question-loaded', question: action.question }) };
    case 'answer-changed':
      if (!state.answer) return state;
      return { ...state, answer: answerReducer(state.answer, action.action) };
    case 'answer-cancelled':
      return { ...state, mode: 'browse', answer: null, notice: 'Not answered; nothing was written.' };
    case 'tag-filter-cycled': {
      const tags = [...new Set(state.sessions.flatMap((summary) => summary.tags ?? []))].sort();
      if (tags.length === 0) return { ...state, notice: 'No session has tags yet (t tags the selected one).' };
      return reselect({ ...state, tagFilter: cycle<string>([null, ...tags], state.tagFilter), notice: null });
    }
    case 'archived-toggled':
      return reselect({ ...state, showArchived: !state.showArchived, notice: null });
    case 'edit-opened': {
      const selected = selectedSession(state);
      if (!selected) return state;
      const text = action.kind === 'name' ? (selected.name ?? '') : (selected.tags ?? []).join(' ');
      const input = { text, cursor: text.length };
      return {
        ...state,
        mode: 'edit',
        notice: null,
        edit: { kind: action.kind, sessionId: selected.id, input, saving: false },
      };
    }
    case 'edit-changed':
      if (!state.edit || state.edit.saving) return state;
      return { ...state, edit: { ...state.edit, input: textInputReducer(state.edit.input, action.edit) } };
    case 'edit-submitted':
      if (!state.edit) return state;
      return { ...state, edit: { ...state.edit, saving: true } };
    case 'edit-cancelled':
      return { ...state, mode: 'browse', edit: null, notice: 'Unchanged.' };
    case 'session-updated':
      return reselect({
        ...state,
        mode: state.mode === 'edit' ? 'browse' : state.mode,
        edit: null,
        sessions: state.sessions.map((summary) =>
          summary.id === action.summary.id ? { ...action.summary, status: summary.status } : summary,
        ),
        notice: action.notice,
      });
    case 'pick-refused':
      return { ...state, notice: action.message };
    case 'update-failed':
      // A refused name keeps the box open to correct it; the reason is the notice.
      return {
        ...state,
        edit: state.edit ? { ...state.edit, saving: false } : null,
        notice: action.message,
      };
  }
}

/** The tags typed in the tags box: separated by spaces or commas. */
export function typedTags(text: string): string[] {
  return text.split(/[\s,]+/).filter((tag) => tag !== '');
}

/** The slice of `total` rows to draw so that `cursor` stays visible (windowed rendering). */
export function listWindow(total: number, cursor: number, height: number): { start: number; end: number } {
  if (height <= 0 || total === 0) return { start: 0, end: 0 };
  if (total <= height) return { start: 0, end: total };
  const start = Math.min(Math.max(0, cursor - Math.floor(height / 2)), total - height);
  return { start, end: start + height };
}
