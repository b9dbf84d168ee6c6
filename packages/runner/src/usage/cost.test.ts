import { describe, expect, it } from 'vitest';
import { costOf, priceOf, priceTable } from './cost.js';

describe('costOf', () => {
  it('prices a known model per million tokens', () => {
    expect(costOf('gpt-4o', { inputTokens: 1_000_000, outputTokens: 0 })).toBe(2.5);
    expect(costOf('gpt-4o', { inputTokens: 1000, outputTokens: 500 })).toBeCloseTo(0.0025 + 0.005, 12);
    expect(costOf('claude-sonnet-4-5', { inputTokens: 2_000_000, outputTokens: 1_000_000 })).toBe(21);
  });

  it('matches dated snapshots to their base model, but a listed snapshot keeps its own price', () => {
    expect(priceOf('gpt-4o-2024-08-06')).toEqual(priceOf('gpt-4o'));
    expect(priceOf('gpt-4o-mini-2024-07-18')).toEqual(priceOf('gpt-4o-mini'));
    expect(priceOf('claude-3-5-sonnet-20241022')).toEqual(priceOf('claude-3-5-sonnet'));
    expect(priceOf('claude-3-5-sonnet-latest')).toEqual(priceOf('claude-3-5-sonnet'));
    expect(priceOf('gpt-4o-2024-05-13')).toEqual({ input: 5, output: 15 });
  });

  it('never guesses: unknown models and look-alike products cost null', () => {
    expect(costOf('llama3.1:8b', { inputTokens: 10, outputTokens: 10 })).toBeNull();
    expect(costOf('gpt-4o-audio-preview', { inputTokens: 10, outputTokens: 10 })).toBeNull();
    expect(costOf('gpt-4o-turbo-9000', { inputTokens: 10, outputTokens: 10 })).toBeNull();
    expect(costOf('openai/gpt-4o', { inputTokens: 10, outputTokens: 10 })).toBeNull();
  });

  it('costs nothing for a free provider (scripted), whatever model id it stands in for', () => {
    expect(costOf('gpt-4o', { inputTokens: 5000, outputTokens: 5000 }, { free: true })).toBe(0);
    expect(costOf('scripted', { inputTokens: 5000, outputTokens: 5000 })).toBe(0);
  });

  it('carries the date its prices were taken', () => {
    expect(priceTable.updated).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(Object.keys(priceTable.models).length).toBeGreaterThan(10);
  });
});
