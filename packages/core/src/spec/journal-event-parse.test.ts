// journal-event-parse.generated.ts is the fast parser of the journal event schema (and of the
// session header and summary) written out, so a read or an append parses events without building
// the schemas. It must stay the parser of the schemas as they are now: a changed schema fails
// here until the file is written again, with
//   CONCLAVE_WRITE_GENERATED=1 pnpm vitest run --project @resume/core journal-event-parse
// (fast-parse.test.ts checks the written parser against zod, as it does the compiled one).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { journalEventSchema, sessionHeaderSchema } from './events.js';
import { fastParseSource } from './fast-parse-source.js';
import { sessionSummarySchema } from './summary.js';

const generatedFile = fileURLToPath(new URL('./journal-event-parse.generated.ts', import.meta.url));

export function journalEventParseModule(): string {
  const source = fastParseSource({
    fastParseJournalEvent: journalEventSchema,
    fastParseSessionHeader: sessionHeaderSchema,
    fastParseSessionSummary: sessionSummarySchema,
  });
  if (source === null) throw new Error('a journal schema has a construct the fast parser does not handle');
  return [
    '// @ts-nocheck',
    '// Generated from the journal event, session header and summary schemas (events.ts, summary.ts) by',
    '// fastParseSource (fast-parse-source.ts):',
    '// do not edit. journal-event-parse.test.ts says how to write it again when a schema changes.',
    "// Answers exactly what the schema's parse returns, or NOT_PROVEN (zod then decides).",
    "import { NOT_PROVEN } from './fast-parse.js';",
    source,
  ].join('\n');
}

describe('the written-out journal parsers', () => {
  it('are the fast parsers of the event, header and summary schemas as they are now', () => {
    const expected = journalEventParseModule();
    if (process.env.CONCLAVE_WRITE_GENERATED === '1') writeFileSync(generatedFile, expected);
    expect(readFileSync(generatedFile, 'utf8')).toBe(expected);
  });
});
