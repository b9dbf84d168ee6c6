// The conflict screen's behaviour: keys to reducer actions, diffs loaded on demand.
import { useInput } from 'ink';
import { useEffect } from 'react';
import { conflictCommand } from '../keys/key-bindings.js';
import { useLatestReducer } from '../keys/use-latest-reducer.js';
import {
  type ConflictChoice,
  type ConflictFile,
  type ConflictState,
  conflictReducer,
  initialConflictState,
} from './conflict-reducer.js';

/** Diffs by path, or a function that computes one when the user asks for it. */
export type DiffSource = Readonly<Record<string, string>> | ((path: string) => Promise<string>);

export type ConflictAnswer = { choices: Record<string, ConflictChoice> } | 'cancel';

export function useConflictScreen(options: {
  changes: readonly ConflictFile[];
  diffs: DiffSource;
  diffHeight: number;
  onAnswer: (answer: ConflictAnswer) => void;
}): ConflictState {
  const { diffs, diffHeight, onAnswer } = options;
  const { state, dispatch, latest } = useLatestReducer(conflictReducer, () => initialConflictState(options.changes));
  const diffPath = state.diff?.path ?? null;

  useEffect(() => {
    if (diffPath === null) return;
    let cancelled = false;
    const load = typeof diffs === 'function' ? diffs(diffPath) : Promise.resolve(diffs[diffPath] ?? '');
    load.then(
      (text) => {
        if (cancelled) return;
        dispatch({ type: 'diff-loaded', path: diffPath, text: text === '' ? '(no diff available)' : text });
      },
      (error: unknown) =>
        !cancelled &&
        dispatch({
          type: 'diff-failed',
          path: diffPath,
          message: error instanceof Error ? error.message : String(error),
        }),
    );
    return () => {
      cancelled = true;
    };
  }, [diffPath, diffs, dispatch]);

  useInput((input, key) => {
    // What the keys before this one did, drawn or not (see use-latest-reducer.ts).
    const state = latest.current;
    const command = conflictCommand({ input, key }, state.diff !== null);
    if (!command) return;
    switch (command.type) {
      case 'move':
        dispatch({ type: 'moved', by: command.by });
        return;
      case 'keep':
        dispatch({ type: 'choice-set', choice: 'keep' });
        return;
      case 'restore':
        dispatch({ type: 'choice-set', choice: 'restore' });
        return;
      case 'toggle-diff':
        dispatch({ type: state.diff ? 'diff-closed' : 'diff-opened' });
        return;
      case 'scroll-diff':
        dispatch({ type: 'diff-scrolled', by: command.by, height: diffHeight });
        return;
      case 'apply':
        onAnswer({ choices: { ...state.choices } });
        return;
      case 'cancel':
        onAnswer('cancel');
        return;
    }
  });

  return state;
}
