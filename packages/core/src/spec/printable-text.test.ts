import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { printableText } from './printable-text.js';

// What a terminal acts on: C0 (bar tab and newline where lines are kept), DEL, C1, bidi controls.
const ACTING = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('printableText', () => {
  it('shows a title-setting, screen-clearing task instead of letting it act', () => {
    expect(printableText('x \u001b]0;PWNED\u0007\u001b[2J')).toBe('x ␛]0;PWNED␇␛[2J');
  });

  it('shows C1 controls, DEL and bidirectional overrides by their code point', () => {
    expect(printableText('a\u009b2Jb\u007fc \u202egnp.exe\u202c \u2066x\u2069')).toBe(
      'a<U+009B>2Jb␡c <U+202E>gnp.exe<U+202C> <U+2066>x<U+2069>',
    );
  });

  it('keeps newlines and tabs in multi-line text and shows them in a one-line field', () => {
    expect(printableText('one\n\ttwo\r\nthree\rfour', 'lines')).toBe('one\n\ttwo\nthree␍four');
    expect(printableText('one\n\ttwo\r\n', 'line')).toBe('one␊␉two␍␊');
  });

  it('leaves ordinary text, accents and right-to-left scripts as they are', () => {
    for (const text of ['plain', 'café ☕ 日本', 'שלום עולם', 'مرحبا']) expect(printableText(text)).toBe(text);
  });

  it('never leaves a control that acts, and changes nothing else', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.constantFrom('line' as const, 'lines' as const), (text, layout) => {
        const shown = printableText(text, layout);
        expect(ACTING.test(shown)).toBe(false);
        if (layout === 'line') expect(shown).not.toMatch(/[\n\t]/);
        // Idempotent: showing shown text again changes nothing.
        expect(printableText(shown, layout)).toBe(shown);
        if (!/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/.test(text)) expect(shown).toBe(text);
      }),
    );
  });
});
