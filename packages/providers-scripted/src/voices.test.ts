import { describe, expect, it } from 'vitest';
import { keywordsOf, topicOf, voiceFor } from './voices.js';

describe('scripted voices', () => {
  it.each([
    [
      'Evaluate my idea: a subscription service for repairing bicycles.',
      'a subscription service for repairing bicycles',
    ],
    ['Should we move our nightly batch jobs to a queue?', 'the idea to move our nightly batch jobs to a queue'],
    ['How can we cut our cloud bill in half?', 'the plan to cut our cloud bill in half'],
    ['Plan a migration of our billing database.', 'the task to plan a migration of our billing database'],
    ['Is Rust worth it for our CLI?', 'the question "Is Rust worth it for our CLI?"'],
    ['', 'this task'],
  ])('turns the task %j into a subject that fits in a sentence', (task, topic) => {
    expect(topicOf(task)).toBe(topic);
  });

  it('keeps long subjects short', () => {
    expect(topicOf(`Evaluate my idea: ${'very '.repeat(20)}long`)).toMatch(/^(very ){9}very…$/);
  });

  it('picks the longest distinctive words of the task as keywords', () => {
    expect(keywordsOf('Should we migrate the billing database to PostgreSQL?')).toEqual([
      'postgresql',
      'database',
      'billing',
      'migrate',
    ]);
  });

  it('chooses a voice from the role in the name, else from its hash', () => {
    expect(voiceFor('optimist', 0)).toBe('optimist');
    expect(voiceFor('the-critic', 0)).toBe('skeptic');
    expect(voiceFor('Pragmatist', 0)).toBe('pragmatist');
    expect(voiceFor('architect', 0)).toBe('analyst');
    expect(voiceFor('alice', 1)).toBe('skeptic');
    expect(voiceFor('alice', 5)).toBe('skeptic');
  });
});
