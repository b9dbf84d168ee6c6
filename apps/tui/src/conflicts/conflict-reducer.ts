// The conflict screen's state: the changed files (unchanged ones folded away), one
// choice per file (keep by default: never destructive), and an optional open diff.
// Pure; tested without rendering.

export type FileStatus = 'unchanged' | 'modified' | 'deleted' | 'created-since';
export type ConflictChoice = 'keep' | 'restore';

export interface ConflictFile {
  path: string;
  status: FileStatus;
}

export interface OpenDiff {
  path: string;
  /** Null while loading. */
  lines: string[] | null;
  error: string | null;
  scroll: number;
}

export interface ConflictState {
  files: ConflictFile[];
  unchangedCount: number;
  cursor: number;
  choices: Record<string, ConflictChoice>;
  diff: OpenDiff | null;
}

export type ConflictAction =
  | { type: 'moved'; by: number }
  | { type: 'choice-set'; choice: ConflictChoice }
  | { type: 'diff-opened' }
  | { type: 'diff-loaded'; path: string; text: string }
  | { type: 'diff-failed'; path: string; message: string }
  | { type: 'diff-scrolled'; by: number; height: number }
  | { type: 'diff-closed' };

export function initialConflictState(changes: readonly ConflictFile[]): ConflictState {
  const files = changes.filter((change) => change.status !== 'unchanged').map(({ path, status }) => ({ path, status }));
  return {
    files,
    unchangedCount: changes.length - files.length,
    cursor: 0,
    choices: Object.fromEntries(files.map((file) => [file.path, 'keep' as const])),
    diff: null,
  };
}

export function conflictReducer(state: ConflictState, action: ConflictAction): ConflictState {
  switch (action.type) {
    case 'moved':
      if (state.files.length === 0) return state;
      return { ...state, cursor: Math.min(state.files.length - 1, Math.max(0, state.cursor + action.by)) };
    case 'choice-set': {
      const file = state.files[state.cursor];
      if (!file) return state;
      return { ...state, choices: { ...state.choices, [file.path]: action.choice } };
    }
    case 'diff-opened': {
      const file = state.files[state.cursor];
      if (!file) return state;
      return { ...state, diff: { path: file.path, lines: null, error: null, scroll: 0 } };
    }
    case 'diff-loaded':
      if (state.diff?.path !== action.path) return state;
      return { ...state, diff: { ...state.diff, lines: action.text.replace(/\n$/, '').split('\n') } };
    case 'diff-failed':
      if (state.diff?.path !== action.path) return state;
      return { ...state, diff: { ...state.diff, error: action.message } };
    case 'diff-scrolled': {
      if (!state.diff?.lines) return state;
      const maxScroll = Math.max(0, state.diff.lines.length - action.height);
      return {
        ...state,
        diff: { ...state.diff, scroll: Math.min(maxScroll, Math.max(0, state.diff.scroll + action.by)) },
      };
    }
    case 'diff-closed':
      return { ...state, diff: null };
  }
}

/**
 * The warning for files that did not exist when the session read them and exist now: the
 * session's work assumed they were absent, and restoring deletes them (their content is kept
 * with the session, `conclave files` gives it back). Null when there are none.
 */
export function createdSinceWarning(files: readonly ConflictFile[]): string | null {
  const created = files.filter((file) => file.status === 'created-since').map((file) => file.path);
  if (created.length === 0) return null;
  const names = created.length > 3 ? `${created.slice(0, 3).join(', ')}, +${created.length - 3}` : created.join(', ');
  const one = created.length === 1;
  return `! ${names} ${one ? 'was' : 'were'} missing when the session read ${one ? 'it' : 'them'} and ${one ? 'exists' : 'exist'} now; restore deletes ${one ? 'it' : 'them'} (your version is kept with the session: conclave files).`;
}

/** A status in words ("created-since" flagged as what it means). */
export function statusLabel(status: FileStatus): string {
  return status === 'created-since' ? 'new since read' : status;
}

/** What "restore" does to a file in this status. */
export function restoreDescription(status: FileStatus): string {
  switch (status) {
    case 'deleted':
      return 'recreate from snapshot';
    case 'created-since':
      return 'remove (absent from snapshot)';
    default:
      return 'restore snapshot';
  }
}

/** The line shown before applying: what Enter will do. */
export function conflictSummary(state: ConflictState): string {
  const restored = state.files.filter((file) => state.choices[file.path] === 'restore');
  const kept = state.files.length - restored.length;
  const parts: string[] = [];
  if (kept > 0) parts.push(`keep ${kept} current file${kept === 1 ? '' : 's'}`);
  if (restored.length > 0) {
    const names = restored.slice(0, 3).map((file) => file.path);
    const more = restored.length > names.length ? `, +${restored.length - names.length}` : '';
    parts.push(`restore ${restored.length} from the snapshot (${names.join(', ')}${more})`);
  }
  const unchanged = state.unchangedCount > 0 ? `; ${state.unchangedCount} unchanged` : '';
  return `Enter will ${parts.join(' and ') || 'change nothing'}${unchanged}, then resume.`;
}
