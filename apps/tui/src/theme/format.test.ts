import { describe, expect, it } from 'vitest';
import { wrapHelp, wrapText } from './format.js';

describe('wrapText', () => {
  it('breaks between words, indents continuation lines and cuts only a word longer than a line', () => {
    expect(wrapText('• Skipped (already done): 5 steps', 14, '  ')).toEqual([
      '• Skipped',
      '  (already',
      '  done): 5',
      '  steps',
    ]);
    expect(wrapText('abcdefghij kl', 4)).toEqual(['abcd', 'efgh', 'ij', 'kl']);
    expect(wrapText('', 10)).toEqual(['']);
  });
});

describe('wrapHelp', () => {
  it('breaks a key-help line between its entries, never inside one that fits', () => {
    const help = '↑↓/jk move  Enter select  c continue  / search  q quit';
    expect(wrapHelp(help, 80)).toEqual([help]);
    expect(wrapHelp(help, 30)).toEqual(['↑↓/jk move  Enter select', 'c continue  / search  q quit']);
    for (const line of wrapHelp(help, 12)) expect(line.length).toBeLessThanOrEqual(12);
  });
});
