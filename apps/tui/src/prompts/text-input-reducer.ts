// The one-line text box behind the follow-up prompt: the text and where the cursor is.
// Pure, so typing, pasting and editing are tested without rendering.
import type { TextInputCommand } from '../keys/key-bindings.js';

export interface TextInputState {
  text: string;
  /** Characters before the cursor. */
  cursor: number;
}

export type TextInputAction =
  | { type: 'typed'; text: string }
  | { type: 'erased-back' }
  | { type: 'erased-forward' }
  | { type: 'moved'; by: number }
  | { type: 'moved-to'; position: 'start' | 'end' }
  | { type: 'cleared' }
  | { type: 'replaced'; text: string };

export const emptyTextInput: TextInputState = { text: '', cursor: 0 };

export function textInputReducer(state: TextInputState, action: TextInputAction): TextInputState {
  const { text, cursor } = state;
  switch (action.type) {
    case 'typed': {
      // A paste arrives as one chunk; its line breaks become spaces in a one-line box.
      const typed = action.text.replace(/\r\n|\r|\n/g, ' ');
      return { text: text.slice(0, cursor) + typed + text.slice(cursor), cursor: cursor + typed.length };
    }
    case 'erased-back':
      if (cursor === 0) return state;
      return { text: text.slice(0, cursor - 1) + text.slice(cursor), cursor: cursor - 1 };
    case 'erased-forward':
      if (cursor === text.length) return state;
      return { text: text.slice(0, cursor) + text.slice(cursor + 1), cursor };
    case 'moved':
      return { text, cursor: Math.min(text.length, Math.max(0, cursor + action.by)) };
    case 'moved-to':
      return { text, cursor: action.position === 'start' ? 0 : text.length };
    case 'cleared':
      return emptyTextInput;
    case 'replaced':
      return { text: action.text, cursor: action.text.length };
  }
}

/** The edit a text box command makes (submit and cancel are the screen's to handle). */
export function textInputAction(
  command: Exclude<TextInputCommand, { type: 'submit' } | { type: 'cancel' }>,
): TextInputAction {
  switch (command.type) {
    case 'type':
      return { type: 'typed', text: command.text };
    case 'erase-back':
      return { type: 'erased-back' };
    case 'erase-forward':
      return { type: 'erased-forward' };
    case 'move':
      return { type: 'moved', by: command.by };
    case 'move-to':
      return { type: 'moved-to', position: command.position };
    case 'clear':
      return { type: 'cleared' };
  }
}
