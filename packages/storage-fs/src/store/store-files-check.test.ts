// The store's generated checks (store-files-check.generated.js, index-file-check.generated.js,
// written by scripts/generate-checks.mjs) against zod: each accepts only what its schema accepts
// and answers with what the schema returns, valid files are accepted, and the modules are the ones
// the script writes from the schemas as they are now.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { journalEventSchema, sessionSummarySchema } from '@resume/core/spec';
import { mutate } from '@resume/test-support';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { headerFileSchema } from '../header/header-file.js';
import { checkIndexFile } from '../index/index-file-check.generated.js';
import { indexFileSchema } from '../index/summary-index.js';
import { batchHeadSchema } from '../journal/journal-appender.js';
import { recordHeadSchema, recordSummarySchema, tailRecordSchema } from '../journal/journal-codec.js';
import { firstEventSchema } from '../journal/journal-files.js';
import { leaseRecordSchema } from '../lease/lease-files.js';
import {
  checkBatchHead,
  checkFirstEvent,
  checkHeaderFile,
  checkLeaseRecord,
  checkRecordHead,
  checkRecordSummary,
  checkTailRecord,
} from './store-files-check.generated.js';

/** The repository's generator, run as a tool (it is no part of any package). */
const generator = fileURLToPath(new URL('../../../../scripts/generate-checks.mjs', import.meta.url));

describe('the generated checks of the store files', () => {
  it('are the ones scripts/generate-checks.mjs writes from the schemas as they are now', () => {
    // A changed schema fails here until `node scripts/generate-checks.mjs` writes the modules again.
    const checked = spawnSync(
      process.execPath,
      [
        generator,
        '--check',
        'packages/storage-fs/src/store/store-files-check.generated.js',
        'packages/storage-fs/src/index/index-file-check.generated.js',
      ],
      { encoding: 'utf8' },
    );
    expect(checked.stderr).toBe('');
    expect(checked.status).toBe(0);
  }, 60_000);

  const header = {
    id: '0123456789abcdefghjkmn',
    title: 'a session',
    mode: 'custom',
    workspaceDir: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    parentId: null,
    branchPoint: null,
    specHash: null,
    formatVersion: 1,
    options: { model: 'x' },
    git: null,
  };
  const created = journalEventSchema.parse({ type: 'session-created', seq: 1, at: header.createdAt, header });
  const message = journalEventSchema.parse({
    type: 'message-added',
    seq: 2,
    at: header.createdAt,
    message: { role: 'user', content: 'hi' },
  });
  const summary = sessionSummarySchema.parse({
    ...header,
    status: 'running',
    updatedAt: header.createdAt,
    lastSeq: 2,
    messageCount: 1,
    progress: null,
    inputTokens: 0,
    outputTokens: 0,
    costUsd: null,
    task: 'hi',
  });
  const record = { v: 1, epoch: 1, first: 1, last: 2, events: [created, message], summary };
  const cases: [string, (value: unknown) => unknown, z.ZodType, unknown][] = [
    ['record head', checkRecordHead, recordHeadSchema, record],
    ['record summary', checkRecordSummary, recordSummarySchema, record],
    ['tail record', checkTailRecord, tailRecordSchema, record],
    ['batch head', checkBatchHead, batchHeadSchema, { expectedSeq: 0, epoch: 1, events: [created, message], summary }],
    ['first event', checkFirstEvent, firstEventSchema, created],
    ['header.json', checkHeaderFile, headerFileSchema, { v: 1, header }],
    [
      'lease file',
      checkLeaseRecord,
      leaseRecordSchema,
      { v: 1, epoch: 2, pid: 7, host: 'h', since: 'now', bootId: null, processStart: null, released: false },
    ],
    [
      'listing index',
      checkIndexFile,
      indexFileSchema,
      {
        v: 1,
        entries: [{ id: header.id, summary, journalSize: 10, archived: false, damage: null, missing: [] }],
        stamp: { modifiedMs: 1, changedMs: 2, writing: [] },
      },
    ],
  ];

  it.each(cases)('accepts a valid %s as it is, as zod parses it', (_name, check, schema, value) => {
    const copy = JSON.parse(JSON.stringify(value)) as unknown;
    expect(check(copy)).toBe(copy);
    expect(schema.parse(copy)).toEqual(check(copy));
  });

  it.each(cases)(
    'accepts nothing zod refuses in a damaged %s, and answers as zod does',
    (_name, check, schema, value) => {
      const strange = fc.oneof(
        fc.jsonValue({ maxDepth: 2 }),
        fc.constantFrom(-1, 0, 0.5, 2 ** 53, '', null, [], {}, '__proto__'),
      );
      fc.assert(
        fc.property(fc.array(fc.nat(), { minLength: 1, maxLength: 4 }), strange, fc.nat(2), (path, replacement, op) => {
          const damaged = JSON.parse(JSON.stringify(mutate(value, path, replacement, op))) as unknown;
          const answer = check(damaged);
          const zod = schema.safeParse(damaged);
          if (answer !== undefined) {
            expect(zod.success).toBe(true);
            expect(answer).toEqual(zod.data);
          }
        }),
        { numRuns: 500 },
      );
    },
  );
});
