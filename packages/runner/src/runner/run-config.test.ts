import type { SessionState } from '@resume/core';
import { IncompatibleSessionError } from '@resume/core/spec';
import { testHeader } from '@resume/core/testing';
import { describe, expect, it } from 'vitest';
import { nextStepOf } from './next-step.js';
import { libraryRefusal, readRunConfig } from './run-config.js';

/** What readRunConfig reads of a session: its header. */
const sessionWith = (header: ReturnType<typeof testHeader>) => ({ header }) as unknown as SessionState;

function refusal(state: SessionState): IncompatibleSessionError {
  try {
    readRunConfig(state);
  } catch (error) {
    if (IncompatibleSessionError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('readRunConfig accepted a session without a run configuration');
}

describe('the run configuration a session recorded', () => {
  it('says, as data, that the program that wrote a library session continues it (forcing cannot)', () => {
    const thread = refusal(sessionWith(testHeader({ mode: 'langgraph', options: { threadId: 'support-42' } })));
    expect(thread.message).toContain('not started by the runner (mode langgraph)');
    expect(nextStepOf(thread)).toEqual({
      kind: 'continue-in-its-program',
      sessionId: thread.sessionId,
      threadId: 'support-42',
    });

    const other = refusal(sessionWith(testHeader({ mode: 'ai-sdk', options: {} })));
    expect(nextStepOf(other)).toEqual({ kind: 'continue-in-its-program', sessionId: other.sessionId, threadId: null });
  });

  it('refuses up front only a session a program wrote: one in a runner mode is left to its run', () => {
    const thread = libraryRefusal(sessionWith(testHeader({ mode: 'langgraph', options: { threadId: 'support-42' } })));
    expect(thread?.message).toContain('not started by the runner (mode langgraph)');
    expect(nextStepOf(thread)).toMatchObject({ kind: 'continue-in-its-program', threadId: 'support-42' });
    expect(nextStepOf(libraryRefusal(sessionWith(testHeader({ mode: 'custom', options: {} }))))).toMatchObject({
      kind: 'continue-in-its-program',
      threadId: null,
    });
    // A discussion the runner did not record (an older build's, a hand-made one) is the run's to word.
    expect(libraryRefusal(sessionWith(testHeader({ mode: 'discussion', options: {} })))).toBeNull();
    // A mode a plugin registered is known by its recorded run, whatever the registry holds.
    expect(
      libraryRefusal(sessionWith(testHeader({ mode: 'triage', options: { run: { mode: 'triage' } } }))),
    ).toBeNull();
  });
});
