import { PassThrough } from 'node:stream';
import { UsageError } from '@resume/core/spec';
import { describe, expect, it } from 'vitest';
import { createFakeBackend } from '../testing/fake-backend.js';
import {
  askAnswer,
  askUncertainStep,
  confirmResume,
  pickSession,
  resolveConflictsInteractively,
} from './interactive-screens.js';

function plainIo(input: string | null) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  let written = '';
  stdout.on('data', (chunk: Buffer) => {
    written += chunk.toString('utf8');
  });
  if (input !== null) stdin.end(input);
  else stdin.end();
  return {
    io: {
      stdin: stdin as unknown as NodeJS.ReadStream,
      stdout: stdout as unknown as NodeJS.WriteStream,
      env: {},
      interactive: false,
    },
    written: () => written,
  };
}

const plan = {
  sessionId: 's1',
  title: 'Fix OCR errors',
  action: 'resume' as const,
  question: 'Resume from chunk 8 of 15?',
  next: 'chunk 8 of 15',
  checkpoint: null,
  done: [{ label: 'chunk-1' }],
  skipped: [],
  rerun: [],
  uncertain: [],
  retrying: [],
  cost: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
  changes: { compatibility: null, files: null, git: null },
};

describe('screens without a terminal', () => {
  it('askAnswer asks one line: a fitting answer is sent, a misfit is refused with the problem, nothing ends it', async () => {
    const question = {
      sessionId: 's1',
      key: 'approval',
      prompt: 'Deploy v2?',
      hint: 'yes or no',
      choices: ['yes', 'no'],
    };
    const sent: string[] = [];
    const submit = async (text: string) => {
      sent.push(text);
      return /^(yes|no)$/.test(text)
        ? { accepted: true as const }
        : { accepted: false as const, problem: 'expected boolean' };
    };
    const yes = plainIo('yes\n');
    expect(await askAnswer({ question, title: 'Deploy' }, submit, yes.io)).toBe('yes');
    expect(yes.written()).toContain('? Deploy v2?');
    expect(yes.written()).toContain('Expected: yes or no');
    const misfit = plainIo('maybe\n');
    expect(await askAnswer({ question, title: 'Deploy' }, submit, misfit.io)).toBeNull();
    expect(misfit.written()).toContain('✗ expected boolean');
    expect(await askAnswer({ question, title: 'Deploy' }, submit, plainIo(null).io)).toBeNull();
    expect(sent).toEqual(['yes', 'maybe']);
  });

  it('confirmResume prints the plan and reads one line; end of input declines', async () => {
    const yes = plainIo('\n');
    expect(await confirmResume(plan, yes.io)).toBe(true);
    expect(yes.written()).toContain('Next: chunk 8 of 15');
    expect(yes.written()).toContain('Resume from chunk 8 of 15? [Y/n]');
    expect(await confirmResume(plan, plainIo('n\n').io)).toBe(false);
    expect(await confirmResume(plan, plainIo(null).io)).toBe(false);
  });

  it('resolveConflictsInteractively restores every changed file on "r" and cancels at end of input', async () => {
    const changes = [
      { path: 'a.txt', status: 'modified' as const },
      { path: 'b.txt', status: 'unchanged' as const },
    ];
    expect(await resolveConflictsInteractively(changes, {}, plainIo('r\n').io)).toEqual({
      choices: { 'a.txt': 'restore' },
    });
    expect(await resolveConflictsInteractively(changes, {}, plainIo('\n').io)).toEqual({
      choices: { 'a.txt': 'keep' },
    });
    expect(await resolveConflictsInteractively(changes, {}, plainIo(null).io)).toBe('cancel');
  });

  it('askUncertainStep aborts unless told otherwise', async () => {
    const info = {
      sessionId: 's',
      key: 'deploy',
      occurrence: 1,
      attempt: 1,
      safety: 'unsafe' as const,
      idempotencyKey: 's:deploy:1',
      startedAt: '2026-03-01T11:00:00.000Z',
      previousFailures: [],
    };
    expect(await askUncertainStep(info, plainIo('s\n').io)).toBe('skip');
    expect(await askUncertainStep(info, plainIo(null).io)).toBe('abort');
  });

  it('pickSession refuses without a terminal with a usage error that says what to do', async () => {
    const { backend } = createFakeBackend({ sessions: [] });
    const error = await pickSession(backend, plainIo(null).io).catch((caught: unknown) => caught);
    expect(UsageError.isInstance(error)).toBe(true);
    expect((error as UsageError).hint).toContain('Pass a session id');
  });
});
