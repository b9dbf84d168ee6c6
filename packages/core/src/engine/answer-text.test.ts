// Typed answers become the value the question's schema expects, and the expectation is put
// into words for the person answering.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { answerFromText, expectedAnswer } from './answer-text.js';
import { answerProblem, answerSchemaJson } from './wait.js';

const schemaOf = (schema: z.ZodType) => answerSchemaJson(schema);

describe('answers typed as text', () => {
  it('keeps text for a text question and reads yes/no, numbers and JSON for the others', () => {
    expect(answerFromText(null, 'Lisbon')).toBe('Lisbon');
    expect(answerFromText(schemaOf(z.string()), '42')).toBe('42');
    expect(answerFromText(schemaOf(z.boolean()), 'Yes')).toBe(true);
    expect(answerFromText(schemaOf(z.boolean()), 'n')).toBe(false);
    expect(answerFromText(schemaOf(z.number().int()), '3')).toBe(3);
    expect(answerFromText(schemaOf(z.object({ approved: z.boolean() })), '{"approved":true}')).toEqual({
      approved: true,
    });
    expect(answerFromText(schemaOf(z.union([z.literal(1), z.literal(2)])), '2')).toBe(2);
    // Not JSON: the text is kept, so the schema check names what is wrong with it.
    expect(answerFromText(schemaOf(z.boolean()), 'maybe')).toBe('maybe');
    expect(answerProblem(schemaOf(z.boolean()), answerFromText(schemaOf(z.boolean()), 'maybe'))).toContain(
      'expected boolean',
    );
  });

  it('says what a question expects, with the choices of a closed question', () => {
    expect(expectedAnswer(null)).toEqual({ hint: null, choices: null });
    expect(expectedAnswer(schemaOf(z.string()))).toEqual({ hint: null, choices: null });
    expect(expectedAnswer(schemaOf(z.boolean()))).toEqual({ hint: 'yes or no', choices: ['yes', 'no'] });
    expect(expectedAnswer(schemaOf(z.enum(['staging', 'production'])))).toEqual({
      hint: 'one of: staging, production',
      choices: ['staging', 'production'],
    });
    expect(expectedAnswer(schemaOf(z.number().int())).hint).toBe('a whole number');
    expect(expectedAnswer(schemaOf(z.number().min(1).max(5))).hint).toBe('a number from 1 to 5');
    expect(expectedAnswer(schemaOf(z.object({ approved: z.boolean(), note: z.string().optional() }))).hint).toBe(
      'JSON: {"approved": boolean, "note"?: string}',
    );
  });
});
