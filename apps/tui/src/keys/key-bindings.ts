// Every key binding of every screen, as data: per screen, which keys give which command and
// how the keys and the command are described. Screens turn a keypress into a command here and
// never look at raw keys themselves; their help lines and the key table of docs/tui.md are
// generated from the same tables (`./bin/node apps/tui/scripts/write-key-table.mjs` rewrites the table).
import type { Key } from 'ink';

export type KeyPress = { input: string; key: Partial<Key> };

const keyNames = [
  'upArrow',
  'downArrow',
  'leftArrow',
  'rightArrow',
  'pageUp',
  'pageDown',
  'home',
  'end',
  'return',
  'escape',
  'tab',
  'backspace',
  'delete',
] as const;
type KeyName = (typeof keyNames)[number];

/**
 * One way to press a binding: a character (whatever the modifiers), a named key, Ctrl with a
 * letter, any typed text (no Ctrl or Meta, no named key), or any single character.
 */
export type KeyMatch = { input: string } | { key: KeyName } | { ctrl: string } | 'text' | 'character';

export interface KeyBinding<Command> {
  keys: readonly KeyMatch[];
  /** How the keys are written, in the help line and in docs/tui.md. */
  label: string;
  /** What the binding does, in the help line. */
  help: string;
  /** What docs/tui.md says it does, when that is more than the help line says. */
  description?: string;
  /** Left out of the help line (kept short); docs/tui.md still lists it. */
  inHelpLine?: false;
  /** The command, or how the key pressed picks it (↑ or ↓ of one `move` binding). */
  command: Command | ((press: KeyPress) => Command);
}

export interface KeyScreen<Command> {
  /** The screen, as docs/tui.md names it. */
  name: string;
  bindings: readonly KeyBinding<Command>[];
  /** What docs/tui.md adds after the keys. */
  note?: string;
}

function matches(match: KeyMatch, { input, key }: KeyPress): boolean {
  if (match === 'text') return input.length > 0 && !key.ctrl && !key.meta && !keyNames.some((name) => key[name]);
  if (match === 'character') return input.length === 1 && !key.ctrl && !key.meta;
  if ('input' in match) return input === match.input;
  if ('ctrl' in match) return key.ctrl === true && input === match.ctrl;
  return key[match.key] === true;
}

/**
 * The presses a text box takes from one chunk of input. Text that ends in a line break, with none
 * before it, was typed faster than the terminal was read (over a slow link, or by a program): it is
 * the text, then Enter. A chunk with a line break before its end is a paste, one press (the box
 * turns its line breaks into spaces); anything else is the press itself.
 */
export function textBoxPresses(press: KeyPress): KeyPress[] {
  const typedLine = /^([^\r\n]+)(?:\r\n|\r|\n)$/.exec(press.input);
  if (!typedLine?.[1] || !matches('text', press)) return [press];
  return [
    { input: typedLine[1], key: {} },
    { input: '\r', key: { return: true } },
  ];
}

/** The command of the first binding one of whose keys is `press`; null when none is. */
export function commandFor<Command>(screen: KeyScreen<Command>, press: KeyPress): Command | null {
  for (const binding of screen.bindings) {
    if (!binding.keys.some((match) => matches(match, press))) continue;
    const { command } = binding;
    return typeof command === 'function' ? (command as (press: KeyPress) => Command)(press) : command;
  }
  return null;
}

/** The help line of a screen (`↑↓/jk move  Enter select  …`), without the bindings labelled `leaveOut`. */
export function helpLine(screen: KeyScreen<unknown>, leaveOut: readonly string[] = []): string {
  return screen.bindings
    .filter((binding) => binding.inHelpLine !== false && !leaveOut.includes(binding.label))
    .map((binding) => `${binding.label} ${binding.help}`)
    .join('  ');
}

const typed = (...characters: string[]): KeyMatch[] => characters.map((character) => ({ input: character }));
const named = (...names: KeyName[]): KeyMatch[] => names.map((name) => ({ key: name }));
const upOrK = (press: KeyPress) => press.key.upArrow === true || press.input === 'k';
const up = (press: KeyPress) => press.key.upArrow === true;

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
  | { type: 'rename' }
  | { type: 'edit-tags' }
  | { type: 'toggle-pin' }
  | { type: 'cycle-tag' }
  | { type: 'toggle-archived' }
  | { type: 'usage' }
  | { type: 'leave' };

export const pickerKeys: KeyScreen<PickerCommand> = {
  name: 'Session picker',
  bindings: [
    {
      keys: [...named('upArrow', 'downArrow'), ...typed('k', 'j')],
      label: '↑↓/jk',
      help: 'move',
      command: (press) => ({ type: 'move', by: upOrK(press) ? -1 : 1 }),
    },
    {
      keys: named('pageUp', 'pageDown'),
      label: 'PgUp/PgDn',
      help: 'page',
      inHelpLine: false,
      command: (press) => ({ type: 'page', direction: press.key.pageUp ? -1 : 1 }),
    },
    {
      keys: [...named('home', 'end'), ...typed('g', 'G')],
      label: 'g/G',
      help: 'first/last',
      inHelpLine: false,
      command: (press) => ({ type: 'move-to', position: press.key.home || press.input === 'g' ? 'first' : 'last' }),
    },
    {
      keys: named('return'),
      label: 'Enter',
      help: 'select',
      description: 'select (resume if unfinished, continue if completed)',
      command: { type: 'select' },
    },
    { keys: typed('c'), label: 'c', help: 'continue', command: { type: 'continue' } },
    {
      keys: typed('a'),
      label: 'a',
      help: 'answer',
      description: 'answer the question of a waiting session',
      command: { type: 'answer' },
    },
    { keys: typed('/'), label: '/', help: 'search', command: { type: 'search' } },
    {
      keys: typed('s'),
      label: 's',
      help: 'status',
      description: 'cycle status filter',
      command: { type: 'cycle-status' },
    },
    { keys: typed('m'), label: 'm', help: 'mode', description: 'cycle mode filter', command: { type: 'cycle-mode' } },
    {
      keys: typed('w'),
      label: 'w',
      help: 'this dir/all',
      description: 'this directory / all workspaces',
      command: { type: 'toggle-workspace' },
    },
    {
      keys: typed('d'),
      label: 'd',
      help: 'delete',
      description: 'move to the trash (asks `[y/N]`; `conclave sessions restore` brings it back)',
      command: { type: 'delete' },
    },
    {
      keys: typed('r'),
      label: 'r',
      help: 'rename',
      description: 'name the session (unique; the name works wherever an id does)',
      command: { type: 'rename' },
    },
    { keys: typed('t'), label: 't', help: 'tags', description: 'edit its tags', command: { type: 'edit-tags' } },
    {
      keys: typed('p'),
      label: 'p',
      help: 'pin',
      description: 'pin/unpin (pinned sessions come first; retention never deletes them)',
      command: { type: 'toggle-pin' },
    },
    {
      keys: typed('#'),
      label: '#',
      help: 'tag',
      description: 'cycle tag filter',
      command: { type: 'cycle-tag' },
    },
    {
      keys: typed('A'),
      label: 'A',
      help: 'archived',
      description: 'show/hide archived sessions (hidden at first)',
      command: { type: 'toggle-archived' },
    },
    {
      keys: typed('u'),
      label: 'u',
      help: 'usage',
      description: 'tokens and cost of every session, a bar per day (`conclave usage` in full)',
      command: { type: 'usage' },
    },
    {
      keys: named('tab'),
      label: 'Tab',
      help: 'details',
      description: 'details pane on/off',
      command: { type: 'toggle-details' },
    },
    { keys: [...named('escape'), ...typed('q')], label: 'Esc/q', help: 'quit', command: { type: 'leave' } },
  ],
};

export type SearchInputCommand =
  | { type: 'type'; text: string }
  | { type: 'erase' }
  | { type: 'accept' }
  | { type: 'clear' }
  | { type: 'move'; by: number };

/** While the search box has focus, letters are text; arrows still move the cursor. */
export const searchKeys: KeyScreen<SearchInputCommand> = {
  name: 'Search box',
  bindings: [
    {
      keys: ['text'],
      label: 'type',
      help: 'to search titles and content',
      command: (press) => ({ type: 'type', text: press.input }),
    },
    {
      keys: named('backspace', 'delete'),
      label: 'Backspace',
      help: 'erase',
      inHelpLine: false,
      command: { type: 'erase' },
    },
    {
      keys: named('upArrow', 'downArrow'),
      label: '↑↓',
      help: 'move',
      inHelpLine: false,
      command: (press) => ({ type: 'move', by: up(press) ? -1 : 1 }),
    },
    {
      keys: named('return'),
      label: 'Enter',
      help: 'keep',
      description: 'keep the search',
      command: { type: 'accept' },
    },
    { keys: named('escape'), label: 'Esc', help: 'clear', description: 'clear it', command: { type: 'clear' } },
  ],
};

/** The usage screen (`u` in the picker): it only shows, any of its keys goes back. */
export const usageKeys: KeyScreen<{ type: 'close' }> = {
  name: 'Usage screen',
  bindings: [
    { keys: [...named('escape'), ...typed('q', 'u')], label: 'Esc/q/u', help: 'back', command: { type: 'close' } },
  ],
};

export type ConfirmCommand = { type: 'answer'; yes: boolean };

/** `Resume …? [Y/n]`: yes is the default. */
export const resumeKeys: KeyScreen<ConfirmCommand> = {
  name: 'Resume prompt',
  bindings: [
    {
      keys: [...typed('y', 'Y'), ...named('return')],
      label: 'y/Enter',
      help: 'resume',
      command: { type: 'answer', yes: true },
    },
    {
      keys: [...typed('n', 'N'), ...named('escape')],
      label: 'n/Esc',
      help: 'do not resume',
      command: { type: 'answer', yes: false },
    },
  ],
};

/** `Delete …? [y/N]`: keeping the session is the default. */
export const deleteKeys: KeyScreen<ConfirmCommand> = {
  name: 'Delete question (`sessions delete` in a terminal, `d` in the picker)',
  bindings: [
    { keys: typed('y', 'Y'), label: 'y', help: 'delete', command: { type: 'answer', yes: true } },
    {
      keys: [...typed('n', 'N'), ...named('escape', 'return')],
      label: 'n/Enter/Esc',
      help: 'keep',
      command: { type: 'answer', yes: false },
    },
  ],
};

export type ConflictCommand =
  | { type: 'move'; by: number }
  | { type: 'keep' }
  | { type: 'restore' }
  | { type: 'toggle-diff' }
  | { type: 'scroll-diff'; by: number }
  | { type: 'apply' }
  | { type: 'cancel' };

export const conflictKeys: KeyScreen<ConflictCommand> = {
  name: 'Conflict screen',
  note: 'a file created since the session read it as missing is flagged `!new since read`',
  bindings: [
    // `k` is "keep" here (docs/architecture.md#the-tui), so files move with the arrows only.
    {
      keys: named('upArrow', 'downArrow'),
      label: '↑↓',
      help: 'file',
      command: (press) => ({ type: 'move', by: up(press) ? -1 : 1 }),
    },
    { keys: typed('k'), label: 'k', help: 'keep current', command: { type: 'keep' } },
    {
      keys: typed('r'),
      label: 'r',
      help: 'restore snapshot',
      description: 'restore snapshot (your version is kept with the session: `conclave files`)',
      command: { type: 'restore' },
    },
    { keys: typed('d'), label: 'd', help: 'diff', command: { type: 'toggle-diff' } },
    { keys: named('return'), label: 'Enter', help: 'apply', command: { type: 'apply' } },
    { keys: named('escape'), label: 'Esc', help: 'cancel resume', command: { type: 'cancel' } },
  ],
};

export const diffKeys: KeyScreen<ConflictCommand> = {
  name: 'Diff',
  bindings: [
    {
      keys: [...named('upArrow', 'downArrow'), ...typed('k', 'j')],
      label: '↑↓/jk',
      help: 'scroll',
      command: (press) => ({ type: 'scroll-diff', by: upOrK(press) ? -1 : 1 }),
    },
    {
      keys: [...named('pageUp', 'pageDown'), ...typed(' ')],
      label: 'PgUp/PgDn',
      help: 'page',
      description: 'page (also `Space`)',
      command: (press) => ({ type: 'scroll-diff', by: press.key.pageUp ? -10 : 10 }),
    },
    {
      keys: [...typed('d', 'q'), ...named('escape')],
      label: 'd/Esc',
      help: 'close diff',
      command: { type: 'toggle-diff' },
    },
  ],
};

export function conflictCommand(press: KeyPress, diffOpen: boolean): ConflictCommand | null {
  return commandFor(diffOpen ? diffKeys : conflictKeys, press);
}

export type ChoiceCommand =
  | { type: 'move'; by: number }
  | { type: 'choose-shortcut'; shortcut: string }
  | { type: 'accept' }
  | { type: 'cancel' };

/** Menus (uncertain step, model unavailable): arrows move, a shortcut letter picks, Enter accepts, Esc cancels. */
export const choiceKeys: KeyScreen<ChoiceCommand> = {
  name: 'Uncertain step, model unavailable, unfinished session',
  bindings: [
    {
      keys: named('upArrow', 'downArrow'),
      label: '↑↓',
      help: 'move',
      command: (press) => ({ type: 'move', by: up(press) ? -1 : 1 }),
    },
    { keys: named('return'), label: 'Enter', help: 'choose', command: { type: 'accept' } },
    { keys: named('escape'), label: 'Esc', help: 'cancel', command: { type: 'cancel' } },
    {
      keys: ['character'],
      label: 'letter',
      help: 'shortcut',
      description: 'shortcut: the letter or digit in brackets picks at once',
      command: (press) => ({ type: 'choose-shortcut', shortcut: press.input.toLowerCase() }),
    },
  ],
};

export type TextInputCommand =
  | { type: 'type'; text: string }
  | { type: 'erase-back' }
  | { type: 'erase-forward' }
  | { type: 'move'; by: number }
  | { type: 'move-to'; position: 'start' | 'end' }
  | { type: 'clear' }
  | { type: 'submit' }
  | { type: 'cancel' };

/**
 * The keys of a one-line text box, readline-style; `submit` says what Enter does, `cancel` what
 * Esc does, `more` are the box's own keys (listed after the arrows).
 */
function textBoxBindings<Command>(
  submit: { help: string; description: string },
  cancel: string,
  more: KeyBinding<Command>[] = [],
): KeyBinding<Command | TextInputCommand>[] {
  return [
    { keys: named('return'), label: 'Enter', ...submit, command: { type: 'submit' } },
    {
      keys: named('leftArrow', 'rightArrow'),
      label: '←→',
      help: 'move',
      command: (press) => ({ type: 'move', by: press.key.leftArrow ? -1 : 1 }),
    },
    ...more,
    { keys: [{ ctrl: 'u' }], label: 'Ctrl+U', help: 'clear', command: { type: 'clear' } },
    { keys: named('escape'), label: 'Esc', help: 'cancel', description: cancel, command: { type: 'cancel' } },
    // Terminals send Backspace as DEL, which Ink reports as `delete`; the forward delete is Ctrl+D.
    {
      keys: named('backspace', 'delete'),
      label: 'Backspace',
      help: 'erase',
      inHelpLine: false,
      command: { type: 'erase-back' },
    },
    {
      keys: [{ ctrl: 'd' }],
      label: 'Ctrl+D',
      help: 'erase forward',
      inHelpLine: false,
      command: { type: 'erase-forward' },
    },
    {
      keys: [...named('home', 'end'), { ctrl: 'a' }, { ctrl: 'e' }],
      label: 'Ctrl+A/Ctrl+E',
      help: 'start/end',
      description: 'start/end (also `Home`/`End`)',
      inHelpLine: false,
      command: (press) => ({ type: 'move-to', position: press.key.home || press.input === 'a' ? 'start' : 'end' }),
    },
    {
      keys: ['text'],
      label: 'type',
      help: 'the text',
      inHelpLine: false,
      command: (press) => ({ type: 'type', text: press.input }),
    },
  ];
}

/** The picker's name box (`r`) and tags box (`t`). */
export const organizeKeys: KeyScreen<TextInputCommand> = {
  name: 'Name and tags boxes (picker `r`, `t`)',
  bindings: textBoxBindings(
    { help: 'save', description: 'save it (an empty name removes the name)' },
    'leave it unchanged',
  ),
  note: 'tags are separated by spaces or commas',
};

/** The follow-up question of a continued session. */
export const followUpKeys: KeyScreen<TextInputCommand> = {
  name: 'Follow-up question',
  bindings: textBoxBindings({ help: 'start', description: 'start the continued run' }, 'leave without starting'),
  note: 'an empty question never starts a run',
};

/**
 * The answer box of a waiting session (the picker's details pane, the question asked inline):
 * the text box's keys, and ↑↓ go through the choices of a closed question.
 */
export type AnswerInputCommand = TextInputCommand | { type: 'choice'; by: number };

export const answerKeys: KeyScreen<AnswerInputCommand> = {
  name: "Answer box (picker `a`, `--resume` on a waiting session, an agent's question during a run)",
  bindings: textBoxBindings<AnswerInputCommand>(
    { help: 'answer and continue', description: 'check and journal it and continue the run' },
    'leave without answering',
    [
      {
        keys: named('upArrow', 'downArrow'),
        label: '↑↓',
        help: 'choices',
        description: 'go through the choices of a closed question',
        command: (press) => ({ type: 'choice', by: up(press) ? -1 : 1 }),
      },
    ],
  ),
  note: 'an answer that does not fit is refused inline, nothing written',
};

/** The answer box's help line: ↑↓ only for a closed question, ←→ otherwise. */
export function answerHelp(withChoices: boolean): string {
  return helpLine(answerKeys, [withChoices ? '←→' : '↑↓']);
}

/** The live run view has no keys of its own. */
const liveRunKeys: KeyScreen<never> = {
  name: 'Live run',
  bindings: [],
  note: 'none: `Ctrl+C` reaches the CLI, which checkpoints, prints the resume command and exits 130',
};

/** Every screen, in the order docs/tui.md lists them. */
export const keyScreens: readonly KeyScreen<unknown>[] = [
  pickerKeys,
  searchKeys,
  usageKeys,
  resumeKeys,
  conflictKeys,
  diffKeys,
  deleteKeys,
  answerKeys,
  followUpKeys,
  organizeKeys,
  choiceKeys,
  liveRunKeys,
];

/** `` `label` `` for a key, a plain word for what is not one (`type`, `letter`). */
function keyLabel(label: string): string {
  return /^[a-z]{2,}$/.test(label) ? label : `\`${label}\``;
}

/** The key table of docs/tui.md, generated from the screens above. */
export function keyTable(): string {
  const rows = keyScreens.map((screen) => {
    const keys = screen.bindings.map((binding) => `${keyLabel(binding.label)} ${binding.description ?? binding.help}`);
    const note = screen.note ? `${keys.length > 0 ? '; ' : ''}${screen.note}` : '';
    return `| ${screen.name} | ${keys.join(', ')}${note} |`;
  });
  return ['| Screen | Keys |', '|---|---|', ...rows].join('\n');
}
