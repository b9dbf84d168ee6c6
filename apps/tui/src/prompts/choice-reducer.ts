// The menu behind the uncertain-step and model-unavailable prompts: a highlighted
// option moved with the arrows, picked by Enter or by its shortcut letter.

export interface ChoiceOption<T> {
  value: T;
  label: string;
  /** One lower-case letter that picks this option at once. */
  shortcut: string;
  /** Shown under the label in muted text. */
  description?: string;
}

export interface ChoiceState {
  highlighted: number;
  /** Set once an option is picked; the screen then reports it and closes. */
  chosen: number | null;
}

export type ChoiceAction =
  | { type: 'moved'; by: number }
  | { type: 'shortcut-pressed'; shortcut: string }
  | { type: 'accepted' };

export function initialChoiceState(defaultIndex = 0): ChoiceState {
  return { highlighted: defaultIndex, chosen: null };
}

export function choiceReducer<T>(options: readonly ChoiceOption<T>[]) {
  return (state: ChoiceState, action: ChoiceAction): ChoiceState => {
    if (state.chosen !== null || options.length === 0) return state;
    switch (action.type) {
      case 'moved':
        return { ...state, highlighted: (state.highlighted + action.by + options.length) % options.length };
      case 'shortcut-pressed': {
        const index = options.findIndex((option) => option.shortcut === action.shortcut);
        return index === -1 ? state : { highlighted: index, chosen: index };
      }
      case 'accepted':
        return { ...state, chosen: state.highlighted };
    }
  };
}
