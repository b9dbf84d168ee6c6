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

  it('refuses up front every session that recorded no run, whatever mode it names', () => {
    const thread = libraryRefusal(sessionWith(testHeader({ mode: 'langgraph', options: { threadId: 'support-42' } })));
    expect(thread?.message).toContain('not started by the runner (mode langgraph)');
    expect(nextStepOf(thread)).toMatchObject({ kind: 'continue-in-its-program', threadId: 'support-42' });
    expect(nextStepOf(libraryRefusal(sessionWith(testHeader({ mode: 'custom', options: {} }))))).toMatchObject({
      kind: 'continue-in-its-program',
      threadId: null,
    });
    // A discussion the runner did not record (a program's, a hand-made one): the run would refuse it the same way.
    const unrecorded = sessionWith(testHeader({ mode: 'discussion', options: {} }));
    expect(libraryRefusal(unrecorded)?.message).toBe(refusal(unrecorded).message);
    expect(nextStepOf(libraryRefusal(unrecorded))).toMatchObject({ kind: 'continue-in-its-program' });
    // A recorded run is the run's to check, in a mode this registry lacks too.
    expect(
      libraryRefusal(sessionWith(testHeader({ mode: 'discussion', options: { run: { mode: 'discussion' } } }))),
    ).toBeNull();
    expect(
      libraryRefusal(sessionWith(testHeader({ mode: 'triage', options: { run: { mode: 'triage' } } }))),
    ).toBeNull();
  });
});
