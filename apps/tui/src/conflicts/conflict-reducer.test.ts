import { describe, expect, it } from 'vitest';
import { type ConflictAction, conflictReducer, conflictSummary, initialConflictState } from './conflict-reducer.js';

const changes = [
  { path: 'src/api.ts', status: 'unchanged' as const },
  { path: 'src/auth.ts', status: 'modified' as const },
  { path: 'src/db.ts', status: 'deleted' as const },
];

const run = (actions: ConflictAction[]) => actions.reduce(conflictReducer, initialConflictState(changes));

describe('conflictReducer', () => {
  it('folds unchanged files away and keeps every changed file by default', () => {
    const state = initialConflictState(changes);
    expect(state.files.map((file) => file.path)).toEqual(['src/auth.ts', 'src/db.ts']);
    expect(state.unchangedCount).toBe(1);
    expect(state.choices).toEqual({ 'src/auth.ts': 'keep', 'src/db.ts': 'keep' });
    expect(conflictSummary(state)).toBe('Enter will keep 2 current files; 1 unchanged, then resume.');
  });

  it('sets the choice of the file under the cursor', () => {
    const state = run([
      { type: 'moved', by: 1 },
      { type: 'choice-set', choice: 'restore' },
    ]);
    expect(state.choices).toEqual({ 'src/auth.ts': 'keep', 'src/db.ts': 'restore' });
    expect(conflictSummary(state)).toContain('keep 1 current file and restore 1 from the snapshot (src/db.ts)');
  });

  it('opens, fills and scrolls a diff within its length, ignoring a late diff of another file', () => {
    const text = Array.from({ length: 30 }, (_, index) => `+line ${index}`).join('\n');
    let state = run([{ type: 'diff-opened' }]);
    expect(state.diff).toEqual({ path: 'src/auth.ts', lines: null, error: null, scroll: 0 });
    state = conflictReducer(state, { type: 'diff-loaded', path: 'src/db.ts', text });
    expect(state.diff?.lines).toBeNull();
    state = conflictReducer(state, { type: 'diff-loaded', path: 'src/auth.ts', text });
    state = conflictReducer(state, { type: 'diff-scrolled', by: 100, height: 10 });
    expect(state.diff?.scroll).toBe(20);
    state = conflictReducer(state, { type: 'diff-scrolled', by: -100, height: 10 });
    expect(state.diff?.scroll).toBe(0);
    expect(conflictReducer(state, { type: 'diff-closed' }).diff).toBeNull();
  });
});
