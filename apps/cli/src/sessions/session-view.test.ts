import { describe, expect, it } from 'vitest';
import { describeProgress } from './session-view.js';

describe('describeProgress', () => {
  it('counts open-ended progress in words that agree with the number', () => {
    expect(describeProgress({ status: 'interrupted', progress: { label: 'turns', done: 1, total: null } })).toBe(
      '1 turn',
    );
    expect(describeProgress({ status: 'completed', progress: { label: 'turns', done: 3, total: null } })).toBe(
      '3 turns',
    );
  });

  it('shows bounded progress as done/total', () => {
    expect(describeProgress({ status: 'completed', progress: { label: 'rounds', done: 2, total: 4 } })).toBe(
      'rounds 2/4',
    );
  });
});
