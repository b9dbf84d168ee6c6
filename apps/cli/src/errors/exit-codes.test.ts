// The exit code of every error the packages throw, from the front ends' one table
// (@resume/runner/exit-codes). The recorded values are the ones users and scripts have seen so far
// (docs/cli.md#exit-codes): a change to any of them is a breaking change.
import { readFileSync } from 'node:fs';
import * as aiSdk from '@resume/ai-sdk';
import { PromptChangedError } from '@resume/ai-sdk';
import * as core from '@resume/core';
import * as coreSpec from '@resume/core/spec';
import * as langgraph from '@resume/langgraph';
import { CheckpointDataError, ThreadBusyError, ThreadConfigError } from '@resume/langgraph';
import * as providersAnthropic from '@resume/providers-anthropic';
import * as providersOpenai from '@resume/providers-openai';
import * as providersScripted from '@resume/providers-scripted';
import * as runner from '@resume/runner';
import * as runnerConfig from '@resume/runner/config';
import { ExitCode, exitCodeFor, exitCodes } from '@resume/runner/exit-codes';
import * as runnerModes from '@resume/runner/modes';
import * as runnerProviders from '@resume/runner/providers';
import * as storageFs from '@resume/storage-fs';
import * as storagePostgres from '@resume/storage-postgres';
import { describe, expect, it } from 'vitest';

const TABLE = 'packages/runner/src/exit-codes/exit-codes.ts';

/** Every module a library user imports errors from. */
const packages: Record<string, Record<string, unknown>> = {
  '@resume/core': core,
  '@resume/core/spec': coreSpec,
  '@resume/runner': runner,
  '@resume/runner/config': runnerConfig,
  '@resume/runner/modes': runnerModes,
  '@resume/runner/providers': runnerProviders,
  '@resume/storage-fs': storageFs,
  '@resume/storage-postgres': storagePostgres,
  '@resume/providers-anthropic': providersAnthropic,
  '@resume/providers-openai': providersOpenai,
  '@resume/providers-scripted': providersScripted,
  '@resume/ai-sdk': aiSdk,
  '@resume/langgraph': langgraph,
};

/** The error classes a package exports (a subclass of ConclaveError has a static `code` and `isInstance`). */
function errorClasses(exports: Record<string, unknown>): Array<{ name: string; code: string }> {
  return Object.entries(exports).flatMap(([name, value]) => {
    if (typeof value !== 'function' || value === core.ConclaveError) return [];
    const { code, isInstance } = value as { code?: unknown; isInstance?: unknown };
    return typeof code === 'string' && typeof isInstance === 'function' ? [{ name, code }] : [];
  });
}

const sessionId = '7f3c2a9e-0000-4000-8000-000000000000';
const refusedKey = new core.ProviderError({ reason: 'authentication', provider: 'openai', message: 'key refused' });
const failedAttempt: core.FailedAttempt = {
  attempt: 1,
  error: { name: 'Error', message: 'boom', code: null, retryable: false },
};

/** One error of each kind (and of each variant with its own exit code), with the exit code it gives. */
const recorded: Array<[string, () => core.ConclaveError, number]> = [
  ['AppendConflictError', () => new core.AppendConflictError(sessionId, 3, 4), 75],
  ['ConfigError', () => new core.ConfigError({ file: 'a.yaml', key: 'agents', problem: 'is empty' }), 64],
  [
    'EncryptionKeyUnavailableError',
    () => new core.EncryptionKeyUnavailableError({ keyId: '3f2a9c0d11e4', sessionId, location: 'journal.jsonl' }),
    69,
  ],
  ['FileNotFoundError', () => new core.FileNotFoundError('missing.yaml'), 66],
  ['IncompatibleSessionError', () => new core.IncompatibleSessionError(sessionId, ['the spec changed']), 65],
  ['InputRejectedError', () => new core.InputRejectedError({ sessionId, key: 'approval', problem: 'not a yes' }), 64],
  ['InterruptedError', () => new core.InterruptedError(sessionId), 130],
  [
    'JournalCorruptedError',
    () => new core.JournalCorruptedError({ sessionId, file: 'journal.jsonl', offset: 12, problem: 'checksum' }),
    65,
  ],
  ['LeaseLostError', () => new core.LeaseLostError(sessionId), 75],
  ['PermissionDeniedError', () => new core.PermissionDeniedError('/store', 'read'), 77],
  ['ProviderError (authentication)', () => refusedKey, 69],
  ...(
    [
      ['model-not-found', 69],
      ['rate-limit', 69],
      ['overloaded', 69],
      ['bad-request', 1],
      ['network', 69],
      ['aborted', 130],
      ['unavailable', 69],
    ] as const
  ).map(([reason, exitCode]): [string, () => core.ConclaveError, number] => [
    `ProviderError (${reason})`,
    () => new core.ProviderError({ reason, provider: 'openai', message: reason }),
    exitCode,
  ]),
  [
    'RecoveryLimitError',
    () => new core.RecoveryLimitError({ sessionId, recoveries: 4, limit: 3, stepKey: 'publish' }),
    1,
  ],
  [
    'ReplayMismatchError',
    () => new core.ReplayMismatchError({ sessionId, position: 2, expected: 'step "a" #1', requested: 'step "b" #1' }),
    65,
  ],
  [
    'SessionDeletedError',
    () => new core.SessionDeletedError(sessionId, { messages: 2, steps: 1, costUsd: null, location: null }),
    66,
  ],
  ['SessionExistsError', () => new core.SessionExistsError(sessionId), 64],
  [
    'SessionFinishedError',
    () => new core.SessionFinishedError({ sessionId, status: 'completed', operation: 'step "a"' }),
    64,
  ],
  [
    'SessionLockedError',
    () => new core.SessionLockedError(sessionId, { pid: 42, host: 'box', since: '2026-01-01T00:00:00.000Z' }),
    75,
  ],
  [
    'SessionNameTakenError',
    () => new core.SessionNameTakenError({ name: 'nightly', holderId: sessionId, holderTitle: 'Nightly' }),
    64,
  ],
  ['SessionNotFoundError', () => new core.SessionNotFoundError('zzzzzz'), 66],
  ['StepAbortedError', () => new core.StepAbortedError(sessionId, 'publish'), 1],
  [
    'StepFailedError (replayed: no cause)',
    () => new core.StepFailedError({ sessionId, key: 'a', occurrence: 1, attempts: [failedAttempt], replayed: true }),
    1,
  ],
  [
    'StepFailedError (a failure that is no Conclave error)',
    () =>
      new core.StepFailedError(
        { sessionId, key: 'a', occurrence: 1, attempts: [failedAttempt] },
        { cause: new Error('boom') },
      ),
    1,
  ],
  [
    'StepFailedError (a refused API key)',
    () =>
      new core.StepFailedError(
        { sessionId, key: 'a', occurrence: 1, attempts: [failedAttempt] },
        { cause: refusedKey },
      ),
    69,
  ],
  [
    'StepOutputError',
    () => new core.StepOutputError({ sessionId, key: 'a', path: 'output.when', problem: 'is a Date' }),
    1,
  ],
  [
    'StoreFullError',
    () => new core.StoreFullError({ path: '/store/journal.jsonl', location: '/store', freeBytes: 0 }),
    74,
  ],
  [
    'StoreQuotaError',
    () =>
      new core.StoreQuotaError({
        limit: 'maxHomeBytes',
        limitBytes: 1024,
        usedBytes: 1000,
        writingBytes: 100,
        location: '/store',
        sessionId,
        biggest: [],
      }),
    74,
  ],
  ['StoreIoError', () => new core.StoreIoError('fsync failed', '/store/journal.jsonl'), 1],
  [
    'UncertainStepError',
    () =>
      new core.UncertainStepError({
        sessionId,
        key: 'deploy',
        occurrence: 1,
        attempt: 1,
        safety: 'unsafe',
        idempotencyKey: `${sessionId}:deploy:1`,
        startedAt: '2026-01-01T00:00:00.000Z',
        previousFailures: [],
      }),
    64,
  ],
  ['UnsupportedFormatError', () => new core.UnsupportedFormatError('The journal', 9), 65],
  ['UsageError', () => new core.UsageError('--yes needs a session'), 64],
  ['WaitingForInputError', () => new core.WaitingForInputError({ sessionId, key: 'approval', prompt: 'Ship it?' }), 0],
  [
    'CostLimitError',
    () =>
      new runner.CostLimitError({
        sessionId,
        scope: 'session',
        limitUsd: 1,
        spentUsd: 0.9,
        reservedUsd: 0,
        estimateUsd: 0.2,
        stepKey: 'round-2',
      }),
    130,
  ],
  [
    'MapItemsFailedError',
    () => new runner.MapItemsFailedError({ sessionId, stepId: 'each', failed: ['b'], completed: 1, total: 2 }),
    1,
  ],
  ['MapNoItemsError', () => new runner.MapNoItemsError({ stepId: 'each', key: 'steps[0]' }), 1],
  ['McpServerError', () => new runner.McpServerError('github', 'died', 'stopped answering'), 69],
  [
    'ParallelGroupFailedError (a failure that is no Conclave error)',
    () =>
      new runner.ParallelGroupFailedError(
        { group: 'checks', number: 1, failed: [{ id: 'lint', message: 'boom' }], completed: [] },
        { cause: new Error('boom') },
      ),
    1,
  ],
  [
    'ParallelGroupFailedError (a refused API key)',
    () =>
      new runner.ParallelGroupFailedError(
        { group: 'checks', number: 1, failed: [{ id: 'review', message: 'key refused' }], completed: ['lint'] },
        { cause: refusedKey },
      ),
    69,
  ],
  ['ScoredStepFailedError', () => new runner.ScoredStepFailedError('below the threshold'), 1],
  [
    'ShellCommandFailedError',
    () => new runner.ShellCommandFailedError('make', { exitCode: 2, stdoutTail: '', stderrTail: 'no rule' }),
    1,
  ],
  ['StepTimedOutError', () => new runner.StepTimedOutError({ what: 'Command `make`', timeoutMs: 1000 }), 1],
  ['UnknownModeError', () => new runner.UnknownModeError({ mode: 'debate', registered: ['chain'] }), 64],
  ['WorkspaceAccessError', () => new runner.WorkspaceAccessError('outside-workspace', '../x', 'outside'), 64],
  ['WorkspaceToolError', () => new runner.WorkspaceToolError('command-refused', 'not allowed'), 64],
  ['WorktreeRefusedError', () => new runner.WorktreeRefusedError('the worktree is gone', 'recreate it'), 65],
  [
    'PromptChangedError',
    () => new PromptChangedError({ sessionId, stepKey: 'model:generate', recordedHash: 'a', requestedHash: 'b' }),
    65,
  ],
  ['CheckpointDataError', () => new CheckpointDataError({ sessionId, threadId: 't1', problem: 'blob missing' }), 65],
  ['ThreadConfigError', () => new ThreadConfigError('getTuple', 'thread_id'), 64],
  [
    'ThreadBusyError',
    () =>
      new ThreadBusyError({
        sessionId,
        threadId: 't1',
        holder: { pid: 4242, host: 'worker-7', since: '2026-01-01T00:00:00.000Z' },
      }),
    75,
  ],
];

describe('exit codes', () => {
  it.each(recorded)('%s exits as it always has', (_name, make, exitCode) => {
    expect(exitCodeFor(make())).toBe(exitCode);
  });

  it('every error class a package exports has an entry in the table', () => {
    const missing = Object.entries(packages).flatMap(([from, exports]) =>
      errorClasses(exports)
        .filter(({ code }) => !Object.hasOwn(exitCodes, code))
        .map(
          ({ name, code }) =>
            `${name} (code "${code}", exported by ${from}) has no exit code: add '${code}': ExitCode.<${Object.keys(ExitCode).join('|')}> to ${TABLE}, and a row for it to docs/cli.md#error-codes`,
        ),
    );
    expect(missing).toEqual([]);
  });

  it('an error the table does not know, or anything that is no Conclave error, exits 1', () => {
    expect(exitCodeFor(new core.ConclaveError('made-up', 'A code of a newer package.'))).toBe(1);
    expect(exitCodeFor(new TypeError('a bug'))).toBe(1);
    expect(exitCodeFor('a string')).toBe(1);
  });

  it('docs/cli.md lists every code of the table with its exit code', () => {
    const text = readFileSync(new URL('../../../../docs/cli.md', import.meta.url), 'utf8');
    const documented = new Map(
      [...text.matchAll(/^\| `([a-z-]+)` \| ([^|]+) \|/gm)].map((row) => [row[1] ?? '', (row[2] ?? '').trim()]),
    );
    const wrong = Object.entries(exitCodes).flatMap(([code, rule]) => {
      const row = documented.get(code);
      if (row === undefined) return [`docs/cli.md has no row for error code "${code}"`];
      if (typeof rule === 'number' && row !== String(rule))
        return [`docs/cli.md gives "${code}" exit ${row}, the table ${rule}`];
      return [];
    });
    expect(wrong).toEqual([]);
    expect([...documented.keys()].filter((code) => !Object.hasOwn(exitCodes, code))).toEqual([]);
  });

  it('the exit codes the table gives are the documented ones', () => {
    const known = new Set<number>(Object.values(ExitCode));
    for (const [, make] of recorded) expect(known).toContain(exitCodeFor(make()));
  });
});
