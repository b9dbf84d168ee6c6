// store-files-parse.generated.ts is the fast parsers of the store's files written out (a journal
// record, an append's batch, header.json, a lease file), so opening and appending to a session
// parse them without building their schemas; the events, headers and summaries inside are parsed by
// the core's written-out parsers, which the module calls. It must stay the parsers of the schemas as
// they are now: a changed schema fails here until the file is written again, with
//   CONCLAVE_WRITE_GENERATED=1 pnpm vitest run --project @resume/storage-fs store-files-parse
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  compileFastParse,
  fastParseSource,
  journalEventSchema,
  NOT_PROVEN,
  sessionHeaderSchema,
  sessionSummarySchema,
} from '@resume/core/spec';
import { testHeader, testSummary } from '@resume/core/testing';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { headerFileSchema } from '../header/header-file.js';
import { batchShapeSchema } from '../journal/journal-appender.js';
import { recordEventsSchema, recordSummarySchema, tailRecordSchema } from '../journal/journal-codec.js';
import { firstEventSchema } from '../journal/journal-files.js';
import { leaseRecordSchema } from '../lease/lease-files.js';
import {
  fastParseBatchShape,
  fastParseFirstEvent,
  fastParseHeaderFile,
  fastParseLeaseRecord,
  fastParseRecordEvents,
  fastParseRecordSummary,
  fastParseTailRecord,
} from './store-files-parse.generated.js';

/** The written-out parsers, by name. */
const written: Record<string, (value: unknown) => unknown> = {
  fastParseRecordEvents,
  fastParseRecordSummary,
  fastParseTailRecord,
  fastParseBatchShape,
  fastParseFirstEvent,
  fastParseHeaderFile,
  fastParseLeaseRecord,
};

const generatedFile = fileURLToPath(new URL('./store-files-parse.generated.ts', import.meta.url));

/** Each written-out parser and the schema it is the parser of. */
const parsers: Record<string, z.ZodType> = {
  fastParseRecordEvents: recordEventsSchema,
  fastParseRecordSummary: recordSummarySchema,
  fastParseTailRecord: tailRecordSchema,
  fastParseBatchShape: batchShapeSchema,
  fastParseFirstEvent: firstEventSchema,
  fastParseHeaderFile: headerFileSchema,
  fastParseLeaseRecord: leaseRecordSchema,
};

/** The core's written-out parsers the module calls for the schemas it holds. */
const references = new Map<unknown, string>([
  [(journalEventSchema as unknown as { _zod: unknown })._zod, 'fastParseJournalEvent'],
  [(sessionHeaderSchema as unknown as { _zod: unknown })._zod, 'fastParseSessionHeader'],
  [(sessionSummarySchema as unknown as { _zod: unknown })._zod, 'fastParseSessionSummary'],
]);

export function storeFilesParseModule(): string {
  const source = fastParseSource(parsers, { references });
  if (source === null) throw new Error('a store file schema has a construct the fast parser does not handle');
  return [
    '// @ts-nocheck',
    "// Generated from the store files' schemas (journal-codec.ts, journal-appender.ts, journal-files.ts,",
    '// header-file.ts, lease-files.ts) by fastParseSource (@resume/core/spec): do not edit.',
    '// store-files-parse.test.ts says how to write it again when a schema changes.',
    "// Each answers exactly what its schema's parse returns, or NOT_PROVEN (zod then decides).",
    'import {',
    '  fastParseJournalEvent,',
    '  fastParseSessionHeader,',
    '  fastParseSessionSummary,',
    '  NOT_PROVEN,',
    "} from '@resume/core/spec';",
    source,
  ].join('\n');
}

describe('the written-out store file parsers', () => {
  it('are the fast parsers of the schemas as they are now', () => {
    const expected = storeFilesParseModule();
    if (process.env.CONCLAVE_WRITE_GENERATED === '1') writeFileSync(generatedFile, expected);
    expect(readFileSync(generatedFile, 'utf8')).toBe(expected);
  });

  it('answer as the parsers compiled from the same schemas do, and as zod does', () => {
    const header = testHeader();
    const summary = testSummary(header, 1);
    const created = { seq: 1, at: 'now', type: 'session-created', header };
    const values: Record<string, unknown[]> = {
      fastParseRecordEvents: [
        { v: 1, epoch: 1, first: 1, last: 1, events: [created], summary },
        { v: 1, epoch: 1, first: 1, last: 1, events: [] },
        { v: 0, epoch: 1, first: 1, last: 1, events: [created] },
      ],
      fastParseRecordSummary: [{ summary }, { summary: { ...summary, lastSeq: -1 } }, {}],
      fastParseTailRecord: [
        { epoch: 1, last: 1, summary, extra: 1 },
        { epoch: 1.5, last: 1, summary },
      ],
      fastParseBatchShape: [
        { expectedSeq: 0, epoch: 1, events: [created], summary },
        { expectedSeq: 0, epoch: 1, events: [{ ...created, seq: 0 }], summary },
      ],
      fastParseFirstEvent: [created, { ...created, seq: 2 }, { ...created, header: { ...header, formatVersion: 0 } }],
      fastParseHeaderFile: [
        { v: 1, header },
        { v: 2, header },
        { v: 1, header: { ...header, id: 'x' } },
      ],
      fastParseLeaseRecord: [
        { v: 1, epoch: 2, pid: 3, host: 'h', since: 'now', bootId: null, processStart: null, released: false },
        {
          v: 1,
          epoch: 2,
          pid: 3,
          host: 'h',
          since: 'now',
          bootId: 'b',
          processStart: 's',
          released: true,
          lastSeq: 4,
          journal: { size: 10, changedMs: 1.5 },
        },
        { v: 1, epoch: 0, pid: 3, host: 'h', since: 'now', bootId: null, processStart: null, released: false },
      ],
    };
    for (const [name, schema] of Object.entries(parsers)) {
      const compiled = compileFastParse(schema);
      expect(compiled, name).not.toBeNull();
      let vouched = 0;
      for (const value of values[name] ?? []) {
        const answer = written[name]?.(value);
        expect(answer, name).toStrictEqual(compiled?.(value));
        if (answer === NOT_PROVEN) continue;
        vouched += 1;
        const zod = schema.safeParse(value);
        expect(zod.success, name).toBe(true);
        expect(JSON.stringify(answer), name).toBe(JSON.stringify(zod.data));
      }
      expect(vouched, `${name} vouches for a valid value`).toBeGreaterThan(0);
    }
  });
});
