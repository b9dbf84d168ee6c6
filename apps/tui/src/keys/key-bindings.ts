// Every key binding of every screen, in one place (docs/architecture.md#the-tui: the picker, resume,
// conflict, uncertain-step and model prompts). Screens turn a keypress into a named
// command here and never look at raw keys themselves; the help lines come from here too.
import type { Key } from 'ink';

export type KeyPress = { input: string; key: Partial<Key> };

export type PickerCommand =
  | { type: 'move'; by: number }
  | { type: 'move-to'; position: 'first' | 'last' }
  | { type: 'page'; direction: 1 | -1 }
  | { type: 'select' }
  | { type: 'continue' }
  | { type: 'delete' }
  | { type: 'search' }
  | { type: 'cycle-status' }
  | { type: 'cycle-mode' }
  | { type: 'toggle-workspace' }
  | { type: 'toggle-details' }
  | { type: 'answer' }
  | { type: 'leave' };

export function pickerCommand({ input, key }: KeyPress): PickerCommand | null {
  if (key.upArrow || input === 'k') return { type: 'move', by: -1 };
  if (key.downArrow || input === 'j') return { type: 'move', by: 1 };
  if (key.pageUp) return { type: 'page', direction: -1 };
  if (key.pageDown) return { type: 'page', direction: 1 };
  if (key.home || input === 'g') return { type: 'move-to', position: 'first' };
  if (key.end || input === 'G') return { type: 'move-to', position: 'last' };
  if (key.return) return { type: 'select' };
  if (key.escape || input === 'q') return { type: 'leave' };
  if (input === '/') return { type: 'search' };
  if (input === 'd') return { type: 'delete' };
  if (input === 'c') return { type: 'continue' };
  if (input === 'a') return { type: 'answer' };
  if (input === 's') return { type: 'cycle-status' };
  if (input === 'm') return { type: 'cycle-mode' };
  if (input === 'w') return { type: 'toggle-workspace' };
  if (key.tab) return { type: 'toggle-details' };
  return null;
}

export const pickerHelp =
  '↑↓/jk move  Enter select  c continue  a answer  / search  s status  m mode  w this dir/all  d delete  Tab details  q quit';

export type SearchInputCommand =
  | { type: 'type'; text: string }
  | { type: 'erase' }
  | { type: 'accept' }
  | { type: 'clear' }
  | { type: 'move'; by: number };

/** While the search box has focus, letters are text; arrows still move the cursor. */
export function searchInputCommand({ input, key }: KeyPress): SearchInputCommand | null {
  if (key.escape) return { type: 'clear' };
  if (key.return) return { type: 'accept' };
  if (key.backspace || key.delete) return { type: 'erase' };
  if (key.upArrow) return { type: 'move', by: -1 };
  if (key.downArrow) return { type: 'move', by: 1 };
  if (key.ctrl || key.meta || key.tab) return null;
  if (input.length > 0) return { type: 'type', text: input };
  return null;
}

export const searchHelp = 'type to search titles and content  Enter keep  Esc clear';

export type ConfirmCommand = { type: 'answer'; yes: boolean } | { type: 'accept-default' };

/** `[Y/n]` questions: y/n answer, Enter takes the default, Esc says no. */
export function confirmCommand({ input, key }: KeyPress): ConfirmCommand | null {
  if (input === 'y' || input === 'Y') return { type: 'answer', yes: true };
  if (input === 'n' || input === 'N' || key.escape) return { type: 'answer', yes: false };
  if (key.return) return { type: 'accept-default' };
  return null;
}

export type ConflictCommand =
  | { type: 'move'; by: number }
  | { type: 'keep' }
  | { type: 'restore' }
  | { type: 'toggle-diff' }
  | { type: 'scroll-diff'; by: number }
  | { type: 'apply' }
  | { type: 'cancel' };

export function conflictCommand({ input, key }: KeyPress, diffOpen: boolean): ConflictCommand | null {
  if (diffOpen) {
    if (key.upArrow || input === 'k') return { type: 'scroll-diff', by: -1 };
    if (key.downArrow || input === 'j') return { type: 'scroll-diff', by: 1 };
    if (key.pageUp) return { type: 'scroll-diff', by: -10 };
    if (key.pageDown || input === ' ') return { type: 'scroll-diff', by: 10 };
    if (input === 'd' || input === 'q' || key.escape) return { type: 'toggle-diff' };
    return null;
  }
  // `k` is "keep" here (docs/architecture.md#the-tui), so files move with the arrows only.
  if (key.upArrow) return { type: 'move', by: -1 };
  if (key.downArrow) return { type: 'move', by: 1 };
  if (input === 'k') return { type: 'keep' };
  if (input === 'r') return { type: 'restore' };
  if (input === 'd') return { type: 'toggle-diff' };
  if (key.return) return { type: 'apply' };
  if (key.escape) return { type: 'cancel' };
  return null;
}

export const conflictHelp = '↑↓ file  k keep current  r restore snapshot  d diff  Enter apply  Esc cancel resume';
export const diffHelp = '↑↓/jk scroll  PgUp/PgDn page  d/Esc close diff';

export type ChoiceCommand =
  | { type: 'move'; by: number }
  | { type: 'choose-shortcut'; shortcut: string }
  | { type: 'accept' }
  | { type: 'cancel' };

/** Menus (uncertain step, model unavailable): arrows move, a shortcut letter picks, Enter accepts, Esc cancels. */
export function choiceCommand({ input, key }: KeyPress): ChoiceCommand | null {
  if (key.upArrow) return { type: 'move', by: -1 };
  if (key.downArrow) return { type: 'move', by: 1 };
  if (key.return) return { type: 'accept' };
  if (key.escape) return { type: 'cancel' };
  if (input.length === 1 && !key.ctrl && !key.meta) return { type: 'choose-shortcut', shortcut: input.toLowerCase() };
  return null;
}

export const choiceHelp = '↑↓ move  Enter choose  letter shortcut  Esc cancel';

export type TextInputCommand =
  | { type: 'type'; text: string }
  | { type: 'erase-back' }
  | { type: 'erase-forward' }
  | { type: 'move'; by: number }
  | { type: 'move-to'; position: 'start' | 'end' }
  | { type: 'clear' }
  | { type: 'submit' }
  | { type: 'cancel' };

/** A one-line text box (the follow-up question): letters are text, readline-style editing keys. */
export function textInputCommand({ input, key }: KeyPress): TextInputCommand | null {
  if (key.return) return { type: 'submit' };
  if (key.escape) return { type: 'cancel' };
  // Terminals send Backspace as DEL, which Ink reports as `delete`; the forward delete is Ctrl+D.
  if (key.backspace || key.delete) return { type: 'erase-back' };
  if (key.leftArrow) return { type: 'move', by: -1 };
  if (key.rightArrow) return { type: 'move', by: 1 };
  if (key.home || (key.ctrl && input === 'a')) return { type: 'move-to', position: 'start' };
  if (key.end || (key.ctrl && input === 'e')) return { type: 'move-to', position: 'end' };
  if (key.ctrl && input === 'd') return { type: 'erase-forward' };
  if (key.ctrl && input === 'u') return { type: 'clear' };
  if (key.ctrl || key.meta || key.tab || key.upArrow || key.downArrow) return null;
  if (input.length > 0) return { type: 'type', text: input };
  return null;
}

export const textInputHelp = 'Enter start  ←→ move  Ctrl+U clear  Esc cancel';

/**
 * The answer box of a waiting session (the picker's details pane, the question asked inline):
 * the text box's keys, and ↑↓ go through the choices of a closed question.
 */
export type AnswerInputCommand = TextInputCommand | { type: 'choice'; by: number };

export function answerInputCommand(press: KeyPress): AnswerInputCommand | null {
  if (press.key.upArrow) return { type: 'choice', by: -1 };
  if (press.key.downArrow) return { type: 'choice', by: 1 };
  return textInputCommand(press);
}

export const answerHelp = 'Enter answer and continue  ←→ move  Ctrl+U clear  Esc cancel';
export const answerChoicesHelp = 'Enter answer and continue  ↑↓ choices  Ctrl+U clear  Esc cancel';
