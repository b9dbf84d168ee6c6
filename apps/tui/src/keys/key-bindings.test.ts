import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  answerHelp,
  answerKeys,
  commandFor,
  conflictCommand,
  deleteKeys,
  followUpKeys,
  helpLine,
  keyTable,
  pickerKeys,
  resumeKeys,
  textBoxPresses,
} from './key-bindings.js';

describe('key bindings', () => {
  it('are the key table of docs/tui.md (rewrite it with apps/tui/scripts/write-key-table.mjs)', () => {
    const docs = readFileSync(new URL('../../../../docs/tui.md', import.meta.url), 'utf8');
    expect(docs).toContain(keyTable());
  });

  it('give each screen its help line', () => {
    expect(helpLine(pickerKeys)).toBe(
      '↑↓/jk move  Enter select  c continue  a answer  / search  s status  m mode  w this dir/all  d delete  r rename  t tags  p pin  # tag  A archived  u usage  Tab details  Esc/q quit',
    );
    expect(helpLine(followUpKeys)).toBe('Enter start  ←→ move  Ctrl+U clear  Esc cancel');
    expect(answerHelp(true)).toBe('Enter answer and continue  ↑↓ choices  Ctrl+U clear  Esc cancel');
    expect(answerHelp(false)).toBe('Enter answer and continue  ←→ move  Ctrl+U clear  Esc cancel');
  });

  it('turn a keypress into the command of its screen', () => {
    expect(commandFor(pickerKeys, { input: 'k', key: {} })).toEqual({ type: 'move', by: -1 });
    expect(commandFor(pickerKeys, { input: '', key: { pageDown: true } })).toEqual({ type: 'page', direction: 1 });
    expect(commandFor(pickerKeys, { input: 'x', key: {} })).toBeNull();
    // Enter takes each question's default: resume yes, delete no.
    expect(commandFor(resumeKeys, { input: '\r', key: { return: true } })).toEqual({ type: 'answer', yes: true });
    expect(commandFor(deleteKeys, { input: '\r', key: { return: true } })).toEqual({ type: 'answer', yes: false });
    // `k` keeps a file on the conflict list and scrolls an open diff.
    expect(conflictCommand({ input: 'k', key: {} }, false)).toEqual({ type: 'keep' });
    expect(conflictCommand({ input: 'k', key: {} }, true)).toEqual({ type: 'scroll-diff', by: -1 });
    expect(commandFor(answerKeys, { input: 'a', key: { ctrl: true } })).toEqual({ type: 'move-to', position: 'start' });
    expect(commandFor(answerKeys, { input: 'x', key: { ctrl: true } })).toBeNull();
    expect(commandFor(answerKeys, { input: 'ja', key: {} })).toEqual({ type: 'type', text: 'ja' });
    expect(commandFor(answerKeys, { input: '\r', key: { return: true } })).toEqual({ type: 'submit' });
    expect(commandFor(answerKeys, { input: '', key: { downArrow: true } })).toEqual({ type: 'choice', by: 1 });
  });

  it("split a text box's chunk that ends in a line break into the text and Enter, and leave a paste whole", () => {
    const enter = { input: '\r', key: { return: true } };
    expect(textBoxPresses({ input: 'What about scale?\r', key: {} })).toEqual([
      { input: 'What about scale?', key: {} },
      enter,
    ]);
    expect(textBoxPresses({ input: 'yes\r\n', key: {} })).toEqual([{ input: 'yes', key: {} }, enter]);
    for (const press of [
      { input: 'one\ntwo\n', key: {} },
      { input: 'one\ntwo', key: {} },
      { input: 'plain', key: {} },
      enter,
      { input: '\r', key: {} },
      { input: 'u\r', key: { ctrl: true } },
    ]) {
      expect(textBoxPresses(press)).toEqual([press]);
    }
  });
});
