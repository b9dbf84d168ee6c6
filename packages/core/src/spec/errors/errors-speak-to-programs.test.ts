// Core's errors are read by programs: a stable code and structured data. The exit code (chosen
// from the code) and the wording a person needs (which `conclave` command to run, which flag to
// pass) are the front ends', so no message or hint from core names a command or a flag.
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../engine/engine.js';
import * as core from '../../index.js';
import { createMemoryStore } from '../../testing/memory-store.js';
import { testSummary } from '../../testing/session-fixtures.js';
import { ConclaveError } from './conclave-error.js';

/** A front end's wording: a `conclave ...` command or a `--flag` (the product name "Conclave" is fine). */
const frontEndWording = /\bconclave\s|(^|\s)--[a-z]/;

const sessionId = '0001m84j6ta3tpjd4qpvde';
const uncertainStep: core.UncertainStepInfo = {
  sessionId,
  key: 'charge',
  occurrence: 1,
  attempt: 2,
  safety: 'unsafe',
  idempotencyKey: `${sessionId}:charge:1`,
  startedAt: '2026-01-01T00:00:00.000Z',
  previousFailures: [],
};

/** One instance of every error class core exports, built as core's own code builds them. */
const instances: Record<string, () => ConclaveError> = {
  ConclaveError: () => new core.ConclaveError('conclave-error', 'Something failed.'),
  AppendConflictError: () => new core.AppendConflictError(sessionId, 3, 4),
  ConfigError: () =>
    new core.ConfigError({ file: 'config.yaml', key: 'providers', problem: 'is not a map', fix: 'Write a map.' }),
  EncryptionKeyUnavailableError: () =>
    new core.EncryptionKeyUnavailableError({ keyId: '3f2a9c0d11e4', sessionId, location: 'journal.jsonl' }),
  FileNotFoundError: () => new core.FileNotFoundError('/tmp/missing.json'),
  IncompatibleSessionError: () => new core.IncompatibleSessionError(sessionId, ['the spec changed']),
  InterruptedError: () => new core.InterruptedError(sessionId),
  JournalCorruptedError: () =>
    new core.JournalCorruptedError({ sessionId, file: 'journal.jsonl', offset: 120, problem: 'bad checksum' }),
  JournalCorruptedErrorWithoutSession: () =>
    new core.JournalCorruptedError({ sessionId: null, file: 'export.json', offset: null, problem: 'bad json' }),
  LeaseLostError: () => new core.LeaseLostError(sessionId),
  PermissionDeniedError: () => new core.PermissionDeniedError('/tmp/home/sessions/x/journal.jsonl', 'read'),
  ProviderError: () => new core.ProviderError({ reason: 'rate-limit', provider: 'openai', message: 'Slow down.' }),
  RecoveryLimitError: () => new core.RecoveryLimitError({ sessionId, recoveries: 11, limit: 10, stepKey: 'charge' }),
  ReplayMismatchError: () =>
    new core.ReplayMismatchError({ sessionId, position: 2, expected: 'step "a" #1', requested: 'step "b" #1' }),
  SessionDeletedError: () =>
    new core.SessionDeletedError(sessionId, {
      messages: 6,
      steps: 5,
      costUsd: 0.02,
      location: '/tmp/home/sessions/x',
    }),
  SessionExistsError: () => new core.SessionExistsError(sessionId),
  SessionNameTakenError: () =>
    new core.SessionNameTakenError({ name: 'release', holderId: sessionId, holderTitle: 'Ship it' }),
  SessionFinishedError: () => new core.SessionFinishedError({ sessionId, status: 'completed', operation: 'step "a"' }),
  SessionLockedError: () =>
    new core.SessionLockedError(sessionId, { pid: 42, host: 'box', since: '2026-01-01T00:00:00.000Z' }),
  SessionNotFoundError: () => new core.SessionNotFoundError('zzzzzzzz', undefined, { recent: [] }),
  StepAbortedError: () => new core.StepAbortedError(sessionId, 'charge'),
  InputRejectedError: () => new core.InputRejectedError({ sessionId, key: 'approval', problem: 'expected a boolean' }),
  WaitingForInputError: () => new core.WaitingForInputError({ sessionId, key: 'approval', prompt: 'Deploy v2?' }),
  StepFailedError: () =>
    new core.StepFailedError({
      sessionId,
      key: 'charge',
      occurrence: 1,
      attempts: [{ attempt: 1, error: { name: 'Error', message: 'declined', code: null, retryable: false } }],
    }),
  StepOutputError: () =>
    new core.StepOutputError({ sessionId, key: 'charge', path: 'output.total', problem: 'is a bigint' }),
  StoreFullError: () =>
    new core.StoreFullError({ path: '/tmp/home/sessions/x/journal.jsonl', location: '/tmp/home', freeBytes: 0 }),
  StoreQuotaError: () =>
    new core.StoreQuotaError({
      limit: 'maxSessionBytes',
      limitBytes: 500 * 1024 * 1024,
      usedBytes: 499 * 1024 * 1024,
      writingBytes: 2 * 1024 * 1024,
      location: '/tmp/home',
      sessionId,
      biggest: [{ id: sessionId, bytes: 499 * 1024 * 1024 }],
      parts: { journal: 400 * 1024 * 1024, snapshots: 90 * 1024 * 1024, other: 9 * 1024 * 1024 },
    }),
  StoreIoError: () => new core.StoreIoError('fsync failed', '/tmp/journal.jsonl'),
  UncertainStepError: () => new core.UncertainStepError(uncertainStep),
  UnsupportedFormatError: () => new core.UnsupportedFormatError(`Session ${sessionId}`, 9),
  UsageError: () => new core.UsageError('Bad input.'),
};

/** The names of every class `@resume/core` exports that is (or extends) ConclaveError. */
function exportedErrorClasses(): string[] {
  return Object.entries(core)
    .filter(
      ([, value]) =>
        typeof value === 'function' &&
        (value === ConclaveError || (value as { prototype?: unknown }).prototype instanceof ConclaveError),
    )
    .map(([name]) => name)
    .sort();
}

describe('errors from core speak to programs', () => {
  it('knows an instance of every exported error class', () => {
    const classes = exportedErrorClasses();
    expect(classes.length).toBeGreaterThan(15);
    expect(classes.filter((name) => !(name in instances))).toEqual([]);
  });

  it('the wording check catches commands and flags', () => {
    expect(frontEndWording.test('List sessions with: conclave sessions list')).toBe(true);
    expect(frontEndWording.test('Choose with --on-uncertain rerun|skip|abort.')).toBe(true);
    expect(frontEndWording.test('Session data is corrupted: bad checksum (journal.jsonl at byte 120).')).toBe(false);
  });

  for (const [name, build] of Object.entries(instances)) {
    it(`${name}: a code, no exit code, and no command or flag in its message or hint`, () => {
      const error = build();
      expect(ConclaveError.isInstance(error)).toBe(true);
      expect(error.code).toMatch(/^[a-z-]+$/);
      expect(error).not.toHaveProperty('exitCode');
      expect(error.message).not.toMatch(frontEndWording);
      expect(error.hint ?? '').not.toMatch(frontEndWording);
    });
  }

  it('keeps the data a front end needs to word its hint', () => {
    const corrupted = new core.JournalCorruptedError({
      sessionId,
      file: 'journal.jsonl',
      offset: 120,
      problem: 'bad checksum',
    });
    expect(corrupted).toMatchObject({ code: 'journal-corrupted', sessionId, offset: 120 });
    expect(new core.UncertainStepError(uncertainStep)).toMatchObject({ code: 'step-uncertain' });
    expect(new core.UncertainStepError(uncertainStep).step).toEqual(uncertainStep);
    const recent = [testSummary(sessionId, 3)];
    const notFound = new core.SessionNotFoundError('zzzzzzzz', undefined, { recent });
    expect(notFound).toMatchObject({ code: 'session-not-found', reference: 'zzzzzzzz', recent });
    expect(new core.SessionNotFoundError('zzzzzzzz').recent).toBeNull();
  });

  it('the engine reports a missing session with the recent ones as data, not as wording', async () => {
    const engine = createEngine({ store: createMemoryStore() });
    const empty = await engine.resolveSessionId('zzzzzzzz').catch((caught: unknown) => caught);
    expect(core.SessionNotFoundError.isInstance(empty) && empty.recent).toEqual([]);
    const session = await engine.createSession({ title: 'the only one', mode: 'custom' });
    await session.close();
    for (const attempt of [
      () => engine.resolveSessionId('zzzzzzzz'),
      () => engine.readSession('zzzzzzzz'),
      () => engine.openSession('zzzzzzzz'),
      () => engine.deleteSession('0001m84j6ta3tpjd4qpvde'),
    ]) {
      const error = await attempt().catch((caught: unknown) => caught);
      expect(core.SessionNotFoundError.isInstance(error)).toBe(true);
      if (!core.SessionNotFoundError.isInstance(error)) continue;
      expect(error.recent?.map((summary) => summary.title)).toEqual(['the only one']);
      expect(error.hint).toBeUndefined();
      expect(error.message).not.toMatch(frontEndWording);
    }
    const tooShort = await engine.resolveSessionId('abc').catch((caught: unknown) => caught);
    expect(core.UsageError.isInstance(tooShort)).toBe(true);
    expect(`${(tooShort as core.UsageError).message} ${(tooShort as core.UsageError).hint ?? ''}`).not.toMatch(
      frontEndWording,
    );
  });
});
