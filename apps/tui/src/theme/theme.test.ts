import { describe, expect, it } from 'vitest';
import { formatAge, formatCost, formatProgress } from './format.js';
import { colorWanted, createTheme } from './theme.js';

describe('colour', () => {
  it('is off under NO_COLOR, --no-color or without a terminal', () => {
    expect(colorWanted({ env: {}, isTty: true })).toBe(true);
    expect(colorWanted({ env: { NO_COLOR: '1' }, isTty: true })).toBe(false);
    expect(colorWanted({ env: { NO_COLOR: '' }, isTty: true })).toBe(true);
    expect(colorWanted({ env: {}, isTty: true, noColor: true })).toBe(false);
    expect(colorWanted({ env: {}, isTty: false })).toBe(false);
  });

  it('gives no colour at all to a colourless theme', () => {
    const theme = createTheme({ color: false });
    expect([theme.accent, theme.danger, theme.statusColor('failed')]).toEqual([undefined, undefined, undefined]);
    expect(createTheme({ color: true }).statusColor('interrupted')).toBe('yellow');
  });
});

describe('format', () => {
  const now = new Date('2026-03-01T12:00:00.000Z');
  it('says ages, costs and progress briefly', () => {
    expect(formatAge('2026-03-01T11:59:30.000Z', now)).toBe('30s ago');
    expect(formatAge('2026-02-27T12:00:00.000Z', now)).toBe('2d ago');
    expect(formatCost(null)).toBe('cost unknown');
    expect(formatCost(null, '?')).toBe('?');
    expect(formatCost(0)).toBe('$0');
    expect(formatCost(0.004)).toBe('<$0.01');
    expect(formatProgress({ progress: { label: 'chunk', done: 7, total: 15 }, messageCount: 3 })).toBe('7/15 chunks');
    expect(formatProgress({ progress: { label: 'round', done: 1, total: null }, messageCount: 3 })).toBe('1 round');
    expect(formatProgress({ progress: null, messageCount: 3 })).toBe('3 msgs');
    expect(formatProgress({ progress: { label: 'turns', done: 1, total: null }, messageCount: 3 })).toBe('1 turn');
  });
});
