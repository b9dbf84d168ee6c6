import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitIntoChunks } from './chunking.js';

describe('splitIntoChunks', () => {
  it('keeps paragraphs whole when they fit', () => {
    const text = 'first para\nline two\n\nsecond para\n\nthird';
    expect(splitIntoChunks(text, 25)).toEqual(['first para\nline two\n\n', 'second para\n\nthird']);
  });

  it('never loses or reorders text and respects the size', () => {
    const paragraph = fc.stringMatching(/^[a-z .!?\n]{0,60}$/);
    fc.assert(
      fc.property(fc.array(paragraph, { maxLength: 12 }), fc.integer({ min: 1, max: 80 }), (paragraphs, size) => {
        const text = paragraphs.join('\n\n');
        const chunks = splitIntoChunks(text, size);
        expect(chunks.join('')).toBe(text);
        for (const chunk of chunks) {
          expect(chunk.length).toBeLessThanOrEqual(size);
          expect(chunk.length).toBeGreaterThan(0);
        }
      }),
    );
  });
});
