// index-file-check.generated.ts is the listing index's quick check written out (no zod at
// run time). It must stay the check of the schema as it is now: a changed summary or entry
// schema fails here until the file is written again, with
//   CONCLAVE_WRITE_GENERATED=1 pnpm vitest run --project @resume/storage-fs index-file-check
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { exactCheckSource } from './exact-check.js';
import { indexFileSchema } from './summary-index.js';

const generatedFile = fileURLToPath(new URL('./index-file-check.generated.ts', import.meta.url));

export function indexFileCheckModule(): string {
  const source = exactCheckSource(indexFileSchema, 'isExactIndexFile');
  if (source === null) throw new Error('the listing index schema has a construct the quick check does not handle');
  return [
    '// @ts-nocheck',
    '// Generated from the listing index schema (summary-index.ts) by exactCheckSource (exact-check.ts):',
    '// do not edit. index-file-check.test.ts says how to write it again when the schema changes.',
    '// True only when zod would accept the value and return it unchanged.',
    source,
  ].join('\n');
}

describe('the written-out listing index check', () => {
  it('is the check of the index schema as it is now', () => {
    const expected = indexFileCheckModule();
    if (process.env.CONCLAVE_WRITE_GENERATED === '1') writeFileSync(generatedFile, expected);
    expect(readFileSync(generatedFile, 'utf8')).toBe(expected);
  });
});
