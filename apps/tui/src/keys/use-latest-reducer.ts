// A reducer's state as the keys must see it. Keys that come in one read of the terminal (a fast
// typist, a paste, a script) or faster than a frame are handled before React draws again: a key
// handler that read the state of the last render would act on what was selected or chosen before
// the key just ahead of it (`j` then `p` pinning the row above; `r` then Enter keeping the file).
import { useCallback, useReducer, useRef } from 'react';

/**
 * `useReducer`, with `latest.current`: the state every action dispatched so far made, drawn or
 * not, for key handlers to read. React renders the same state, so `reducer` must be pure.
 */
export function useLatestReducer<S, A>(reducer: (state: S, action: A) => S, initial: () => S) {
  const [state, dispatchToReact] = useReducer(reducer, undefined, initial);
  const latest = useRef(state);
  latest.current = state;
  const dispatch = useCallback(
    (action: A) => {
      latest.current = reducer(latest.current, action);
      dispatchToReact(action);
    },
    [reducer],
  );
  return { state, dispatch, latest };
}
